#!/usr/bin/env bash
# Ingest at the machine's limit, in one run: every server pinned to one core (SERVER_CORE) and
# wrk to another (LOAD_CORE), release builds, loopback. Measures
#   - fsync's own cost on the data directory's file system (the limit of durability one write at
#     a time: one sync per acknowledgement);
#   - the ceiling: a bare Hummingbird server (Benchmarks/Servers/HummingbirdCeiling) whose POST /events
#     reads the body and answers a constant, with the same requests as below;
#   - `whereabouts serve`, SQLite, in both durability modes: single-event POST /events and
#     OwnTracks' POST /pub at their maximum (64 connections) and at about half that rate (32
#     paced connections: the latency percentiles), the syncs counted during the maximum;
#   - the batch call (1,000 events a request, 8 connections) and, on a store filled to FILL
#     events, one user's day read back (1 connection); the batch call again with the server and
#     wrk sharing every core;
#   - the client side: the tracking outbox's durable acceptance (64 callers, and one) and its
#     delivery to a local server, and the drain of a large backlog (package-benchmark's Tracking
#     suite; CLIENT=0 leaves it out);
# and prints one Markdown table — each figure with its p50/p99, the server's CPU time a request
# (user + system, from /proc) and its share of the ceiling —
# the conditions it was measured under, and the client side's table.
#
# The ceiling and the four single-event measurements run round by round in turn (the ceiling,
# then `/events` and `/pub` against the normal server, then against the full one, then the next
# round), each server up on a port of its own for the whole time, so that a virtual machine whose
# speed drifts from one minute to the next slows every figure of a round alike rather than the
# one measured while it was slow.
#
#   Scripts/ingest-benchmark.sh                       # medians of 3 rounds of 10 s, a day out of 1 M events
#   DURATION=20 FILL=10000000 Scripts/ingest-benchmark.sh
#   WHEREABOUTS=/path/to/other/whereabouts Scripts/ingest-benchmark.sh   # another build, to compare
#
# Needs wrk, taskset and python3 (Debian's wrk, util-linux, python3); perf (linux-perf) to count
# the syncs, which are shown as "–" without it.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=load/day-track.sh
source Scripts/load/day-track.sh

DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
FILL=${FILL:-1000000}
SERVER_CORE=${SERVER_CORE:-0}
LOAD_CORE=${LOAD_CORE:-1}
PORT=${PORT:-18080}
USERS=20
for tool in wrk taskset python3 curl; do
    command -v "$tool" >/dev/null || { echo "error: $tool is needed (apt-get install wrk util-linux python3 curl)" >&2; exit 1; }
done

echo "building (release)…" >&2
if [ -n "${WHEREABOUTS:-}" ]; then
    BIN="$WHEREABOUTS"   # another build to compare, such as an earlier commit's
else
    swift build -c release --product whereabouts >&2
    BIN="$(swift build -c release --show-bin-path)/whereabouts"
fi
swift build -c release --package-path Benchmarks --product HummingbirdCeiling >&2
CEILING="$(swift build -c release --package-path Benchmarks --show-bin-path)/HummingbirdCeiling"
URL="http://127.0.0.1:$PORT"

work=$(mktemp -d "${TMPDIR:-/tmp}/whereabouts-ingest.XXXXXX")
SERVER_PID=""
stop_server() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}
trap 'stop_server; rm -rf "$work"' EXIT

wait_for_health() {
    for _ in $(seq 1 200); do
        curl -sf "$URL/health" >/dev/null && return 0
        sleep 0.05
    done
    echo "error: the server on $URL did not answer /health" >&2
    exit 1
}

# The CPU time (user + system) the server process has used so far, in clock ticks.
server_ticks() {
    awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat" 2>/dev/null || echo 0
}

# One wrk round pinned to the load core; prints "rate p50 p99 rate_exact requests cpu_us": requests/s
# (whole, then to the thousandth), the latency percentiles in milliseconds, the requests made and
# the server process's CPU time a request in µs. Requests the server refused stop the script.
load_round() {
    local connections=$1 script=$2 before rate p50 p99 exact requests cpu
    shift 2
    before=$(server_ticks)
    read -r rate p50 p99 exact requests < <(taskset -c "$LOAD_CORE" wrk -t1 -c"$connections" -d"${DURATION}s" --latency -s "$script" "$URL" -- "$@" 2>"$work/wrk.err" \
        | tee -a "$work/wrk.log" | awk '
            function ms(text) {
                if (text ~ /us$/) return substr(text, 1, length(text) - 2) / 1000
                if (text ~ /ms$/) return substr(text, 1, length(text) - 2) + 0
                if (text ~ /s$/) return substr(text, 1, length(text) - 1) * 1000
                return text + 0
            }
            /Requests\/sec/ { rate = $2 }
            / requests in / { requests = $1 }
            $1 == "50%" { p50 = ms($2) }
            $1 == "99%" { p99 = ms($2) }
            END { printf "%d %.2f %.2f %.3f %d\n", rate, p50, p99, rate, requests }')
    cpu=$(awk -v ticks=$(($(server_ticks) - before)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
        'BEGIN { if (n > 0) printf "%.0f", ticks * 1000000 / hz / n; else printf "–" }')
    if grep -q "unexpected status" "$work/wrk.err"; then
        echo "error: the server refused requests during $script:" >&2
        sort "$work/wrk.err" | uniq -c | sort -rn | head -n 3 >&2
        exit 1
    fi
    echo "$rate $p50 $p99 $exact $requests $cpu"
}

# ROUNDS rounds of wrk (see load_round); sets, from the round of median rate, RATE (whole;
# RATE_EXACT to the thousandth), P50 and P99 (milliseconds) and CPU_US (the server's CPU time a
# request, µs), and LOW and HIGH: the lowest and highest rate of the rounds (to the thousandth).
# Call it in this shell, not in a subshell, so that requests the server refused stop the script.
load() {
    local rounds=() round
    for _ in $(seq 1 "$ROUNDS"); do
        round=$(load_round "$@") || exit 1
        rounds+=("$round")
    done
    summarize "${rounds[@]}"
}

# The figures of `load` from rounds already made: each argument one line of load_round's.
summarize() {
    local sorted
    echo "  rounds: $(printf '%s\n' "$@" | awk '{ printf "%s%d", (NR > 1 ? ", " : ""), $1 }') requests/s" >&2
    sorted=$(printf '%s\n' "$@" | sort -n -k4)
    read -r RATE P50 P99 RATE_EXACT _ CPU_US < <(awk -v n="$#" 'NR == int((n + 1) / 2)' <<<"$sorted")
    read -r LOW HIGH < <(awk 'NR == 1 { low = $4 } { high = $4 } END { print low, high }' <<<"$sorted")
}

# At about half of RATE: 32 connections, each waiting so that together they send RATE/2.
half_load() {
    local rate=$1 script=$2
    shift 2
    local half=$((rate / 2 > 0 ? rate / 2 : 1))
    WHEREABOUTS_DELAY_MS=$((32 * 1000 / half)) ROUNDS=1 load 32 "$script" "$@"
}

# The syncs (fsync and fdatasync) made while `load` runs: start_sync_count before
# it (perf in the background, in PERF_PID; for $1 seconds, all the rounds' by default),
# count_syncs after it; "–" without perf.
PERF_PID=""
start_sync_count() {
    PERF_PID=""
    if command -v perf >/dev/null && perf stat -e 'syscalls:sys_enter_fdatasync' -- true >/dev/null 2>&1; then
        rm -f "$work/perf.txt"
        # System-wide: the store's writer threads come and go (libdispatch), and `perf -p` follows
        # only the threads that exist when it starts; nothing else here syncs during a round.
        perf stat -a -x, -e 'syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync' -o "$work/perf.txt" \
            -- sleep "${1:-$((DURATION * ROUNDS))}" &
        PERF_PID=$!
    fi
}
# Sets SYNCS (not in a subshell: only this shell can wait for perf).
count_syncs() {
    SYNCS="–"
    [ -n "$PERF_PID" ] || return 0
    wait "$PERF_PID" 2>/dev/null || true
    SYNCS=$(awk -F, '/syscalls/ { total += $1 } END { print total + 0 }' "$work/perf.txt")
}

ROWS=()
row() { ROWS+=("$1"); }
# The rounds' range of rates as "low–high", each times $1 (1 by default).
spread() { awk -v low="$LOW" -v high="$HIGH" -v scale="${1:-1}" 'BEGIN { printf "%d–%d", low * scale, high * scale }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f %%", 100 * a / b; else printf "–" }'; }

# --- fsync's own cost -------------------------------------------------------------------------
SYNC_US=$(python3 - "$work" <<'PY'
import os, statistics, sys, time
path = os.path.join(sys.argv[1], "sync-probe")
fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
block = b"x" * 4096
times = []
for i in range(300):
    os.pwrite(fd, block, (i % 64) * 4096)
    start = time.perf_counter()
    os.fdatasync(fd)
    times.append((time.perf_counter() - start) * 1e6)
os.close(fd)
print(round(statistics.median(times)))
PY
)
SYNC_RATE=$((1000000 / (SYNC_US > 0 ? SYNC_US : 1)))
echo "fdatasync of a 4 KiB write: median ${SYNC_US} µs, so at most ${SYNC_RATE} syncs/s one at a time" >&2

# --- the ceiling and the server, in both durability modes ----------------------------------------
# Three servers on the same core, each on a port of its own (idle while another is measured).
start_ceiling() {
    PORT=$1
    URL="http://127.0.0.1:$PORT"
    taskset -c "$SERVER_CORE" "$CEILING" "$PORT" >"$work/ceiling.log" 2>&1 &
    SERVER_PID=$!
    wait_for_health
}

# `whereabouts serve` with durability $1 on port $3, pinned to cores $2, on a fresh store of
# USERS users; sets SERVER_PID, URL, TOKENS and AUTHORIZATIONS (the users' Basic credentials).
serve() {
    local durability=$1 cores=${2:-$SERVER_CORE}
    PORT=${3:-$PORT}
    URL="http://127.0.0.1:$PORT"
    DATA="$work/data-$durability-${cores//,/-}"
    TOKENS=()
    AUTHORIZATIONS=()
    for i in $(seq 1 "$USERS"); do
        local token
        token=$("$BIN" users add "load-$i" --data-dir "$DATA" 2>/dev/null)
        TOKENS+=("$token")
        AUTHORIZATIONS+=("Basic $(printf '%s' "load-$i:$token" | base64 -w0)")
    done
    taskset -c "$cores" "$BIN" serve --data-dir "$DATA" --port "$PORT" --log-level warning --rate-limit 0 \
        --durability "$durability" >"$work/serve-$durability.log" 2>&1 &
    SERVER_PID=$!
    wait_for_health
}

BASE_PORT=$PORT
start_ceiling "$BASE_PORT"
CEILING_PID=$SERVER_PID
serve normal "$SERVER_CORE" $((BASE_PORT + 1))
NORMAL_PID=$SERVER_PID NORMAL_TOKENS=("${TOKENS[@]}") NORMAL_AUTHORIZATIONS=("${AUTHORIZATIONS[@]}")
serve full "$SERVER_CORE" $((BASE_PORT + 2))
FULL_PID=$SERVER_PID FULL_TOKENS=("${TOKENS[@]}") FULL_AUTHORIZATIONS=("${AUTHORIZATIONS[@]}")
SERVER_PID=""
stop_all() {
    for pid in "${CEILING_PID:-}" "${NORMAL_PID:-}" "${FULL_PID:-}" "$SERVER_PID"; do
        [ -n "$pid" ] || continue
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    CEILING_PID="" NORMAL_PID="" FULL_PID="" SERVER_PID=""
}
trap 'stop_all; rm -rf "$work"' EXIT

# The single-event measurements, in the order of each round: a key, its label, its server, its
# wrk script and the arguments (tokens or Basic credentials of that server's users).
MEASUREMENTS=(ceiling events-normal pub-normal events-full pub-full)
declare -A LABEL=(
    [ceiling]="bare Hummingbird route (the ceiling): POST, body read, constant answer"
    [events-normal]="\`POST /events\`, one event, durability normal"
    [pub-normal]="\`POST /pub\` (OwnTracks), durability normal"
    [events-full]="\`POST /events\`, one event, durability full"
    [pub-full]="\`POST /pub\` (OwnTracks), durability full")
# Points SERVER_PID, URL, SCRIPT and ARGS at measurement $1.
target() {
    case $1 in
        ceiling) SERVER_PID=$CEILING_PID PORT=$BASE_PORT SCRIPT=Scripts/load/post-event.lua ARGS=(none) ;;
        events-normal) SERVER_PID=$NORMAL_PID PORT=$((BASE_PORT + 1)) SCRIPT=Scripts/load/post-event.lua ARGS=("${NORMAL_TOKENS[@]}") ;;
        pub-normal) SERVER_PID=$NORMAL_PID PORT=$((BASE_PORT + 1)) SCRIPT=Scripts/load/post-pub.lua ARGS=("${NORMAL_AUTHORIZATIONS[@]}") ;;
        events-full) SERVER_PID=$FULL_PID PORT=$((BASE_PORT + 2)) SCRIPT=Scripts/load/post-event.lua ARGS=("${FULL_TOKENS[@]}") ;;
        pub-full) SERVER_PID=$FULL_PID PORT=$((BASE_PORT + 2)) SCRIPT=Scripts/load/post-pub.lua ARGS=("${FULL_AUTHORIZATIONS[@]}") ;;
    esac
    URL="http://127.0.0.1:$PORT"
}

declare -A ROUND_LINES SYNC_TOTAL
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round of $ROUNDS…" >&2
    for key in "${MEASUREMENTS[@]}"; do
        target "$key"
        start_sync_count "$DURATION"
        line=$(load_round 64 "$SCRIPT" "${ARGS[@]}") || exit 1
        count_syncs
        ROUND_LINES[$key]+="$line"$'\n'
        if [ "$SYNCS" = "–" ]; then SYNC_TOTAL[$key]="–"; else SYNC_TOTAL[$key]=$((${SYNC_TOTAL[$key]:-0} + SYNCS)); fi
    done
done

# Each measurement's median round, its latencies at about half that rate, its row.
for key in "${MEASUREMENTS[@]}"; do
    target "$key"
    mapfile -t lines < <(printf '%s' "${ROUND_LINES[$key]}")
    summarize "${lines[@]}"
    rate=$RATE p50=$P50 p99=$P99 cpu=$CPU_US range=$(spread)
    if [ "$key" = ceiling ]; then
        CEILING_RATE=$rate
        echo "ceiling: $CEILING_RATE requests/s, $cpu µs of CPU a request" >&2
        row "| ${LABEL[$key]} | $rate/s ($range) | $p50 ms | $p99 ms | $cpu µs | 100 % |"
        continue
    fi
    half_load "$rate" "$SCRIPT" "${ARGS[@]}"
    echo "${LABEL[$key]}: $rate/s, ${SYNC_TOTAL[$key]} syncs" >&2
    row "| ${LABEL[$key]} (${SYNC_TOTAL[$key]} syncs in $((DURATION * ROUNDS)) s) | $rate/s ($range) | $p50 ms | $p99 ms (at half: $P50 / $P99 ms) | $cpu µs | $(ratio "$rate" "$CEILING_RATE") |"
done

# The batch call and the day, against the normal server.
target events-normal
TOKENS=("${NORMAL_TOKENS[@]}")
load 8 Scripts/load/post-batch.lua "${TOKENS[@]}"
BATCHES=$RATE
BATCH_EVENTS=$(awk -v r="$RATE_EXACT" 'BEGIN { printf "%d", r * 1000 }')
echo "batch: $BATCH_EVENTS events/s" >&2
row "| batch call, 1,000 \`events.create\` a request, 8 connections | $BATCH_EVENTS events/s ($(spread 1000)) | $P50 ms | $P99 ms | $CPU_US µs a batch | – |"

# Fill the store (batches of a year of random tracks), give one user a full day, read it.
STORED=$(curl -sf "$URL/metrics" | awk '/^whereabouts_events_stored_total/ { print int($2) }')
if [ "${STORED:-0}" -lt "$FILL" ]; then
    seconds=$(awk -v need=$((FILL - ${STORED:-0})) -v r="$BATCHES" 'BEGIN { printf "%d", need / ((r > 0 ? r : 1) * 1000) + 1 }')
    echo "filling the store to about $FILL events (${seconds} s)…" >&2
    taskset -c "$LOAD_CORE" wrk -t1 -c8 -d"${seconds}s" -s Scripts/load/post-batch.lua "$URL" -- "${TOKENS[@]}" >/dev/null
fi
STORED=$(curl -sf "$URL/metrics" | awk '/^whereabouts_events_stored_total/ { print int($2) }')
DAY=1751328000  # 2025-07-01: a position every 30 s, 2,880 events
post_day_track "$URL" "${TOKENS[0]}" "$DAY"
WHEREABOUTS_DAY=$DAY load 1 Scripts/load/get-day.lua "${TOKENS[0]}"
row "| \`GET /events\`, one user's day (2,880+ events) out of ${STORED:-?} stored, 1 connection | $RATE/s ($(spread)) | $P50 ms | $P99 ms | $CPU_US µs | – |"
stop_all
PORT=$BASE_PORT
URL="http://127.0.0.1:$PORT"

# --- the batch call on every core ---------------------------------------------------------------
# The server and wrk share all the cores (a fresh store, normal durability).
ALL_CORES=$(seq -s, 0 $(($(nproc) - 1)))
serve normal "$ALL_CORES"
LOAD_CORE=$ALL_CORES load 8 Scripts/load/post-batch.lua "${TOKENS[@]}"
BATCH_EVENTS=$(awk -v r="$RATE_EXACT" 'BEGIN { printf "%d", r * 1000 }')
echo "batch on cores $ALL_CORES: $BATCH_EVENTS events/s" >&2
row "| batch call as above, server and wrk sharing all $(nproc) cores | $BATCH_EVENTS events/s ($(spread 1000)) | $P50 ms | $P99 ms | $CPU_US µs a batch | – |"
stop_server

# --- the client side --------------------------------------------------------------------------
# The tracking client's outbox and sender, from package-benchmark's Tracking suite (both cores,
# not pinned: the outbox's writers and the local server it delivers to run in one process).
CLIENT_ROWS=()
if [ "${CLIENT:-1}" = 1 ]; then
    echo "the client side (package-benchmark, Tracking.*)…" >&2
    (cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --target WhereaboutsBenchmarks \
        --filter "Tracking.*" --no-progress) > "$work/tracking.txt" 2>&1 \
        || { tail -n 20 "$work/tracking.txt" >&2; exit 1; }
    # Each benchmark's median: throughput (scaled by its unit, K or M) or, for the drain, its time
    # and peak resident memory.
    mapfile -t CLIENT_ROWS < <(awk -F'│' '
        function scaled(value, unit) { return unit == "(M)" ? value * 1000000 : unit == "(K)" ? value * 1000 : value }
        /^Tracking: / { name = substr($0, 11); next }
        name != "" && $2 ~ /Throughput/ { match($2, /\((K|M|#)\)/); unit = substr($2, RSTART, RLENGTH)
            printf "| %s | %d/s (p90 %d/s) |\n", name, scaled($5 + 0, unit), scaled($7 + 0, unit) }
        name != "" && $2 ~ /Time \(wall clock\) \(ms\)/ && name ~ /drain/ { printf "| %s: time | %d ms |\n", name, $5 + 0 }
        name != "" && $2 ~ /Memory \(resident peak\)/ { match($2, /\((K|M|G)\)/); printf "| %s: peak resident memory | %d %sB |\n", name, $5 + 0, substr($2, RSTART + 1, 1) }
    ' "$work/tracking.txt")
fi

# --- the table and its conditions -------------------------------------------------------------
CPU=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
FS=$(df -T "$work" | awk 'NR == 2 { print $2 }')
echo
echo "| measurement | rate | p50 | p99 | server CPU a request | of the ceiling |"
echo "|---|---:|---:|---:|---:|---:|"
for line in "${ROWS[@]}"; do echo "$line"; done
echo
echo "Conditions: $(date -u +%Y-%m-%d), ${WHEREABOUTS:-commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')}, release builds;"
echo "$(nproc) cores ($CPU), Linux $(uname -r); servers pinned to core $SERVER_CORE, wrk (1 thread) to core $LOAD_CORE;"
echo "64 connections at the maximum, 32 paced at about half; each maximum the median of $ROUNDS rounds of ${DURATION} s (their range in brackets; latencies and CPU from that round), the ceiling's and the single events' rounds taken in turn; $USERS users; data on $FS;"
echo "fdatasync of a 4 KiB write: median ${SYNC_US} µs (at most ${SYNC_RATE} acknowledgements/s one sync at a time)."
echo "Command: DURATION=$DURATION ROUNDS=$ROUNDS FILL=$FILL Scripts/ingest-benchmark.sh"
if [ "${#CLIENT_ROWS[@]}" -gt 0 ]; then
    echo
    echo "The client side (the tracking outbox and its sender; medians, both cores):"
    echo
    echo "| measurement | result |"
    echo "|---|---|"
    for line in "${CLIENT_ROWS[@]}"; do echo "$line"; done
fi
