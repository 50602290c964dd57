# Sourced by the serve benchmarks (auth.sh, tls.sh): the release binary, a scratch folder removed at exit,
# rules-1000.json linted first (a rule set with errors would measure something else), and the workload as
# $work/lines.txt: ../shared/bench/events-10k.jsonl cut into batches of 100 events, one body per line (its
# line breaks written as 0x1E, which Benchmarks/Serve/post-batches.lua puts back).
shared=${RULEKIT_SHARED:-../shared}
bin=$PWD/.build/release/rulekit
seconds=${SECONDS_PER_FIGURE:-6}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
rules=$shared/bench/rules-1000.json
"$bin" lint "$rules" > "$work/lint.txt" || { tail -1 "$work/lint.txt"; echo "bench: the rules do not lint" >&2; exit 1; }
python3 - "$shared/bench/events-10k.jsonl" "$work" <<'PY'
import sys
lines = [l.strip() for l in open(sys.argv[1]) if l.strip()]
with open(f"{sys.argv[2]}/lines.txt", "w") as n:
    for i in range(0, len(lines), 100):
        n.write("\x1e".join(lines[i:i + 100]) + "\n")
PY
