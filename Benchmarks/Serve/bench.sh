#!/usr/bin/env bash
# The `rulekit serve` benchmark: wrk posting batches of 100 events from ../shared/bench/events-10k.jsonl
# with rules-1000.json, against `rulekit run` on the same events in the same run; then latency at half the
# measured load; then the same with PostgreSQL history and a rule set with historical conditions.
# usage: Benchmarks/Serve/bench.sh [POSTGRES_URL]   (from the repository root, after
#        swift build -c release --product rulekit)
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${RULEKIT_SHARED:-../shared}
bin=.build/release/rulekit
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
python3 - "$shared/bench/events-10k.jsonl" "$shared/bench/state.json" "$work" <<'PY'
import json, sys
events, state, work = sys.argv[1], sys.argv[2], sys.argv[3]
lines = [l.strip() for l in open(events) if l.strip()]
with open(f"{work}/bodies.txt", "w") as out:
    for i in range(0, len(lines), 100):
        out.write("[" + ",".join(lines[i:i + 100]) + "]\n")
with open(f"{work}/events100k.jsonl", "w") as out:
    for _ in range(10):
        out.write("\n".join(lines) + "\n")
for k, v in json.load(open(state)).items():
    json.dump(v, open(f"{work}/state-{k}.json", "w"))
    print(f"--state {k}={work}/state-{k}.json", file=open(f"{work}/state-args", "a"))
# A rule set with historical conditions: every event is recorded; a rule asks for earlier ones.
open(f"{work}/history-rules.yaml", "w").write("""rules:
  - id: record
    when: {key: ~type, ex: true}
    then:
      - history: {operation: insert, content: {seen.type: "{%~type%}"}}
  - id: returning
    when:
      all:
        - {key: ~type, eq: com.adobe.eventType.edge}
        - history: {events: [{seen.type: com.adobe.eventType.edge}], matcher: ge, value: 3}
    then:
      - add: {returning: true}
""")
PY
state=$(cat "$work/state-args")
echo "== rulekit run, 100,000 events, rules-1000.json"
t0=$(date +%s.%N)
$bin run --rules "$shared/bench/rules-1000.json" $state "$work/events100k.jsonl" > /dev/null
t1=$(date +%s.%N)
run_rate=$(python3 -c "print(round(100000 / ($t1 - $t0)))")
echo "run: $run_rate events/s"

serve() {  # serve ARGS... ; sets url
    $bin serve --listen 127.0.0.1:0 "$@" > "$work/serve.out" 2> "$work/serve.err" &
    for _ in $(seq 100); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
    url=$(grep -o 'http://[0-9.:]*' "$work/serve.out")
}

measure() {  # measure LABEL
    echo "== $1"
    EVENTS_PER_BATCH=100 BODIES_FILE="$work/bodies.txt" wrk -t2 -c8 -d15s -s Benchmarks/Serve/post-batches.lua "$url" \
        | grep -E 'Requests/sec|events/s|non-2xx|Latency'
    rate=$(EVENTS_PER_BATCH=100 BODIES_FILE="$work/bodies.txt" wrk -t2 -c8 -d10s -s Benchmarks/Serve/post-batches.lua "$url" \
        | awk '/^events\/s/ {print $2}')
    half=$(python3 -c "print(max(1, $rate / 100 / 2))")
    echo "at half load ($half batches/s):"
    python3 Benchmarks/Serve/paced.py "$url" "$work/bodies.txt" "$half" 15
    kill %1 2>/dev/null || true
    wait %1 2>/dev/null || true
}

serve --rules "$shared/bench/rules-1000.json" $state --history memory
measure "serve, rules-1000.json, history in memory (run: $run_rate events/s)"
serve --rules "$shared/bench/rules-1000.json" $state --history "sqlite:$work/h.sqlite"
measure "serve, rules-1000.json, SQLite history"
if [[ -n ${1:-} ]]; then
    serve --rules "$work/history-rules.yaml" --history "$1" --identity xdm.identityMap.ECID.0.id
    measure "serve, historical rules, PostgreSQL history per identity"
fi
