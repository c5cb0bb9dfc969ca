#!/usr/bin/env bash
# Installs the `whereabouts` command: builds it in release, strips it (a fraction of the unstripped
# size, which matters on a Raspberry Pi) and puts it in PREFIX/bin (default ~/.local/bin). When
# that folder is not on the PATH, adds one line to ~/.profile (and to ~/.bashrc and ~/.zshrc where
# they exist) so that new shells find the command, and says what to type for this one. Run it
# again to update; it changes nothing twice.
#
#   Scripts/install.sh                   # into ~/.local/bin
#   PREFIX=/usr/local sudo -E Scripts/install.sh
#   Scripts/install.sh --no-profile      # install only; leave the shell's start-up files alone
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${PREFIX:-$HOME/.local}"
bin="$prefix/bin"
edit_profile=1
for argument in "$@"; do
    case "$argument" in
        --no-profile) edit_profile=0 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$argument' (see --help)" >&2; exit 64 ;;
    esac
done
command -v swift >/dev/null 2>&1 || { echo "error: swift is not on the PATH; install Swift 6.1 or later first (https://www.swift.org/install)" >&2; exit 1; }

echo "Building whereabouts in release (the first build takes several minutes)…"
swift build -c release --product whereabouts --package-path "$repo"
built="$(swift build -c release --product whereabouts --package-path "$repo" --show-bin-path)/whereabouts"
[ -x "$built" ] || { echo "error: the build left no binary at $built" >&2; exit 1; }

mkdir -p "$bin"
# Copied beside the old one and renamed over it: a running `whereabouts serve` keeps its file.
staged="$bin/.whereabouts.installing.$$"
trap 'rm -f "$staged"' EXIT
install -m 755 "$built" "$staged"
if command -v strip >/dev/null 2>&1; then
    strip "$staged"
else
    echo "note: strip (binutils) is not installed: the binary stays unstripped" >&2
fi
"$staged" version >/dev/null || { echo "error: the installed binary does not run" >&2; exit 1; }
mv -f "$staged" "$bin/whereabouts"
size() { du -h "$1" | cut -f1; }
echo "Installed $bin/whereabouts ($(size "$bin/whereabouts"), from $(size "$built") unstripped): $("$bin/whereabouts" version)"

case ":$PATH:" in
    *":$bin:"*) echo "$bin is on the PATH: \`whereabouts\` works now."; exit 0 ;;
esac
if [ "$bin" = "$HOME/.local/bin" ]; then line='export PATH="$HOME/.local/bin:$PATH"'; else line="export PATH=\"$bin:\$PATH\""; fi
if [ "$edit_profile" -eq 1 ]; then
    marker="# added by Whereabouts' Scripts/install.sh"
    for file in "$HOME/.profile" "$HOME/.bashrc" "$HOME/.zshrc"; do
        [ "$file" = "$HOME/.profile" ] || [ -f "$file" ] || continue
        if [ -f "$file" ] && grep -qxF "$line" "$file"; then
            echo "$file already puts $bin on the PATH of new shells."
            continue
        fi
        printf '\n%s\n%s\n' "$marker" "$line" >>"$file"
        echo "Added to $file, for new shells: $line"
    done
fi
echo "For this shell, run:  $line"
