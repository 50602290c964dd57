#!/usr/bin/env bash
# Builds one fuzz target and runs it on its seed corpus for a number of seconds.
#
#   Fuzz/run.sh TARGET SECONDS [libFuzzer options...]
#   Fuzz/run.sh json 60
#   Fuzz/run.sh all 30            # every target, two at a time (what .ci/run does)
#
# TARGET is json, yaml, launch-json, rules, template or schema (with or without the fuzz- prefix).
# Seeds are cut from ../shared at run time (seeds.py) into Fuzz/.seeds/TARGET; what libFuzzer finds
# new goes to Fuzz/.corpus/TARGET and crashes to Fuzz/.crashes/ (all ignored by git). Exit status is
# libFuzzer's: non-zero when an input crashed, leaked, timed out or broke its target's oracle.
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$self")"

targets=(json yaml launch-json rules template schema)
if (($# < 2)); then
    echo "usage: Fuzz/run.sh TARGET|all SECONDS [libFuzzer options...]  (targets: ${targets[*]})" >&2
    exit 2
fi
target=${1#fuzz-}
seconds=$2
shift 2
if [[ $target == all ]]; then
    # Each target's output streams as it runs and is kept; a summary follows the last one, so the tail of
    # a CI log (often all that is kept) names every target that failed and what it found.
    logs=$(mktemp -d)
    trap 'rm -rf "$logs"' EXIT
    declare -A codes=()
    # Two targets at a time: each fuzzes on one core, so a pair takes the time of one on a two-core
    # machine (the second's build waits for the first's on SwiftPM's lock, then only links). Each pair's
    # output is printed whole once both have ended.
    for ((i = 0; i < ${#targets[@]}; i += 2)); do
        pair=("${targets[@]:i:2}")
        declare -A pids=()
        for t in "${pair[@]}"; do
            "$self" "$t" "$seconds" "$@" > "$logs/$t" 2>&1 &
            pids[$t]=$!
        done
        for t in "${pair[@]}"; do
            set +e
            wait "${pids[$t]}"
            code=$?
            set -e
            ((code == 0)) || codes[$t]=$code
            echo "== fuzz-$t exited with $code"
            cat "$logs/$t"
        done
        unset pids
    done
    failed=()
    for t in "${targets[@]}"; do if [[ -n ${codes[$t]:-} ]]; then failed+=("$t"); fi; done
    echo "== fuzz summary: ${#targets[@]} targets, ${seconds}s each: ${#failed[@]} failed ${failed[*]}"
    for t in "${failed[@]}"; do
        echo "-- fuzz-$t exited with ${codes[$t]}; what it printed of the finding:"
        # The oracle's message and input, the sanitizer's or libFuzzer's report, a build's errors, and
        # where the input was saved.
        grep -E -A12 '^=== .* oracle failed' "$logs/$t" | head -40 || true
        grep -E '^(==[0-9]+==|SUMMARY|ERROR|MS:|artifact_prefix|run\.sh:|.*error:)' "$logs/$t" | head -30 || true
        # The saved input itself, so a finding in a CI log can be replayed without the machine it ran on:
        # base64 -d > x, then Fuzz/.build-fuzz/release/fuzz-TARGET x (inputs past 16 KiB are named only).
        for f in $(sed -n 's/.*Test unit written to \(\S*\).*/\1/p' "$logs/$t" | head -3); do
            if [[ -f $f && $(stat -c %s "$f") -le 16384 ]]; then
                echo "input $f (base64): $(base64 -w0 "$f")"
            fi
        done
    done
    exit $((${#failed[@]} > 0))
fi
if [[ ! " ${targets[*]} " =~ " $target " ]]; then
    echo "run.sh: unknown target '$target' (targets: ${targets[*]})" >&2
    exit 2
fi

shared=${RULEKIT_SHARED:-$(cd .. && pwd)/../shared}
# libFuzzer's coverage and AddressSanitizer on every module the target links (RuleKit's too; swiftc refuses
# -sanitize=undefined on Linux, and Swift traps on overflow and bad ranges by itself), in
# release code with testable imports, so oracles reach internal fast paths.
# The lld linker: gold fails on the sanitizer runtimes' debug sections.
flags=(-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing
       -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --scratch-path .build-fuzz)
# A failed build must fail here: an older binary left in the scratch path would otherwise be fuzzed.
log=$(mktemp)
if ! swift build "${flags[@]}" --product "fuzz-$target" > "$log" 2>&1; then
    grep -v -E '^\[[0-9]+/[0-9]+\]' "$log" >&2
    rm -f "$log"
    echo "run.sh: fuzz-$target did not build" >&2
    exit 1
fi
grep -v -E '^\[[0-9]+/[0-9]+\]' "$log" || true
rm -f "$log"
bin=$(swift build "${flags[@]}" --show-bin-path)/fuzz-$target
[[ -x $bin ]] || { echo "run.sh: fuzz-$target did not build" >&2; exit 1; }

seeds=.seeds/$target
rm -rf "$seeds"
python3 seeds.py "$target" "$shared" .. "$seeds"
mkdir -p ".corpus/$target" .crashes

# The Swift runtime's backtracer and ASan's handler would both claim the crash signal: ASan's reports.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1:handle_abort=1}
echo "fuzz-$target: ${seconds}s on $(ls "$seeds" | wc -l) seeds and $(ls ".corpus/$target" | wc -l) corpus inputs"
exec "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 -max_len=65536 \
    -artifact_prefix=".crashes/$target-" -print_final_stats=1 "$@" ".corpus/$target" "$seeds"
