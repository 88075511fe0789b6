#!/usr/bin/env bash
# Filters `go test -v` output for CI logs and ends it with a count line.
# Usage: go test -v ... 2>&1 | hack/test-summary.sh TIER
# Keeps package results, top-level test results and everything a failing test printed; drops
# the "=== RUN" noise and passing subtests. Last line: "TIER: N passed, N failed, N skipped"
# (tests and subtests). Exits non-zero when a test failed or go test printed FAIL.
set -uo pipefail
tier="${1:-tests}"
awk -v tier="$tier" '
  /^=== (RUN|PAUSE|CONT|NAME)/ { next }
  /^[ ]*--- PASS/ { pass++; if ($0 ~ /^--- /) print; next }
  /^[ ]*--- SKIP/ { skip++; print; next }
  /^[ ]*--- FAIL/ { fail++; print; next }
  /^(FAIL|panic:)/ { failed_pkg = 1 }
  { print }
  END {
    printf "%s: %d passed, %d failed, %d skipped\n", tier, pass, fail, skip
    if (fail > 0 || failed_pkg) exit 1
  }'
