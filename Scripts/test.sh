#!/usr/bin/env bash
# The tests, as the README gives them: `swift test` with Swift Testing only (the package has no
# XCTest tests, so XCTest's empty run is not printed), then a summary of what ran: how many tests
# passed, failed and were skipped, why each was skipped, and whether the PostgreSQL and browser
# halves ran (Scripts/test-summary.sh). Arguments go to `swift test`:
#
#   Scripts/test.sh
#   Scripts/test.sh --filter TrackingCommandTests
#
# Exits non-zero when a test failed (or, with CI set, when a half of the tests did not run).
set -euo pipefail
cd "$(dirname "$0")/.."
log="${WHEREABOUTS_TEST_LOG:-$(mktemp "${TMPDIR:-/tmp}/whereabouts-test.XXXXXX")}"
[ -n "${WHEREABOUTS_TEST_LOG:-}" ] || trap 'rm -f "$log"' EXIT
status=0
swift test --disable-xctest "$@" 2>&1 | tee "$log" || status=$?
summary=0
Scripts/test-summary.sh "$log" || summary=$?
if [ "$status" -ne 0 ]; then exit "$status"; fi
exit "$summary"
