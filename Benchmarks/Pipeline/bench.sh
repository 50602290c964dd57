#!/usr/bin/env bash
# The end-to-end figures of the document layer (issue "one zero-copy document layer"), each against its
# anchor in the same call of Benchmarks/abtime.py (A B A B, medians of wall time and of the ratios):
#   rulekit run, 100,000 events (events-10k.jsonl x10, --state from state.json), rules-1000 and rules-10,
#     against an orjson identity pass (loads + dumps per line) of the same file;
#   rulekit match, rules-1000, same events (events per second);
#   rulekit xdm validate, xdm-events-10k.jsonl payloads, against fastjsonschema (bench_xdm_validate.py);
#   rulekit parse --quiet and parse+load+plan of rules-10k.yaml, against libyaml's bare event pull in C;
#   peak RSS of rulekit run over 1,000,000 events through a pipe.
# usage: Benchmarks/Pipeline/bench.sh   (from the repository root, after
#        swift build -c release --product rulekit; needs python3 with orjson, and fastjsonschema for the
#        validation anchor: pip install orjson fastjsonschema)
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${RULEKIT_SHARED:-../shared}
bin=$PWD/.build/release/rulekit
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$shared/bench/events-10k.jsonl" "$shared/bench/state.json" "$shared/bench/xdm-events-10k.jsonl" "$work" <<'PY'
import json, sys
events, state, xdm, work = sys.argv[1:5]
lines = [l.strip() for l in open(events) if l.strip()]
with open(f"{work}/events100k.jsonl", "w") as out:
    for _ in range(10):
        out.write("\n".join(lines) + "\n")
args = []
for k, v in json.load(open(state)).items():
    json.dump(v, open(f"{work}/state-{k}.json", "w"))
    args.append(f"--state {k}={work}/state-{k}.json")
open(f"{work}/state-args", "w").write(" ".join(args))
with open(f"{work}/xdm10k.jsonl", "w") as out:
    for l in open(xdm):
        out.write(json.dumps(json.loads(l)["xdm"], separators=(",", ":")) + "\n")
open(f"{work}/orjson_pass.py", "w").write("""import sys, orjson
w = sys.stdout.buffer.write
for line in sys.stdin.buffer:
    w(orjson.dumps(orjson.loads(line)) + b"\\n")
""")
PY
states=$(cat "$work/state-args")
# The benchmark's rules are linted first: a rule set with errors would measure something else.
for r in rules-1000.json rules-10.json; do
    "$bin" lint "$shared/bench/$r" > "$work/lint.txt" || { tail -1 "$work/lint.txt"; echo "$r has lint errors" >&2; exit 1; }
    echo "lint $r: $(tail -1 "$work/lint.txt")"
done
# rules-10k.yaml is only read, checked and planned here (never run), so its lint errors (rules the generator
# wrote that cannot fire) do not change what is measured; they are shown, not fatal.
"$bin" lint "$shared/bench/rules-10k.yaml" > "$work/lint.txt" || true
echo "lint rules-10k.yaml (parsed and planned only): $(tail -1 "$work/lint.txt")"
ab="python3 Benchmarks/abtime.py -n 5"
for n in 1000 10; do
    echo "== rulekit run, rules-$n, 100k events (A) vs orjson identity pass (B)"
    $ab --b "python3 $work/orjson_pass.py < $work/events100k.jsonl" \
        --a "$bin run --rules $shared/bench/rules-$n.json $states $work/events100k.jsonl"
done
echo "== rulekit match, rules-1000, 100k events"
$ab --a "$bin match --rules $shared/bench/rules-1000.json $states $work/events100k.jsonl"
echo "== rulekit xdm validate, 10k payloads (whole process: start, schema, parse, validate)"
$ab --a "$bin xdm validate --format json --schema $shared/bench/xdm-experienceevent.bundled.json $work/xdm10k.jsonl"
if python3 -c 'import fastjsonschema' 2>/dev/null; then
    echo "== fastjsonschema (validation only, parse and build not timed)"
    python3 "$shared/bench/bench_xdm_validate.py" --engines fastjsonschema --runs 3 | tail -1
fi
echo "== rulekit match, rules-10, 100k events"
$ab --a "$bin match --rules $shared/bench/rules-10.json $states $work/events100k.jsonl"
# The YAML anchor: libyaml's bare event pull (the floor for any YAML loader, ../shared/bench/README.md),
# built here when a C compiler and libyaml's headers are at hand.
if command -v cc > /dev/null && cat > "$work/pull.c" <<'C' && cc -O2 -o "$work/pull" "$work/pull.c" -lyaml 2> /dev/null; then
#include <yaml.h>
#include <stdio.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb"); if (!f) return 2;
    yaml_parser_t p; yaml_event_t e; long n = 0;
    yaml_parser_initialize(&p); yaml_parser_set_input_file(&p, f);
    for (;;) { if (!yaml_parser_parse(&p, &e)) return 1; int done = e.type == YAML_STREAM_END_EVENT; yaml_event_delete(&e); n++; if (done) break; }
    yaml_parser_delete(&p); fclose(f); printf("%ld\n", n); return 0;
}
C
    : > "$work/empty.jsonl"
    echo "== rulekit parse --quiet rules-10k.yaml (A) vs the bare libyaml pull (B)"
    $ab --b "$work/pull $shared/bench/rules-10k.yaml" --a "$bin parse --quiet $shared/bench/rules-10k.yaml"
    echo "== parse+load+plan rules-10k.yaml (rulekit match on no events) (A) vs the bare libyaml pull (B)"
    $ab --b "$work/pull $shared/bench/rules-10k.yaml" --a "$bin match --rules $shared/bench/rules-10k.yaml $work/empty.jsonl"
fi
echo "== peak RSS, rulekit run over 1,000,000 events through a pipe"
/usr/bin/time -f "peak RSS %M KiB, %e s" sh -c \
    "for i in 1 2 3 4 5 6 7 8 9 10; do cat $work/events100k.jsonl; done | $bin run --rules $shared/bench/rules-1000.json $states - > /dev/null"
