#!/usr/bin/env bash
# Reproduces the accuracy figures the README and Documentation/Accuracy.md give on the public
# datasets: runs the commands they come from on every dataset and prints the same tables, in
# Markdown, from the `--json` reports (and from `calibrate`'s and `train`'s summaries).
#
#   Scripts/datasets.sh                 # once: fetch and convert the datasets into data/public
#   Scripts/accuracy.sh                 # DATA=data/public
#   Scripts/accuracy.sh /path/to/data   # or DATA=… Scripts/accuracy.sh
#
# What runs, for each of uji-lib, uji-geo-4, uji-geo-12, uji-geo-20 (D):
#   whereabouts eval --venue $DATA/D/venue.json --test $DATA/D/test.jsonl --train $DATA/D/train.jsonl --algorithm all --json
#   … the same with --rssi-filter none --tracking stop-and-go (one algorithm, the default)
#   … without --train, and without --train with --rssi-filter kalman --tracking none
#   whereabouts calibrate --venue $DATA/D/venue.json --recording $DATA/D/train.jsonl
# and for esiiab:
#   whereabouts eval --venue $DATA/esiiab/venue.json --test $DATA/esiiab/test.jsonl --train $DATA/esiiab/train.jsonl --classifier all --json
#   whereabouts train --venue $DATA/esiiab/venue.json --recording $DATA/esiiab/train.jsonl -o …
# A few minutes with a release build.
#
# Environment: DATA (when no argument), WHEREABOUTS (the binary; default .build/release/whereabouts,
# else `whereabouts` on PATH, else built with `swift build -c release`), OUT (where the reports
# are kept; default a temporary folder, named at the end).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${1:-${DATA:-$ROOT/data/public}}
OUT=${OUT:-$(mktemp -d -t whereabouts-accuracy.XXXXXX)}
PYTHON=${PYTHON:-python3}
UJI=(uji-lib uji-geo-4 uji-geo-12 uji-geo-20)

fail() { echo "error: $*" >&2; exit 1; }

for dataset in "${UJI[@]}" esiiab; do
    for file in venue.json train.jsonl test.jsonl; do
        [[ -s $DATA/$dataset/$file ]] \
            || fail "$DATA/$dataset/$file is missing: run Scripts/datasets.sh first (or give the folder holding the datasets)."
    done
done
command -v "$PYTHON" > /dev/null || fail "$PYTHON is needed to print the tables."

if [[ -z ${WHEREABOUTS:-} ]]; then
    if [[ -x $ROOT/.build/release/whereabouts ]]; then
        WHEREABOUTS=$ROOT/.build/release/whereabouts
    elif command -v whereabouts > /dev/null; then
        WHEREABOUTS=$(command -v whereabouts)
    else
        echo "Building whereabouts (release)…" >&2
        (cd "$ROOT" && swift build -c release --product whereabouts >&2)
        WHEREABOUTS=$(cd "$ROOT" && swift build -c release --show-bin-path)/whereabouts
    fi
fi
[[ -x $WHEREABOUTS ]] || fail "$WHEREABOUTS is not an executable."
mkdir -p "$OUT"
# The default's choice of RSSI filter and tracking, and its validation error, are a note on
# standard error; builds that have --verbose print it only when asked.
verbose=()
help=$("$WHEREABOUTS" eval --help 2>&1 || true)
[[ $help == *--verbose* ]] && verbose=(--verbose)

# run NAME ARGS…: the command's standard output into OUT/NAME, its standard error into OUT/NAME.err
# (with the .json or .txt suffix of NAME dropped).
run() {
    local name=$1; shift
    echo "  whereabouts $*" >&2
    "$WHEREABOUTS" "$@" > "$OUT/$name" 2> "$OUT/${name%.*}.err" \
        || { cat "$OUT/${name%.*}.err" >&2; fail "whereabouts $* failed"; }
}

echo "Running on $DATA with $WHEREABOUTS:" >&2
for d in "${UJI[@]}"; do
    files=(--venue "$DATA/$d/venue.json" --test "$DATA/$d/test.jsonl")
    run "$d.eval.json" eval "${files[@]}" --train "$DATA/$d/train.jsonl" --algorithm all --json ${verbose[@]+"${verbose[@]}"}
    run "$d.stop-and-go.json" eval "${files[@]}" --train "$DATA/$d/train.jsonl" --rssi-filter none --tracking stop-and-go --json
    run "$d.untrained.json" eval "${files[@]}" --json ${verbose[@]+"${verbose[@]}"}
    run "$d.untrained-kalman.json" eval "${files[@]}" --rssi-filter kalman --tracking none --json
    run "$d.calibrate.txt" calibrate --venue "$DATA/$d/venue.json" --recording "$DATA/$d/train.jsonl"
done
e=$DATA/esiiab
run esiiab.eval.json eval --venue "$e/venue.json" --test "$e/test.jsonl" --train "$e/train.jsonl" --classifier all --json
run esiiab.train.txt train --venue "$e/venue.json" --recording "$e/train.jsonl" -o "$OUT/esiiab.model.json"

"$PYTHON" "$ROOT/Scripts/datasets/accuracy_tables.py" "$OUT"
echo >&2
echo "Reports in $OUT" >&2
