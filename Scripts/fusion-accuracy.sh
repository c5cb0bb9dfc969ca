#!/bin/bash
# The cost of fusing fixed receivers' reports: for each seed, a walk's ideal recording (every
# receiver's RSSI at once, each second) scored by `eval`, and the same walk as each receiver's
# reports (its own schedule and clock, loss, duplicates) scored by `eval --fuse`. Prints each
# seed's mean and p95 and, at the end, the fused over the ideal, averaged over the seeds.
#
#   Scripts/fusion-accuracy.sh room 1 40          # the ESPresense room's walk
#   Scripts/fusion-accuracy.sh family 6 25        # members of the simulated family (their
#                                                 # visitors' phones as tags, trained on the survey)
#   Scripts/fusion-accuracy.sh room 1 40 --clock-offset 0 --report-loss 0 --duplicates 0
#
# Arguments after the seeds go to `simulate --receivers`. Needs a built whereabouts
# (`swift build`), or WHEREABOUTS=path/to/whereabouts.
set -euo pipefail
mode=${1:-room}; first=${2:-1}; last=${3:-40}; shift $(( $# < 3 ? $# : 3 ))
case "$mode" in room|family) ;; *) echo "usage: $0 room|family FIRST LAST [simulate options]" >&2; exit 2 ;; esac
whereabouts=${WHEREABOUTS:-$(dirname "$0")/../.build/debug/whereabouts}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
score() { "$whereabouts" eval --quiet --json "$@" | python3 -c 'import json,sys; r=json.load(sys.stdin); r=r[0] if isinstance(r,list) else r; print(r["error"]["mean"], r["error"]["p95"])'; }
for seed in $(seq "$first" "$last"); do
  if [ "$mode" = room ]; then
    "$whereabouts" simulate --quiet --preset espresense-room --seed "$seed" --export-venue "$work/venue.json" -o "$work/test.jsonl" 2>/dev/null
    "$whereabouts" simulate --quiet --preset espresense-room --seed "$seed" --receivers "$@" --export-venue "$work/receivers.json" -o "$work/reports.jsonl" 2>/dev/null
    ideal=$(score --venue "$work/venue.json" --test "$work/test.jsonl")
    fused=$(score --venue "$work/receivers.json" --test "$work/reports.jsonl" --fuse)
  else
    rm -rf "$work/member"
    "$whereabouts" simulate --quiet --family --seed "$seed" --receivers "$@" --directory "$work/member" 2>/dev/null
    "$whereabouts" fuse --venue "$work/member/receivers.json" --recording "$work/member/train-reports.jsonl" --scans \
        > "$work/member/train-fused.jsonl" 2>/dev/null
    ideal=$(score --venue "$work/member/venue.json" --test "$work/member/test.jsonl" --train "$work/member/train.jsonl" --algorithm default)
    fused=$(score --venue "$work/member/receivers.json" --test "$work/member/reports.jsonl" --fuse --train "$work/member/train-fused.jsonl" --algorithm default)
  fi
  echo "$seed $ideal $fused"
done | awk '{ print "seed " $1 ": ideal mean " $2 " p95 " $3 ", fused mean " $4 " p95 " $5; im += $2; ip += $3; fm += $4; fp += $5 }
  END { printf "seeds %d: ideal mean %.3f p95 %.3f; fused mean %.3f p95 %.3f; fused / ideal: mean %.3f, p95 %.3f\n", NR, im/NR, ip/NR, fm/NR, fp/NR, fm/im, fp/ip }'
