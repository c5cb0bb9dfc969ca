#!/usr/bin/env bash
# Soak test of `whereabouts serve` (SQLite, default durability): a steady mixed load on loopback
# for DURATION seconds (default 600) while the server's memory is sampled every SAMPLE seconds.
# Needs wrk (Debian's `wrk` package).
#
#   Scripts/soak-test.sh                  # 10 minutes
#   DURATION=120 SAMPLE=10 Scripts/soak-test.sh
#
# The load, all at once: single-event POST /events on 32 connections each waiting 10 ms
# between requests (about 3,000 events/s), one batch of 1,000 events a second, and one
# user's day read back ten times a second (a day the single-event load fills as it goes). At the
# end it prints the samples and how much the memory grew between the first and the second half
# of the run. Memory is reported as the process's heap and other anonymous memory (what a leak
# would grow) and its file-backed pages (the memory-mapped database, at most 256 MiB).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-600}
SAMPLE=${SAMPLE:-30}
PORT=${PORT:-18090}
USERS=20
PREFIX=soak
# shellcheck source=load/server.sh
source Scripts/load/server.sh
rss() { echo $(($(ps -o rss= -p "$SERVER_PID") / 1024)); }
# RssAnon (heap, stacks) or RssFile (mapped files) of the server, in MiB.
rss_part() { awk -v key="$1:" '$1 == key { print int($2 / 1024) }' "/proc/$SERVER_PID/status"; }

echo "soak: ${DURATION}s, memory every ${SAMPLE}s; server memory at start: $(rss) MiB"
WHEREABOUTS_DELAY_MS=10 wrk -t1 -c32 -d"${DURATION}s" -s Scripts/load/post-event.lua "$URL" -- "${TOKENS[@]}" \
    > "$DATA/single.out" 2>&1 &
LOAD_PIDS+=($!)
WHEREABOUTS_DELAY_MS=1000 wrk -t1 -c1 -d"${DURATION}s" -s Scripts/load/post-batch.lua "$URL" -- "${TOKENS[@]}" \
    > "$DATA/batch.out" 2>&1 &
LOAD_PIDS+=($!)
# post-event.lua stamps events one second apart from a random point in the 11.6 days after
# 2025-11-21, about 18 days of them in 10 minutes: the 12th day is filled during the run.
WHEREABOUTS_DAY=$((1763683200 + 12 * 86400)) WHEREABOUTS_DELAY_MS=100 wrk -t1 -c1 -d"${DURATION}s" --latency -s Scripts/load/get-day.lua "$URL" -- "${TOKENS[0]}" \
    > "$DATA/get.out" 2>&1 &
LOAD_PIDS+=($!)

SAMPLES=()
ELAPSED=0
while [ "$ELAPSED" -lt "$DURATION" ]; do
    sleep "$SAMPLE"
    ELAPSED=$((ELAPSED + SAMPLE))
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "the server died" >&2; exit 1; }
    SAMPLES+=("$(rss_part RssAnon)")
    echo "  ${ELAPSED}s: $(rss) MiB (anonymous $(rss_part RssAnon), database map $(rss_part RssFile))," \
         "$(sqlite3 "$DATA/whereabouts.sqlite" "SELECT count(*) FROM events" 2>/dev/null || echo '?') events stored"
done
wait "${LOAD_PIDS[@]}" 2>/dev/null || true
LOAD_PIDS=()

echo "== single-event POST /events";  grep -E "requests in|Requests/sec|Non-2xx" "$DATA/single.out" || true
echo "== batch create";                grep -E "requests in|Requests/sec|Non-2xx" "$DATA/batch.out" || true
echo "== GET one user's day";          grep -E "requests in|Latency |99%|Non-2xx" "$DATA/get.out" || true
echo "events of that day at the end: $(curl -s -H "Authorization: ${TOKENS[0]}" \
    "$URL/events?fromTime=$((1763683200 + 12 * 86400))&toTime=$((1763683200 + 13 * 86400))&limit=100000" | grep -o '"id"' | wc -l)"
HALF=$(( ${#SAMPLES[@]} / 2 ))
FIRST_MAX=0; SECOND_MAX=0
for i in "${!SAMPLES[@]}"; do
    if [ "$i" -lt "$HALF" ]; then
        [ "${SAMPLES[$i]}" -gt "$FIRST_MAX" ] && FIRST_MAX=${SAMPLES[$i]}
    else
        [ "${SAMPLES[$i]}" -gt "$SECOND_MAX" ] && SECOND_MAX=${SAMPLES[$i]}
    fi
done
echo "server anonymous memory: highest in the first half ${FIRST_MAX} MiB, in the second half ${SECOND_MAX} MiB" \
     "($(awk -v a="$FIRST_MAX" -v b="$SECOND_MAX" 'BEGIN { printf "%+.1f", (b - a) * 100 / (a > 0 ? a : 1) }') %)"
