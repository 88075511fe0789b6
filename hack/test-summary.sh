#!/usr/bin/env bash
# Filters `go test -v` output for CI logs and ends it with a count line.
# Usage: go test -v ... 2>&1 | hack/test-summary.sh TIER
# Keeps package results, top-level test results and everything a failing test printed; drops
# the "=== RUN" noise and passing subtests. When a test failed, the failures' own messages
# (t.Error/t.Fatal lines, not the diagnostics a failed test dumps with dump_test.go) are
# repeated at the end, where a log's tail shows them. Last line: "TIER: N passed, N failed,
# N skipped" (tests and subtests). Exits non-zero when a test failed or go test printed FAIL.
set -uo pipefail
tier="${1:-tests}"
awk -v tier="$tier" '
  /^=== (RUN|CONT|NAME) / { cur = $3; next }
  /^=== PAUSE/ { next }
  /^[ ]*--- PASS/ { pass++; if ($0 ~ /^--- /) print; next }
  /^[ ]*--- SKIP/ { skip++; print; next }
  /^[ ]*--- FAIL/ {
    fail++; print
    name = $3
    if (shown < 40) { tail[++ntail] = $0; for (i = 1; i <= nmsg[name] && shown < 40; i++) { tail[++ntail] = msg[name, i]; shown++ } }
    next
  }
  /^(FAIL|panic:)/ { failed_pkg = 1 }
  /^ +[A-Za-z0-9_]+\.go:[0-9]+: / && !/dump_test\.go:/ && nmsg[cur] < 40 { msg[cur, ++nmsg[cur]] = $0 }
  { print }
  END {
    if (fail > 0) {
      print "the failed tests and their messages (up to 40 lines):"
      for (i = 1; i <= ntail; i++) print tail[i]
    }
    printf "%s: %d passed, %d failed, %d skipped\n", tier, pass, fail, skip
    if (fail > 0 || failed_pkg) exit 1
  }'
