# Sourced by load-test.sh, soak-test.sh and attack-test.sh: builds `whereabouts` in release mode, adds USERS
# users named PREFIX-1… to a fresh data directory, starts `whereabouts serve` on PORT over it (per-token rate limit off) and
# waits until it answers. Sets BIN, DATA, TOKENS, SERVER_PID and URL; LOAD_PIDS (background
# load generators) are stopped, the server killed and the directory removed on exit.
#
#   USERS=20 PREFIX=load PORT=18080 source Scripts/load/server.sh
#
# DURABILITY=full serves with --durability full (every commit synced to disk).

command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }

swift build -c release --product whereabouts >&2
BIN="$(swift build -c release --show-bin-path)/whereabouts"
DATA=$(mktemp -d "/tmp/whereabouts-$PREFIX.XXXXXX")
SERVER_PID=""
LOAD_PIDS=()
cleanup() {
    for pid in "${LOAD_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    rm -rf "$DATA"
}
trap cleanup EXIT

TOKENS=()
for i in $(seq 1 "$USERS"); do
    TOKENS+=("$("$BIN" users add "$PREFIX-$i" --data-dir "$DATA")")
done

# The per-token rate limit is off: these scripts measure what the server can do, which one
# load-generating token would otherwise be held below (a day's answer of 2,880 events costs 289
# of the default 1,500 a second).
"$BIN" serve --data-dir "$DATA" --port "$PORT" --log-level warning --rate-limit 0 --durability "${DURABILITY:-normal}" &
SERVER_PID=$!
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
    sleep 0.1
done
URL="http://127.0.0.1:$PORT"
