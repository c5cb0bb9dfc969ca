#!/usr/bin/env bash
# Says what a `swift test` run really ran, from its output (the file given as the argument):
# how many tests passed, failed and were skipped, and why each was skipped; whether the
# PostgreSQL half (the store suites against a real server), the browser half (the map page in
# headless Chromium) and the MQTT half (the client against a real Mosquitto) ran.
# swift-testing's own last line counts a skipped test as one that passed; this one's last line is "swift-testing: N passed, N failed, N skipped".
#
#     swift test 2>&1 | tee test.log; Scripts/test-summary.sh test.log
#
# Exits 1 when CI is set and any half was skipped, or when the run failed.
set -euo pipefail

log="${1:?usage: Scripts/test-summary.sh FILE (the output of swift test)}"
if [ ! -r "$log" ]; then
    echo "error: cannot read $log" >&2
    exit 2
fi

passed=$(grep '^✔ Test .* passed after' "$log" | grep -vc '^✔ Test run with' || true)
failed=$(grep '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with' || true)
skipped_lines=$(grep '^➜ Test .* skipped' "$log" || true)
skipped=0
if [ -n "$skipped_lines" ]; then skipped=$(printf '%s\n' "$skipped_lines" | wc -l); fi

# Each half prints a note when it runs (StoreTestSupport.swift, HeadlessChromium.swift, MosquittoBroker.swift), and its
# tests are skipped with a reason when it cannot.
postgres="not run (no test of it was selected)"
if grep -q 'note: the PostgreSQL half of the tests runs against' "$log"; then
    postgres="ran ($(grep -m1 -o 'runs against .*' "$log"))"
fi
if grep -q 'note: PostgreSQL store tests skipped' "$log" \
    || printf '%s\n' "$skipped_lines" | grep -q 'no PostgreSQL answers'; then
    postgres="SKIPPED (no PostgreSQL server answered; see the notes above)"
fi
browser="not run (no test of it was selected)"
if grep -q 'note: the browser half of the tests runs with' "$log"; then
    browser="ran ($(grep -m1 -o 'runs with .*' "$log"))"
fi
if printf '%s\n' "$skipped_lines" | grep -q 'chromium is not installed'; then
    browser="SKIPPED (chromium is not installed)"
fi
mqtt="not run (no test of it was selected)"
if grep -q 'note: the MQTT half of the tests runs against' "$log"; then
    mqtt="ran ($(grep -m1 -o 'MQTT half of the tests runs against .*' "$log" | sed 's/^MQTT half of the tests //'))"
fi
if printf '%s\n' "$skipped_lines" | grep -q 'mosquitto is not installed'; then
    mqtt="SKIPPED (mosquitto is not installed)"
fi

echo
echo "== What the tests ran =="
if [ "$skipped" -gt 0 ]; then
    printf '%s\n' "$skipped_lines" | sed -E 's/^➜ Test (.*) skipped: /skipped: \1 — /'
fi
echo "PostgreSQL half: $postgres"
echo "browser half:    $browser"
echo "MQTT half:       $mqtt"
# The runner's own count ("Test run with N tests in M suites passed|failed"): a line of a
# test's result can be lost from the output (seen under load: a burst of results at once, one
# line cut short), so the count above may fall short of it; the runner's verdict stands.
total=$(grep -a -o 'Test run with [0-9]* tests' "$log" | tail -1 | grep -o '[0-9][0-9]*' || true)
if [ -n "$total" ] && [ $((passed + failed + skipped)) -lt "$total" ]; then
    echo "note: $((total - passed - failed - skipped)) of the run's $total tests have no result line in the output (lost from it); the run's own verdict: $(grep -a -o 'Test run with [0-9]* tests in [0-9]* suites [a-z]*' "$log" | tail -1)"
fi
run_failed=0
if grep -a -q '^✘ Test run with' "$log"; then run_failed=1; fi
# Last, alone on its line: the count that a reader (or a CI runner) takes for the run's.
echo "swift-testing: $passed passed, $failed failed, $skipped skipped"

status=0
if [ "$failed" -gt 0 ] || [ "$run_failed" -eq 1 ]; then status=1; fi
if [ -n "${CI:-}" ] && { [ "${postgres#ran }" = "$postgres" ] || [ "${browser#ran }" = "$browser" ] || [ "${mqtt#ran }" = "$mqtt" ]; }; then
    echo "error: CI is set, and a half of the tests did not run" >&2
    status=1
fi
exit $status
