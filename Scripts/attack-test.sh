#!/usr/bin/env bash
# Ingest under attack: a release build of `whereabouts serve` (SQLite, default durability) on
# loopback, measured with wrk (Debian's `wrk`) alone and then beside hostile clients. Not part of
# .ci/run. Prints each phase's figures.
#
#   Scripts/attack-test.sh                 # 20 s phases, 1,000 idle connections
#   DURATION=10 IDLE=500 Scripts/attack-test.sh
#
# Phases:
#   1. single-event POST /events, 64 connections: the unloaded maximum rate; then paced at about
#      half of it: the unloaded latency;
#   2. the same two beside IDLE connections that send nothing and one that sends a request head a
#      byte a second (Scripts/load/attacker.py reopens whatever the server closes);
#   3. the paced phase beside 10 connections sending unknown tokens as fast as they can
#      (Scripts/load/wrong-token.lua).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-20}
IDLE=${IDLE:-1000}
PORT=${PORT:-18081}
USERS=20
PREFIX=attack
ulimit -n 8192
# shellcheck source=load/server.sh
source Scripts/load/server.sh

rate() { awk '/Requests\/sec/ { print int($2) }'; }
p99() { awk '$1 == "99%" { print $2 }'; }
post() { wrk -t2 -c"$1" -d"${DURATION}s" --latency -s Scripts/load/post-event.lua "$URL" -- "${TOKENS[@]}"; }
paced() { WHEREABOUTS_DELAY_MS=$DELAY wrk -t2 -c32 -d"${DURATION}s" --latency -s Scripts/load/post-event.lua "$URL" -- "${TOKENS[@]}"; }

echo "== 1. unloaded"
MAX=$(post 64)
RATE=$(echo "$MAX" | rate)
DELAY=$((32 * 1000 / (RATE / 2 > 0 ? RATE / 2 : 1)))
PACED=$(paced)
echo "maximum: $RATE requests/s; paced at about $((RATE / 2))/s: $(echo "$PACED" | rate)/s, p99 $(echo "$PACED" | p99)"

echo "== 2. beside $IDLE idle connections and a slowloris client"
python3 Scripts/load/attacker.py 127.0.0.1 "$PORT" "$IDLE" $((2 * DURATION + 10)) &
LOAD_PIDS+=($!)
sleep 3
MAX_ATTACKED=$(post 64)
PACED_ATTACKED=$(paced)
wait "${LOAD_PIDS[-1]}" || true
RATE_ATTACKED=$(echo "$MAX_ATTACKED" | rate)
echo "maximum: $RATE_ATTACKED requests/s ($((100 * RATE_ATTACKED / RATE)) % of unloaded);" \
     "paced: $(echo "$PACED_ATTACKED" | rate)/s, p99 $(echo "$PACED_ATTACKED" | p99)"

echo "== 3. beside 10 connections guessing tokens"
wrk -t1 -c10 -d"$((DURATION + 4))s" -s Scripts/load/wrong-token.lua "$URL" > /tmp/whereabouts-wrong-tokens.txt &
LOAD_PIDS+=($!)
sleep 2
PACED_GUESSED=$(paced)
wait "${LOAD_PIDS[-1]}" || true
echo "paced: $(echo "$PACED_GUESSED" | rate)/s, p99 $(echo "$PACED_GUESSED" | p99);" \
     "the guessers sent $(rate < /tmp/whereabouts-wrong-tokens.txt) requests/s"
echo "server memory (RSS): $(($(ps -o rss= -p "$SERVER_PID") / 1024)) MiB"
