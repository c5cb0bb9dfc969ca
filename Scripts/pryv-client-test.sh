#!/usr/bin/env bash
# Pryv's own client against the server: Pryv's official JavaScript library (lib-js, `pryv` 3.x,
# unchanged, in ../shared/pryv-lib-js) drives a fresh `whereabouts serve` through every public
# call a server method backs (Scripts/pryv-client/conformance.test.js, modelled on the library's
# own tests: service info and the API endpoint built from it, access-info, batches in chunks,
# events JSON and multipart with their downloads and readToken links, 12,000 events in one
# time range, streamed gets with deletions, streams, accesses, revoke). The server passes when a
# Pryv client works with it as with Pryv.io; any failing test fails the script.
#
#   Scripts/pryv-client-test.sh                  # uses the debug build (built if missing)
#   WHEREABOUTS=/tmp/whereabouts PRYV_LIB_JS=/path/to/lib-js Scripts/pryv-client-test.sh
#
# Meant to run after `swift test`, as `.ci/run` runs the other server scripts: it uses the debug
# build the tests leave (`swift build --show-bin-path`, which does not build) and builds it with
# `swift build --product whereabouts` only when missing. WHEREABOUTS (or WHEREABOUTS_BIN) names
# another binary. Skips, with a note and exit 0, when the library or Node.js (20 or later, which
# the library needs) is missing: it needs no npm install, only node, python3 (free port, health
# check) and the library folder. KEEP_WORK=1 keeps the scratch folder (data, log). The test file
# runs by hand too, against any server (its header lists the variables it reads).
set -euo pipefail
cd "$(dirname "$0")/.."

# The library: an unchanged copy of lib-js's components/pryv, next to the project.
LIB="${PRYV_LIB_JS:-../shared/pryv-lib-js}"
if [ ! -f "$LIB/package.json" ] || [ ! -d "$LIB/src" ]; then
    echo "SKIP: Pryv's JavaScript library is not at $LIB (set PRYV_LIB_JS to its folder)"
    exit 0
fi
LIB="$(cd "$LIB" && pwd)"
if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: node is missing (Debian: apt-get install nodejs); Pryv's library runs on Node.js"
    exit 0
fi
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
    echo "SKIP: node $(node --version) is older than 20, which Pryv's library needs (fetch, FormData, fs.openAsBlob)"
    exit 0
fi

W="${WHEREABOUTS:-${WHEREABOUTS_BIN:-}}"
if [ -z "$W" ]; then
    W="$(swift build --show-bin-path)/whereabouts"
    if [ ! -x "$W" ]; then swift build --product whereabouts; fi
fi
[ -x "$W" ] || { echo "FAIL: no whereabouts binary at $W"; exit 1; }
W="$(cd "$(dirname "$W")" && pwd)/$(basename "$W")"

work=$(mktemp -d "${TMPDIR:-/tmp}/whereabouts-pryv-client.XXXXXX")
# free_port, stop_server (server_pid).
# shellcheck source=Scripts/server-functions.sh
source Scripts/server-functions.sh
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    if [ -n "${KEEP_WORK:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The user, with the personal token the CLI prints (its last word on stdout): there is no
# registration or login; the tests stand in for testData.prepare()'s login with it.
user=alice
token=$("$W" users add "$user" --data-dir "$work/data" 2>"$work/users-add.log" | awk 'NF { last = $NF } END { print last }') \
    || { cat "$work/users-add.log"; echo "FAIL: whereabouts users add $user"; exit 1; }
case "$token" in
    "" | *@* | */*) cat "$work/users-add.log"; echo "FAIL: no usable token from users add: \"$token\""; exit 1 ;;
esac

# A fresh server on a free port. No rate limit: the 12,000-event test writes and reads them
# twice in a few seconds, and a 429 there would say nothing about Pryv conformance.
port=$(free_port)
"$W" serve --data-dir "$work/data" --port "$port" --rate-limit 0 --log-level info >>"$work/serve.log" 2>&1 &
server_pid=$!
wait_for_health "$port" || { cat "$work/serve.log"; exit 1; }

echo "== Pryv lib-js $(node -p "require('$LIB/package.json').version") against whereabouts serve on port $port"
status=0
NODE_PATH="$(dirname "$LIB")" PRYV_LIB_MODULE="$(basename "$LIB")" \
    PRYV_SERVICE_INFO_URL="http://127.0.0.1:$port/service/info" PRYV_USERNAME="$user" PRYV_TOKEN="$token" \
    node --test --test-reporter=spec Scripts/pryv-client/conformance.test.js || status=$?
stop_server

if [ "$status" -ne 0 ]; then
    echo "== the server's log"
    cat "$work/serve.log"
    echo "FAIL: Pryv's JavaScript library does not work unchanged with the server (failing tests above)"
    exit 1
fi
echo "pryv client: ok"
