#!/usr/bin/env bash
# rulekit report against rulekit match on the same input, measured in the same run (issue 39's target:
# report within 2x of match): rules-1000.json, 100,000 events (events-10k.jsonl x10), --state from
# state.json. Both with the shipped Schemas/ (XDM checks on).
# usage: Benchmarks/Report/bench.sh   (from the repository root, after swift build -c release --product rulekit)
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${RULEKIT_SHARED:-../shared}
bin=$PWD/.build/release/rulekit
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$shared/bench/events-10k.jsonl"; done > "$work/events100k.jsonl"
rules=$shared/bench/rules-1000.json
# The benchmark's rules are linted first: a rule set with errors would measure something else.
"$bin" lint "$rules" > "$work/lint.txt" || { tail -1 "$work/lint.txt"; echo "the benchmark's rules have lint errors" >&2; exit 1; }
echo "lint: $(tail -1 "$work/lint.txt")"
echo "== rulekit report (A) vs rulekit match (B), rules-1000, 100k events"
python3 Benchmarks/abtime.py -n 7 \
    --a "$bin report --rules $rules --events $work/events100k.jsonl --out $work/report.html" \
    --b "$bin match --rules $rules $work/events100k.jsonl"
