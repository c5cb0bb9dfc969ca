#!/bin/bash
# The cost of fusing fixed receivers' reports, on the ESPresense room: for each seed, the walk's
# ideal recording (every receiver's RSSI at once, each second) scored by `eval`, and the same walk
# as each receiver's reports (own schedule and clock, loss, duplicates) scored by `eval --fuse`.
# Prints each seed's mean and p95 and, at the end, the fused over the ideal, averaged over seeds.
#
#   Scripts/fusion-accuracy.sh                       # seeds 1–40, the default network
#   Scripts/fusion-accuracy.sh 1 20 --clock-offset 0 --report-loss 0 --duplicates 0
#
# Extra arguments after the seeds go to `simulate --receivers`. Needs a built whereabouts
# (`swift build`), or WHEREABOUTS=path/to/whereabouts.
set -euo pipefail
first=${1:-1}; last=${2:-40}; shift $(( $# < 2 ? $# : 2 ))
whereabouts=${WHEREABOUTS:-$(dirname "$0")/../.build/debug/whereabouts}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
score() { "$whereabouts" eval --quiet --json "$@" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["error"]["mean"], r["error"]["p95"])'; }
for seed in $(seq "$first" "$last"); do
  "$whereabouts" simulate --quiet --preset espresense-room --seed "$seed" --export-venue "$work/room.json" -o "$work/ideal.jsonl" 2>/dev/null
  "$whereabouts" simulate --quiet --preset espresense-room --seed "$seed" --receivers "$@" --export-venue "$work/receivers.json" -o "$work/reports.jsonl" 2>/dev/null
  echo "$seed $(score --venue "$work/room.json" --test "$work/ideal.jsonl") $(score --venue "$work/receivers.json" --test "$work/reports.jsonl" --fuse)"
done | awk '{ print "seed " $1 ": ideal mean " $2 " p95 " $3 ", fused mean " $4 " p95 " $5; im += $2; ip += $3; fm += $4; fp += $5 }
  END { printf "seeds %d: ideal mean %.3f p95 %.3f; fused mean %.3f p95 %.3f; fused / ideal: mean %.3f, p95 %.3f\n", NR, im/NR, ip/NR, fm/NR, fp/NR, fm/im, fp/ip }'
