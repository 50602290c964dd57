#!/usr/bin/env bash
# The test suite built under one sanitizer and run as two processes at once.
#
#   .ci/sanitized.sh address|thread SCRATCH_PATH
#
# Why two processes: under a sanitizer the CLI tests spend most of their time waiting on the instrumented
# `rulekit` they start, and a test that waits holds one of the cooperative pool's threads (two on a
# two-core machine), so one process runs the suite little faster than one test at a time (ThreadSanitizer:
# 475 s for one process, 330 s for the two halves at once, with 0.6 of a core busy on average before). The
# halves are the CLI tests (`RulekitCLITests`, the only ones that use the PostgreSQL of .ci/run) and
# everything else; together they are the whole suite. Each half's output is kept and printed whole when
# both have ended; the exit status is non-zero when either half failed (a sanitizer report fails its
# process).
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizer=${1:?usage: .ci/sanitized.sh address|thread SCRATCH_PATH}
scratch=${2:?usage: .ci/sanitized.sh address|thread SCRATCH_PATH}

swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
bin=$(swift build --show-bin-path --sanitize="$sanitizer" --scratch-path "$scratch")
bundles=("$bin"/*PackageTests.xctest)
[[ ${#bundles[@]} -eq 1 && -x ${bundles[0]} ]] || { echo "sanitized: no test bundle in $bin" >&2; exit 1; }
bundle=${bundles[0]}

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# XCTest cases, if any are ever added (`swift test` runs them before the swift-testing ones).
"$bundle" > "$logs/xctest" 2>&1 &
xctest=$!
"$bundle" --testing-library swift-testing --filter RulekitCLITests > "$logs/cli" 2>&1 &
cli=$!
"$bundle" --testing-library swift-testing --skip RulekitCLITests > "$logs/rest" 2>&1 &
rest=$!
declare -A codes=()
for half in xctest:$xctest cli:$cli rest:$rest; do
    set +e
    wait "${half#*:}"
    codes[${half%%:*}]=$?
    set -e
done
status=0
for name in xctest cli rest; do
    echo "== $sanitizer sanitizer, $name: what it printed"
    cat "$logs/$name"
done
# Last, so the tail of a CI log says which half failed.
for name in xctest cli rest; do
    echo "== $sanitizer sanitizer, $name: exit ${codes[$name]}"
    ((codes[$name] == 0)) || status=1
done
exit $status
