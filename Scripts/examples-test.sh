#!/usr/bin/env bash
# The runnable examples, as a newcomer runs them: SeedAPIsExample on the bundled example, then
# GatewayExample and SeedAPIsExample's Pryv part against a real server on a free port. Fails when
# an example fails or the server does not end up with the gateway's events.
#
#   Scripts/examples-test.sh          # uses .build/debug/whereabouts (built if missing)
#
# Needs python3 (for a free port and the health check). `.ci/run` runs it after the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

W="${WHEREABOUTS:-.build/debug/whereabouts}"
if [ ! -x "$W" ]; then swift build --product whereabouts; fi
swift build --product GatewayExample
swift build --product SeedAPIsExample
bin="$(swift build --show-bin-path)"
work=$(mktemp -d "${TMPDIR:-/tmp}/whereabouts-examples.XXXXXX")
# free_port, start_server DATA_DIR PORT, stop_server.
# shellcheck source=Scripts/server-functions.sh
source Scripts/server-functions.sh
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

echo "== SeedAPIsExample on the bundled example"
"$bin/SeedAPIsExample" | tee "$work/seeds.txt"
for part in "== Hekaerge" "== IBeaconLocation" "== NaviBeacon" "== Bluenet Localization" "enterRegion campus"; do
    grep -q -- "$part" "$work/seeds.txt" || { echo "SeedAPIsExample printed no \"$part\""; exit 1; }
done

port=$(free_port)
token=$("$W" users add alice --data-dir "$work/data" 2>/dev/null)
start_server "$work/data" "$port"

echo "== GatewayExample to the server"
"$bin/GatewayExample" --server "http://127.0.0.1:$port" --token "$token" --outbox "$work/outbox.sqlite" | tail -n 3
events=$("$W" events --server "http://127.0.0.1:$port" --token "$token" --from 0 --to 4000000000 --limit 100000 --json | wc -l)
echo "the server holds $events events"
[ "$events" -gt 0 ] || { echo "the gateway's events did not reach the server"; exit 1; }
echo "== GatewayExample again, with the same outbox: it resumes, nothing is sent twice"
"$bin/GatewayExample" --server "http://127.0.0.1:$port" --token "$token" --outbox "$work/outbox.sqlite" | tee "$work/again.txt" | tail -n 2
grep -q "was tracked to its end with the outbox" "$work/again.txt" || { echo "the second run did not say it had nothing new"; exit 1; }
again=$("$W" events --server "http://127.0.0.1:$port" --token "$token" --from 0 --to 4000000000 --limit 100000 --json | wc -l)
[ "$again" -eq "$events" ] || { echo "the second run changed the server's events: $events, then $again"; exit 1; }

echo "== SeedAPIsExample's Pryv client to the server"
"$bin/SeedAPIsExample" --server "http://127.0.0.1:$port" --user alice --token "$token" | tail -n 3 | tee "$work/pryv.txt"
grep -q "sent " "$work/pryv.txt" || { echo "Pryv's client sent nothing"; exit 1; }
echo "examples: ok"
