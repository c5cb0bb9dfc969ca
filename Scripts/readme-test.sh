#!/usr/bin/env bash
# Runs the README's shell examples as a newcomer would: every command of every ```sh block, in
# order, in one shell, from a fresh clone of the repository's committed state — so a command that
# needs a file outside the repository fails here, and one that leaves a file `git status` shows
# (an output `.gitignore` misses) fails the run.
#
#   Scripts/readme-test.sh            # `.ci/run` runs it after the tests
#
# What it changes, and why:
# - `swift …` runs on this package wherever the shell is (`--package-path`), and HOME is a
#   scratch folder, so the install step installs into it and nowhere else — and the PATH is
#   not prepared: the README's own lines must make `whereabouts` work after the install step;
# - the placeholders TOKEN and URL become the token that `whereabouts users add` printed and
#   http://127.0.0.1:8080, where the README's `whereabouts serve` listens;
# - a command that ends with `&` runs in the background; for `whereabouts serve` the script waits
#   until its /health answers. Background commands are stopped at the end.
# What it checks beyond each command's exit status: that `whereabouts events` and `export` show
# something (not "0 events", not "Nothing in …"), that the README's server serves the venue its
# map draws and holds the track, that the same visit tracked to a second, empty server arrives
# there whole, and that the clone is as clean at the end as at the start.
# What it skips, saying so: the test command itself (`swift test`), commands that need a
# Bluetooth adapter (`--adapter`) or the public datasets (`$DATA`, not part of the repository),
# the benchmark and load scripts (minutes to hours of load each; their figures carry their
# own commands), the accuracy run over simulated venues (`Scripts/generalization.sh`) and commands
# that need the reader's MQTT broker (`--mqtt`).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
readme="$repo/README.md"

work=$(mktemp -d "${TMPDIR:-/tmp}/whereabouts-readme.XXXXXX")
background=()
cleanup() {
    # Each background command runs in a process group of its own (set -m below): stop the group,
    # the server it started included, not only the shell that ran it.
    for pid in "${background[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    cd "$repo"
    rm -rf "$work"
}
trap cleanup EXIT

if python3 -c 'import socket, sys; s = socket.socket(); sys.exit(s.connect_ex(("127.0.0.1", 8080)) != 0)'; then
    echo "error: something already listens on 127.0.0.1:8080, where the README's server goes; stop it first" >&2
    exit 1
fi

# The commands, one a line: "LINE<TAB>run<TAB>COMMAND" or "LINE<TAB>skip<TAB>REASON: COMMAND".
python3 - "$readme" >"$work/commands.tsv" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
in_block, pending, start = False, "", 0
skips = [
    (r"^swift test\b|^Scripts/test\.sh\b", "the test command itself"),
    (r"--adapter\b", "needs a Bluetooth adapter"),
    (r"\$DATA\b", "needs the public datasets ($DATA), which are not part of the repository"),
    (r"swift package .*benchmark|Scripts/(load|soak|attack)-test\.sh|Scripts/schemathesis\.sh|^cd Benchmarks",
     "a benchmark or a load run: minutes of work, measured by hand"),
    (r"Scripts/generalization\.sh", "an accuracy run over twenty simulated venues, measured by hand (it needs jq)"),
    (r"--mqtt\b", "needs the reader's MQTT broker (BridgeCommandTests runs `bridge` against a real Mosquitto)"),
]
for number, line in enumerate(lines, 1):
    if not in_block:
        in_block = line.strip() == "```sh"
        continue
    if line.strip() == "```":
        in_block = False
        continue
    if not pending:
        start = number
    if line.endswith("\\"):
        pending += line[:-1] + " "
        continue
    command = (pending + line).strip()
    pending = ""
    if not command or command.startswith("#"):
        continue
    reason = next((why for pattern, why in skips if re.search(pattern, command)), None)
    if reason:
        print(f"{start}\tskip\t{reason}: {command}")
    else:
        print(f"{start}\trun\t{command}")
PY

# `swift` acts on this package from the scratch folder (SwiftPM's own folders stay in the real HOME).
real_home="$HOME"
swift() { HOME="$real_home" command swift "$1" --package-path "$repo" "${@:2}"; }
export HOME="$work/home"
mkdir -p "$HOME"
# The PATH is left as it is: the README's install step must put `whereabouts` on it by itself.
# Its `Scripts/install.sh` is this package's (the clone's would build everything afresh), run
# with HOME the scratch folder, so that it installs there and edits the scratch ~/.profile; the
# `swift` it calls keeps the real HOME, where SwiftPM's own folders are.
mkdir -p "$work/shim"
printf '#!/bin/sh\nHOME="%s" exec "%s" "$@"\n' "$real_home" "$(type -P swift)" >"$work/shim/swift"
chmod +x "$work/shim/swift"
install_script() { PATH="$work/shim:$PATH" "$repo/Scripts/install.sh" "$@"; }
# Where `track` and the examples keep their outbox: the scratch home's, for the programs that
# `swift run` starts (with the real HOME) too.
export XDG_DATA_HOME="$HOME/.local/share"
git clone --quiet "$repo" "$work/cwd"
cd "$work/cwd"

token=""
url="http://127.0.0.1:8080"
ran=0
skipped=0
while IFS=$'\t' read -r line kind command; do
    if [ "$kind" = skip ]; then
        echo "-- README.md:$line skipped, $command"
        skipped=$((skipped + 1))
        continue
    fi
    if [[ "$command" =~ (^|[^A-Za-z_])TOKEN([^A-Za-z_]|$) ]]; then
        [ -n "$token" ] || { echo "error: README.md:$line uses TOKEN before any \`whereabouts users add\`" >&2; exit 1; }
        command=$(sed -E "s/(^|[^A-Za-z_])TOKEN([^A-Za-z_]|$)/\1$token\2/g" <<<"$command")
    fi
    command=$(sed -E "s#(^|[^A-Za-z_/])URL([^A-Za-z_]|$)#\1$url\2#g" <<<"$command")
    command=$(sed -E "s#^Scripts/install\.sh#install_script#" <<<"$command")
    echo "== README.md:$line: $command"
    ran=$((ran + 1))
    if [[ "$command" =~ \&[[:space:]]*(#.*)?$ ]]; then
        foreground="${command%%&*}"
        set -m
        eval "$foreground" >>"$work/background.log" 2>&1 &
        background+=("$!")
        set +m
        if [[ "$command" == *"whereabouts serve"* ]]; then
            for _ in $(seq 1 300); do
                if python3 -c 'import urllib.request; urllib.request.urlopen("http://127.0.0.1:8080/health", timeout=1)' 2>/dev/null; then
                    break
                fi
                if ! kill -0 "${background[-1]}" 2>/dev/null; then
                    echo "error: README.md:$line: the server stopped:" >&2
                    tail -n 20 "$work/background.log" >&2
                    exit 1
                fi
                sleep 0.1
            done
        fi
        continue
    fi
    status=0
    if [[ "$command" == *"whereabouts users add"* ]]; then
        token=$(eval "$command") || status=$?
        echo "(token: ${token:0:6}…)"
    else
        eval "$command" </dev/null >"$work/output.log" 2>&1 || status=$?
        tail -n 5 "$work/output.log"
        if [[ "$command" =~ whereabouts\ (events|export) ]] && grep -qE '^0 events\.|^Nothing in ' "$work/output.log"; then
            echo "error: README.md:$line shows nothing: $command" >&2
            exit 1
        fi
        # After the server use case, the gateway example resumes the visit `track` sent: the
        # README says it sends nothing twice.
        if [[ "$command" == *"GatewayExample"* && -n "$token" ]] && ! grep -q "was tracked to its end" "$work/output.log"; then
            echo "error: README.md:$line sent the visit again instead of resuming it: $command" >&2
            exit 1
        fi
    fi
    if [ "$status" -ne 0 ]; then
        echo "error: README.md:$line failed with status $status: $command" >&2
        cat "$work/output.log" >&2 2>/dev/null || true
        exit 1
    fi
done <"$work/commands.tsv"

# The README's server: its map draws the venue's halls and the track the README sent.
if [ -n "$token" ]; then
    WHEREABOUTS_CHECK_TOKEN="$token" python3 - <<'PY'
import json, os, sys, urllib.request
token = os.environ["WHEREABOUTS_CHECK_TOKEN"]
def get(path):
    request = urllib.request.Request("http://127.0.0.1:8080" + path, headers={"Authorization": token})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)
venue = get("/venue").get("venue") or {}
positions = get("/events?types[]=position/wgs84&fromTime=0&toTime=4000000000&limit=1000")["events"]
if not venue.get("places") or not positions:
    sys.exit(f"error: the README's server shows {len(venue.get('places') or [])} places and {len(positions)} positions on its map")
print(f"The README's map: {len(venue['places'])} places of the venue, {len(positions)} positions of the track")
PY
fi
# The tracker remembers the server, not only the file: the README's visit, tracked with the same
# outbox to a second, empty server, is delivered there in full.
if [ -n "$token" ]; then
    second_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    second_token=$(whereabouts users add bob --data-dir "$work/second-data")
    set -m
    whereabouts serve --data-dir "$work/second-data" --port "$second_port" >>"$work/background.log" 2>&1 &
    background+=("$!")
    set +m
    for _ in $(seq 1 300); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$second_port/health', timeout=1)" 2>/dev/null && break
        sleep 0.1
    done
    whereabouts track --venue Examples/venue.json --recording Examples/visit.jsonl \
        --server "http://127.0.0.1:$second_port" --token "$second_token" >"$work/second.log" 2>&1 \
        || { echo "error: track to a second server failed:" >&2; cat "$work/second.log" >&2; exit 1; }
    first_count=$(whereabouts events --from 2023-11-14 --to 2023-11-15 --json --server "$url" --token "$token" | wc -l)
    second_count=$(whereabouts events --from 2023-11-14 --to 2023-11-15 --json --server "http://127.0.0.1:$second_port" --token "$second_token" | wc -l)
    if [ "$second_count" -eq 0 ] || [ "$second_count" -ne "$first_count" ]; then
        echo "error: the visit tracked to a second server gave it $second_count events, the README's server has $first_count:" >&2
        cat "$work/second.log" >&2
        exit 1
    fi
    echo "A second, empty server got the whole visit from the same outbox: $second_count events, as the README's server"
fi
dirty=$(git -C "$work/cwd" status --porcelain)
if [ -n "$dirty" ]; then
    echo "error: the README's commands left files that git status shows (add them to .gitignore, or write them elsewhere):" >&2
    echo "$dirty" >&2
    exit 1
fi

cleanup
trap - EXIT
# The server stops gracefully: give it up to 10 s to close its port.
for _ in $(seq 1 100); do
    python3 -c 'import socket, sys; s = socket.socket(); sys.exit(s.connect_ex(("127.0.0.1", 8080)) == 0)' && break
    sleep 0.1
done
if python3 -c 'import socket, sys; s = socket.socket(); sys.exit(s.connect_ex(("127.0.0.1", 8080)) != 0)'; then
    echo "error: the README's server still listens on 127.0.0.1:8080 after the test stopped it" >&2
    exit 1
fi
echo "README commands: $ran ran, $skipped skipped (said above, with the reason)"
