#!/usr/bin/env bash
# The tracking chain survives crashes and outages: `whereabouts track` replays the example
# recording to a real server while this script kills it with SIGKILL at random moments (KILLS
# times, 50 by default) and starts it again, and stops and restarts the server twice. At the end
# the server must hold exactly the events of an undisturbed run of the same recording (same time,
# duration, type, content, streams and client data; each once) and the outbox must be empty.
#
#   Scripts/tracking-crash-test.sh                 # uses .build/debug/whereabouts (built if missing)
#   KILLS=10 WHEREABOUTS=.build/release/whereabouts Scripts/tracking-crash-test.sh
#
# Needs python3 (for free ports, health checks and the comparison). `.ci/run` runs it after the
# tests.
set -euo pipefail
cd "$(dirname "$0")/.."

KILLS="${KILLS:-50}"
W="${WHEREABOUTS:-.build/debug/whereabouts}"
if [ ! -x "$W" ]; then swift build --product whereabouts; fi
W="$(cd "$(dirname "$W")" && pwd)/$(basename "$W")"
VENUE=Examples/venue.json
work=$(mktemp -d "${TMPDIR:-/tmp}/whereabouts-crash-test.XXXXXX")
# The example visit, walked sixteen times in a row (each copy 700 s after the one before): a replay
# long enough for the kills to land all along it.
RECORDING="$work/visits.jsonl"
python3 - Examples/visit.jsonl "$RECORDING" <<'PY'
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
with open(sys.argv[2], "w") as out:
    for copy in range(16):
        for scan in lines:
            out.write(json.dumps(dict(scan, t=scan["t"] + 700 * copy)) + "\n")
PY
track_pid=""
cleanup() {
    [ -n "$track_pid" ] && kill -9 "$track_pid" 2>/dev/null || true
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    if [ -n "${KEEP_WORK:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# free_port, start_server DATA_DIR PORT, stop_server.
# shellcheck source=Scripts/server-functions.sh
source Scripts/server-functions.sh

# track PORT TOKEN OUTBOX [extra options]: one run of `track` over the example.
track_args() { echo track --venue "$VENUE" --recording "$RECORDING" --server "http://127.0.0.1:$1" --token "$2" --outbox "$3"; }

events_of() {  # PORT TOKEN OUTBOX → JSON lines of every event
    "$W" events --server "http://127.0.0.1:$1" --token "$2" --from 0 --to 4000000000 --limit 100000 --json
}

echo "== reference: an undisturbed run"
port=$(free_port)
token=$("$W" users add walker --data-dir "$work/reference-data" 2>/dev/null)
start_server "$work/reference-data" "$port"
started=$(date +%s.%N)
# shellcheck disable=SC2046
"$W" $(track_args "$port" "$token" "$work/reference-outbox.sqlite") --wait 60 2>"$work/reference.log"
# The i-th kill lands at about i/KILLS of the undisturbed run's time (× 0.5…1, at random): the
# early ones during start-up, the later ones all along the replay.
run_seconds=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$started" "$(date +%s.%N)")
events_of "$port" "$token" "$work/reference-outbox.sqlite" >"$work/reference.jsonl"
stop_server
echo "   $(wc -l <"$work/reference.jsonl") events in ${run_seconds%.*} s"

echo "== disturbed: $KILLS kills, the server stopped and restarted twice"
port=$(free_port)
token=$("$W" users add walker --data-dir "$work/data" 2>/dev/null)
start_server "$work/data" "$port"
outbox="$work/outbox.sqlite"
for i in $(seq 1 "$KILLS"); do
    server_down=false
    if [ "$i" -eq $((KILLS / 3)) ] || [ "$i" -eq $((2 * KILLS / 3)) ]; then
        stop_server
        server_down=true
    fi
    # shellcheck disable=SC2046
    "$W" $(track_args "$port" "$token" "$outbox") --wait 2 >>"$work/track.log" 2>&1 &
    track_pid=$!
    sleep "$(python3 -c 'import random, sys; print(round(0.2 + random.uniform(0.5, 1.0) * int(sys.argv[2]) / int(sys.argv[3]) * float(sys.argv[1]), 2))' "$run_seconds" "$i" "$KILLS")"
    kill -9 "$track_pid" 2>/dev/null || true
    wait "$track_pid" 2>/dev/null || true
    track_pid=""
    if $server_down; then start_server "$work/data" "$port"; fi
done
echo "   resumed replays (fixes decided before each restart):" \
    "$(grep -o 'its first [0-9]* fixes' "$work/track.log" | awk '{print $3}' | tr '\n' ' ')"

echo "== the last run, to the end"
# shellcheck disable=SC2046
"$W" $(track_args "$port" "$token" "$outbox") --wait 60 2>"$work/last.log" || { cat "$work/last.log"; exit 1; }
"$W" sync --server "http://127.0.0.1:$port" --token "$token" --outbox "$outbox" --wait 60 2>"$work/sync.log" \
    || { cat "$work/sync.log"; echo "FAIL: the outbox did not empty"; exit 1; }
events_of "$port" "$token" "$outbox" >"$work/disturbed.jsonl"
stop_server

python3 - "$work/reference.jsonl" "$work/disturbed.jsonl" <<'PY'
import json, sys
def load(path):
    events = [json.loads(line) for line in open(path) if line.strip()]
    ids = [e["id"] for e in events]
    if len(ids) != len(set(ids)):
        sys.exit(f"FAIL: {path} holds an event id twice")
    keys = ("time", "duration", "type", "content", "streamIds", "clientData")
    return sorted(json.dumps({k: e.get(k) for k in keys}, sort_keys=True) for e in events)
reference, disturbed = load(sys.argv[1]), load(sys.argv[2])
if reference != disturbed:
    missing = [e for e in reference if e not in disturbed]
    extra = [e for e in disturbed if e not in reference]
    print(f"FAIL: {len(reference)} events undisturbed, {len(disturbed)} after the crashes")
    for e in missing[:5]: print("  missing:", e)
    for e in extra[:5]: print("  extra:  ", e)
    sys.exit(1)
if not reference:
    sys.exit("FAIL: the undisturbed run delivered no events")
print(f"OK: the server holds the same {len(reference)} events, each once, as an undisturbed run")
PY
