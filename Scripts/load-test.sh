#!/usr/bin/env bash
# Load test of `whereabouts serve` (SQLite, default durability unless DURABILITY=full) on loopback with wrk
# (Debian's `wrk` package). Prints wrk's figures for each phase and the server's memory.
#
#   Scripts/load-test.sh                   # 20 s phases, fill to 10 million events
#   DURATION=10 FILL=1000000 Scripts/load-test.sh
#   DURABILITY=full DURATION=10 FILL=0 Scripts/load-test.sh   # every commit synced to disk
#
# Phases:
#   1. single-event POST /events over keep-alive, 64 connections: the maximum rate;
#   2. the same at about half that rate (paced connections): the latency percentiles;
#   3. batch create (POST / with 1,000 events.create a request: a device's track, one position
#      a second from a random start in 2025);
#   4. fill the store to FILL events over a year for 20 users, then GET one user's day (a day
#      given a full track: a position every 30 s).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-20}
FILL=${FILL:-10000000}
PORT=${PORT:-18080}
USERS=20
PREFIX=load
# shellcheck source=load/server.sh
source Scripts/load/server.sh
# shellcheck source=load/day-track.sh
source Scripts/load/day-track.sh
rss() { echo "server memory (RSS): $(($(ps -o rss= -p "$SERVER_PID") / 1024)) MiB"; }
rss

echo "== 1. single-event POST /events, 64 connections, ${DURATION}s"
PHASE1=$(wrk -t2 -c64 -d"${DURATION}s" --latency -s Scripts/load/post-event.lua "$URL" -- "${TOKENS[@]}")
echo "$PHASE1"
RATE=$(echo "$PHASE1" | awk '/Requests\/sec/ { print int($2) }')
rss

# 32 connections, each waiting so that together they send about half the maximum rate
# (the wait ignores the response time, so the rate achieved is a little lower).
HALF=$((RATE / 2))
DELAY=$((32 * 1000 / (HALF > 0 ? HALF : 1)))
echo "== 2. single-event POST /events at about ${HALF}/s (32 connections, ${DELAY} ms apart), ${DURATION}s"
WHEREABOUTS_DELAY_MS=$DELAY wrk -t2 -c32 -d"${DURATION}s" --latency -s Scripts/load/post-event.lua "$URL" -- "${TOKENS[@]}"
rss

echo "== 3. batch create, 1,000 events a request, 8 connections, ${DURATION}s"
PHASE3=$(wrk -t2 -c8 -d"${DURATION}s" --latency -s Scripts/load/post-batch.lua "$URL" -- "${TOKENS[@]}")
echo "$PHASE3"
BATCHES=$(echo "$PHASE3" | awk '/Requests\/sec/ { print $2 }')
echo "events/s: $(awk -v r="$BATCHES" 'BEGIN { printf "%d", r * 1000 }')"
rss

STORED=$(sqlite3 "$DATA/whereabouts.sqlite" "SELECT count(*) FROM events" 2>/dev/null || echo 0)
if [ "$STORED" -lt "$FILL" ]; then
    SECONDS_NEEDED=$(awk -v need=$((FILL - STORED)) -v r="$BATCHES" 'BEGIN { printf "%d", need / (r * 1000) + 1 }')
    echo "== 4. filling from $STORED to about $FILL events (${SECONDS_NEEDED}s)"
    wrk -t2 -c8 -d"${SECONDS_NEEDED}s" -s Scripts/load/post-batch.lua "$URL" -- "${TOKENS[@]}" | grep -E "requests in|Requests/sec"
fi
echo "stored events: $(sqlite3 "$DATA/whereabouts.sqlite" "SELECT count(*) FROM events" 2>/dev/null || echo '?')"
DAY=1751328000  # 2025-07-01
# The fill spreads tracks at random, so a given day may hold none of load-1's: give that day a
# full track (a position every 30 s, 2,880 events) to read back.
post_day_track "$URL" "${TOKENS[0]}" "$DAY"
echo "events of user load-1 on 2025-07-01: $(curl -s -H "Authorization: ${TOKENS[0]}" "$URL/events?fromTime=$DAY&toTime=$((DAY + 86400))&limit=100000" | grep -o '"id"' | wc -l)"
echo "== GET one user's day, 1 connection, 10s"
WHEREABOUTS_DAY=$DAY wrk -t1 -c1 -d10s --latency -s Scripts/load/get-day.lua "$URL" -- "${TOKENS[0]}"
rss
