#!/bin/bash
# What ESPresense's wire costs the fusion: for each seed, the ESPresense room's walk as each
# receiver's reports (simulate --receivers), fused from the file (`fuse`), and the same reports
# published at their recorded pace as ESPresense messages into a real Mosquitto (`relay --mqtt`,
# one node per receiver) and fused by `bridge` from the broker. ESPresense's messages carry no
# time: the bridge stamps each on arrival. Both sets of fixes are scored the same way, against
# the walk's truth at each fix's time; prints each seed's mean errors and, at the end, the broker
# over the file, averaged over the seeds.
#
#   Scripts/mqtt-accuracy.sh 1 5
#
# Needs a built whereabouts (`swift build`, or WHEREABOUTS=path), Mosquitto (Debian's
# `mosquitto`) and python3. Each seed takes its walk's length (about 100 s) in real time.
set -euo pipefail
first=${1:-1}; last=${2:-5}
whereabouts=${WHEREABOUTS:-$(dirname "$0")/../.build/debug/whereabouts}
mosquitto=${WHEREABOUTS_MOSQUITTO:-/usr/sbin/mosquitto}
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$port" > "$work/mosquitto.conf"
"$mosquitto" -c "$work/mosquitto.conf" 2>"$work/mosquitto.log" &
broker=$!
trap 'kill $broker 2>/dev/null; rm -rf "$work"' EXIT
url="mqtt://127.0.0.1:$port"
sleep 1

for seed in $(seq "$first" "$last"); do
  "$whereabouts" simulate --quiet --preset espresense-room --seed "$seed" --receivers \
      --export-venue "$work/receivers.json" -o "$work/reports.jsonl" 2>/dev/null
  "$whereabouts" fuse --venue "$work/receivers.json" --recording "$work/reports.jsonl" --no-events \
      > "$work/file.jsonl" 2>/dev/null
  "$whereabouts" bridge --venue "$work/receivers.json" --mqtt "$url" --no-publish 2>/dev/null \
      > "$work/broker.jsonl" &
  bridge=$!
  sleep 2
  # The reports at their recorded pace (by arrival), into a relay that publishes each as its
  # receiver's node; the pacer notes when the first went out.
  python3 - "$work/reports.jsonl" "$work/start" <<'PY' | "$whereabouts" relay --recording - --mqtt "$url" 2>/dev/null
import json, sys, time
lines = [l for l in open(sys.argv[1]) if l.strip()]
first = json.loads(lines[0]).get("arrival", json.loads(lines[0])["t"])
start = time.time()
open(sys.argv[2], "w").write(f"{start} {first}\n")
for line in lines:
    scan = json.loads(line)
    due = start + scan.get("arrival", scan["t"]) - first
    time.sleep(max(0, due - time.time()))
    print(line.strip(), flush=True)
PY
  sleep 4
  kill -TERM $bridge; wait $bridge 2>/dev/null || true
  python3 - "$work/reports.jsonl" "$work/file.jsonl" "$work/broker.jsonl" "$work/start" "$seed" <<'PY'
import bisect, json, math, sys
reports = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
truth = sorted((r["t"], r["truth"]["x"], r["truth"]["y"]) for r in reports if "truth" in r)
times = [t for t, _, _ in truth]
def at(t):
    i = bisect.bisect_left(times, t)
    if i <= 0: return truth[0][1:]
    if i >= len(truth): return truth[-1][1:]
    (t0, x0, y0), (t1, x1, y1) = truth[i - 1], truth[i]
    w = 0 if t1 == t0 else (t - t0) / (t1 - t0)
    return x0 + w * (x1 - x0), y0 + w * (y1 - y0)
def mean_error(path, shift):
    errors = []
    for line in open(path):
        if not line.startswith("{"): continue
        fix = json.loads(line)
        if "x" not in fix: continue
        x, y = at(fix["t"] - shift)
        errors.append(math.hypot(fix["x"] - x, fix["y"] - y))
    return (sum(errors) / len(errors) if errors else float("nan")), len(errors)
wall, first = map(float, open(sys.argv[4]).read().split())
file_mean, file_n = mean_error(sys.argv[2], 0)
broker_mean, broker_n = mean_error(sys.argv[3], wall - first)
print(sys.argv[5], file_mean, file_n, broker_mean, broker_n)
PY
done | awk '{ print "seed " $1 ": file mean " $2 " m (" $3 " fixes), broker mean " $4 " m (" $5 " fixes)"; f += $2; b += $4 }
  END { printf "seeds %d: file mean %.3f m, broker mean %.3f m; broker / file %.3f\n", NR, f/NR, b/NR, b/f }'
