#!/usr/bin/env bash
# Filters `go test -v` output for CI logs and ends it with a count line.
# Usage: go test -v ... 2>&1 | hack/test-summary.sh TIER
# Keeps package results, top-level test results and everything a failing test printed; drops
# the "=== RUN" noise and passing subtests. When a test failed, the last 40 lines it logged
# (t.Log, t.Error and t.Fatal lines with their continuation lines; not the diagnostics a failed
# test dumps with dump_test.go) are repeated at the end, where a log's tail shows them. Last
# line: "TIER: N passed, N failed, N skipped in S s" (tests and subtests; the seconds from the
# filter's start, which is the tier's wall time). Exits non-zero when a test failed or go test
# printed FAIL.
set -uo pipefail
tier="${1:-tests}"
start=$(date +%s)
awk -v tier="$tier" -v start="$start" '
  /^=== RUN / { cur = $3; nmsg[cur] = 0; cont = 0; next }
  /^=== (CONT|NAME) / { cur = $3; cont = 0; next }
  /^=== PAUSE/ { next }
  /^[ ]*--- PASS/ { cont = 0; pass++; if ($0 ~ /^--- /) print; next }
  /^[ ]*--- SKIP/ { cont = 0; skip++; print; next }
  /^[ ]*--- FAIL/ {
    cont = 0; fail++; print
    name = $3
    tail[++ntail] = $0
    for (i = (nmsg[name] > 40 ? nmsg[name] - 39 : 1); i <= nmsg[name]; i++) tail[++ntail] = msg[name, i]
    next
  }
  /^(FAIL|panic:)/ { cont = 0; failed_pkg = 1 }
  /^ +[A-Za-z0-9_]+\.go:[0-9]+: / {
    cont = 0
    if ($0 !~ /dump_test\.go:/) { msg[cur, ++nmsg[cur]] = $0; cont = 1 }
    print; next
  }
  cont && /^        / { msg[cur, ++nmsg[cur]] = $0; print; next }
  { cont = 0; print }
  END {
    if (fail > 0) {
      print "the failed tests and the last lines they logged:"
      for (i = 1; i <= ntail; i++) print tail[i]
    }
    "date +%s" | getline now
    printf "%s: %d passed, %d failed, %d skipped in %d s\n", tier, pass, fail, skip, now - start
    if (fail > 0 || failed_pkg) exit 1
  }'
