#!/usr/bin/env bash
# The `rulekit serve` benchmark, every figure against its anchor measured in the same call:
#   stateless: serve with rules-1000.json (history in memory), wrk posting batches of 100 events from
#     ../shared/bench/events-10k.jsonl with 8 connections, in each body form (JSON lines, JSON array,
#     envelope with the device's states), against `rulekit run` on 100,000 of the same events;
#   history: serve with rules-1000.json plus ../shared/bench/history-rules.yaml (every edge event recorded,
#     a historical condition on each), --identity xdm.identityMap.ECID.0.id, history in memory, SQLite and
#     (given a URL) PostgreSQL, each against stateless serve and against its ceiling (the same consequence
#     events and attached data with no history kept or asked: Benchmarks/Serve/history-consequences.yaml),
#     both measured just before it; p99 latency at half the measured load;
#   PostgreSQL with 1,000,000 records of 100,000 identities already in the table, against an empty one;
#     and with 1,000,000 records on the workload's own identities (returning users: long histories);
#   `rulekit run --data-dir` with the two rule files over 100,000 events, against `run` without history, its
#     ceiling (the same consequence events, no history) and the same rules with history in memory.
# Every serve figure also gives the server's CPU per event (user + system ticks of its process from
# /proc/PID/stat over wrk's window, over the events answered), and a PostgreSQL figure PostgreSQL's own (the
# ticks of every process named postgres): the history targets are set in CPU, which two shared cores move
# far less than wall time. The per-consequence-event figure is (the ceiling − stateless) over the share of
# events that make one (the edge events).
# ROUNDS=N repeats the history figures N times and prints the medians of the CPU figures; HISTORY_ONLY=1
# measures the history figures alone (no `run`, no stateless body forms, no `run --data-dir`).
# Every rule file is linted first: an error fails the benchmark.
# usage: Benchmarks/Serve/bench.sh [POSTGRES_URL]   (from the repository root, after
#        swift build -c release --product rulekit; wrk and python3 on the PATH; psql for the 1M-row figure.
#        .ci/postgres.sh starts a throwaway PostgreSQL and prints its URL.)
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${RULEKIT_SHARED:-../shared}
bin=$PWD/.build/release/rulekit
pg=${1:-}
seconds=${SECONDS_PER_FIGURE:-10}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
rules1000=$shared/bench/rules-1000.json
hrules=$shared/bench/history-rules.yaml
ceiling_rules=Benchmarks/Serve/history-consequences.yaml
identity=xdm.identityMap.ECID.0.id

echo "== lint"
# Each set as it is loaded (the ceiling's rules carry the history rules' ids, so that its events are the same).
for set in "$hrules" "$ceiling_rules"; do
    $bin lint "$rules1000" "$set" > "$work/lint.txt" 2>&1 || { cat "$work/lint.txt"; echo "bench: the rules do not lint" >&2; exit 1; }
    tail -1 "$work/lint.txt"
done

python3 - "$shared/bench/events-10k.jsonl" "$shared/bench/state.json" "$work" <<'PY'
import json, sys
events, state, work = sys.argv[1], sys.argv[2], sys.argv[3]
lines = [l.strip() for l in open(events) if l.strip()]
states = json.load(open(state))
# The share of events that are edge events: each makes one consequence event in the history workload.
edges = sum(json.loads(l)["type"] == "com.adobe.eventType.edge" for l in lines)
open(f"{work}/edge-share", "w").write(f"{edges / len(lines)}")
with open(f"{work}/array.txt", "w") as a, open(f"{work}/lines.txt", "w") as n, open(f"{work}/envelope.txt", "w") as e:
    for i in range(0, len(lines), 100):
        batch = lines[i:i + 100]
        a.write("[" + ",".join(batch) + "]\n")
        n.write("\x1e".join(batch) + "\n")
        e.write('{"events":[' + ",".join(batch) + '],"states":' + json.dumps(states, separators=(",", ":")) + "}\n")
with open(f"{work}/events100k.jsonl", "w") as out:
    for _ in range(10):
        out.write("\n".join(lines) + "\n")
args = []
for k, v in states.items():
    json.dump(v, open(f"{work}/state-{k}.json", "w"))
    args.append(f"--state {k}={work}/state-{k}.json")
open(f"{work}/state-args", "w").write(" ".join(args))
PY
state=$(cat "$work/state-args")
edge_share=$(cat "$work/edge-share")

# Median events/s of three runs of `rulekit run ARGS` over the 100,000 events.
run_rate() {
    python3 - "$@" <<'PY'
import subprocess, sys, time
rates = []
for _ in range(3):
    t = time.monotonic()
    subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
    rates.append(100000 / (time.monotonic() - t))
print(round(sorted(rates)[1]))
PY
}

serve() {  # serve ARGS... ; sets url
    $bin serve --listen 127.0.0.1:0 "$@" > "$work/serve.out" 2> "$work/serve.err" &
    server_pid=$!
    for _ in $(seq 200); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
    url=$(grep -o 'http://[0-9.:]*' "$work/serve.out")
}

stop() {
    kill %1 2>/dev/null || true
    wait %1 2>/dev/null || true
    rm -f "$work/serve.out"
}

# The CPU ticks (user + system, /proc/PID/stat) of the processes named, summed; a process gone counts 0.
ticks_of() {
    local t=0 p f
    for p in "$@"; do
        read -r -a f < "/proc/$p/stat" 2>/dev/null || continue
        t=$((t + f[13] + f[14]))
    done
    echo "$t"
}

# PostgreSQL's processes: every process named postgres on this machine (the benchmark's server is the only one).
pg_pids() { [[ -n $pg ]] && pgrep -x postgres || true; }

measure() {  # measure BODIES CONTENT_TYPE ; sets rate (events/s), cpu (the server's CPU µs per event), pgcpu
    local before pgbefore after pgafter events hz
    hz=$(getconf CLK_TCK)
    before=$(ticks_of "$server_pid")
    pgbefore=$(ticks_of $(pg_pids))
    EVENTS_PER_BATCH=100 BODIES_FILE="$1" CONTENT_TYPE="$2" wrk -t2 -c8 -d"${seconds}s" -s Benchmarks/Serve/post-batches.lua "$url" \
        > "$work/wrk.txt"
    after=$(ticks_of "$server_pid")
    pgafter=$(ticks_of $(pg_pids))
    if ! grep -q '^non-2xx 0$' "$work/wrk.txt"; then cat "$work/wrk.txt" "$work/serve.err" >&2; echo "bench: non-2xx answers" >&2; exit 1; fi
    rate=$(awk '/^events\/s/ {print $2}' "$work/wrk.txt")
    events=$(awk '/^events / {print $2}' "$work/wrk.txt")
    cpu=$(python3 -c "print(f'{($after - $before) / $hz / $events * 1e6:.1f}')")
    pgcpu=$(python3 -c "print(f'{($pgafter - $pgbefore) / $hz / $events * 1e6:.1f}')")
}

rate_of() {  # rate_of BODIES CONTENT_TYPE ; prints events/s
    measure "$@"
    echo "$rate"
}

stage_means() {  # stage_means URL ; the mean time of a batch in each stage, from the service's /metrics
    python3 - "$1/metrics" <<'PY'
import re, sys, urllib.request
text = urllib.request.urlopen(sys.argv[1]).read().decode()
def total(kind, stage):
    m = re.search(r'rulekit_block_stage_duration_seconds_%s\{stage="%s"\} ([0-9.e+-]+)' % (kind, stage), text)
    return float(m.group(1)) if m else 0.0
parts = []
for stage in ("read", "evaluate", "write"):
    n = total("count", stage)
    parts.append(f"{stage} {total('sum', stage) / n * 1000:.1f} ms" if n else f"{stage} -")
print(", ".join(parts))
PY
}

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }

if [[ -z ${HISTORY_ONLY:-} ]]; then
    echo "== rulekit run, 100,000 events, rules-1000.json"
    run=$(run_rate $bin run --rules "$rules1000" $state "$work/events100k.jsonl")
    echo "run: $run events/s"

    echo "== serve stateless, rules-1000.json, batches of 100, 8 connections"
    serve --rules "$rules1000" $state --history memory
    lines=$(rate_of "$work/lines.txt" application/x-ndjson)
    array=$(rate_of "$work/array.txt" application/json)
    envelope=$(rate_of "$work/envelope.txt" application/json)
    stop
    echo "JSON lines: $lines events/s ($(ratio "$lines" "$run")x run)"
    echo "array:      $array events/s ($(ratio "$array" "$run")x run)"
    echo "envelope:   $envelope events/s ($(ratio "$envelope" "$run")x run)"
fi

# The anchors of one history figure, measured just before it (the machine's load drifts over minutes, and a
# ratio to a rate measured minutes earlier moved with it): stateless serve (JSON lines) and the ceiling,
# each with the server's CPU per event.
anchors() {
    serve --rules "$rules1000" $state --history memory
    measure "$work/lines.txt" application/x-ndjson
    anchor=$rate anchor_cpu=$cpu
    stop
    serve --rules "$rules1000" --rules "$ceiling_rules" $state --history memory
    measure "$work/lines.txt" application/x-ndjson
    ceiling=$rate ceiling_cpu=$cpu
    stop
}

# CPU per event is the figure the targets are set in (wall time on two shared cores moves with whatever else
# runs; the CPU a unit of work takes moves much less). Every figure is also appended to $work/cpu.txt as
# "LABEL stateless ceiling store pg", and printed as medians over ROUNDS at the end.
history() {  # history LABEL --history WHERE ; figures against stateless JSON lines and the ceiling, just before
    local label=$1
    shift
    anchors
    serve --rules "$rules1000" --rules "$hrules" $state --identity "$identity" "$@" --history-spool "$work/spool"
    measure "$work/lines.txt" application/x-ndjson
    local half
    half=$(python3 -c "print(max(1, $rate / 100 / 2))")
    local paced
    paced=$(python3 Benchmarks/Serve/paced.py "$url" "$work/array.txt" "$half" "$seconds")
    local stages
    stages=$(stage_means "$url")
    stop
    if grep -q "consequence chain" "$work/serve.err"; then echo "bench: a rule chain was cut (see the serve log)" >&2; exit 1; fi
    echo "$label: $rate events/s ($(ratio "$rate" "$anchor")x stateless, $(ratio "$rate" "$ceiling")x the ceiling; just before:" \
        "stateless $anchor, the ceiling $ceiling events/s, $(ratio "$ceiling" "$anchor")x stateless)"
    echo "  server CPU per event: $cpu µs (the ceiling $ceiling_cpu, +$(python3 -c "print(f'{$cpu - $ceiling_cpu:.1f}')");" \
        "stateless $anchor_cpu; per consequence event $(python3 -c "print(f'{($ceiling_cpu - $anchor_cpu) / $edge_share:.1f}')"))" \
        "$([[ $label == PostgreSQL* ]] && echo "; PostgreSQL's own CPU per event: $pgcpu µs")"
    echo "  at half load: $paced"
    echo "  mean per batch over both loads: $stages"
    echo "$label|$anchor_cpu|$ceiling_cpu|$cpu|$pgcpu" >> "$work/cpu.txt"
}

echo "== serve with history rules (rules-1000.json + history-rules.yaml, --identity $identity)"
echo "(the ceiling: the same consequence events and attached data, no history kept or asked)"
history_figures() {
    history "memory" --history memory
    history "SQLite" --history "sqlite:$work/h.sqlite"
    if [[ -n $pg ]]; then
        psql "$pg" -q -c "DROP TABLE IF EXISTS rulekit_history, rulekit_history_summary, rulekit_schema_version CASCADE" >/dev/null
        history "PostgreSQL (empty table)" --history "$pg"
        if command -v psql >/dev/null; then
            # The identities and hash the workload records, for the returning users below.
            psql "$pg" -q -c "DROP TABLE IF EXISTS rulekit_bench_pairs;
                CREATE TABLE rulekit_bench_pairs AS SELECT DISTINCT identity, hash FROM rulekit_history" >/dev/null
            psql "$pg" -q -c "TRUNCATE rulekit_history" >/dev/null
            psql "$pg" -q -c "INSERT INTO rulekit_history (identity, hash, ts, event_key)
                SELECT 'seed-' || (i % 100000), 1000 + (i % 7), 1.7e12 + i, 'seed-' || i FROM generate_series(1, 1000000) AS i;
                ANALYZE rulekit_history" >/dev/null
            history "PostgreSQL (1,000,000 records of 100,000 identities)" --history "$pg"
            # Returning users: about 1,000,000 records on the workload's own identities, every one of the hash
            # its historical condition counts, so each question is about a long history.
            psql "$pg" -q -c "TRUNCATE rulekit_history" >/dev/null
            psql "$pg" -q -c "INSERT INTO rulekit_history (identity, hash, ts, event_key)
                SELECT p.identity, p.hash, 1.7e12 + g, p.identity || '/seed-' || g
                FROM rulekit_bench_pairs p, generate_series(1, 1000000 / (SELECT count(*) FROM rulekit_bench_pairs)) AS g;
                DROP TABLE rulekit_bench_pairs; ANALYZE rulekit_history" >/dev/null
            history "PostgreSQL (1,000,000 records on the workload's own identities)" --history "$pg"
        fi
    fi
}
for round in $(seq "${ROUNDS:-1}"); do
    [[ ${ROUNDS:-1} == 1 ]] || echo "-- round $round"
    history_figures
done
if [[ ${ROUNDS:-1} != 1 ]]; then
    echo "== medians over ${ROUNDS} rounds, the server's CPU µs per event (PostgreSQL's own last)"
    python3 - "$work/cpu.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, *v = line.rstrip("\n").split("|")
    rows.setdefault(label, []).append([float(x) for x in v])
for label, r in rows.items():
    m = [statistics.median(c) for c in zip(*r)]
    # The cost of history: the median of each round's store minus its own ceiling, measured just before.
    over = statistics.median(x[2] - x[1] for x in r)
    own = f"; PostgreSQL's own {m[3]:.1f}" if label.startswith("PostgreSQL") else ""
    print(f"{label}: {m[2]:.1f} (the ceiling {m[1]:.1f}, history +{over:.1f}; stateless {m[0]:.1f}){own}")
PY
fi
[[ -z ${HISTORY_ONLY:-} ]] || exit 0

echo "== rulekit run --data-dir, rules-1000.json + history-rules.yaml, 100,000 events"
# Four runs in turn, five rounds (the machine's load drifts over minutes; runs in turn see the same): run of
# rules-1000.json alone (the anchor), its ceiling (the history workload's consequence events and attached
# data, no history kept or asked), the history rules with history in memory, and with --data-dir.
python3 - "$bin" "$work" "$rules1000" "$hrules" "$ceiling_rules" "$identity" $state <<'PY'
import shutil, subprocess, sys, time
bin, work, rules1000, hrules, ceiling, identity, *state = sys.argv[1:]
events = f"{work}/events100k.jsonl"
base = [bin, "run", "--rules", rules1000, *state]
runs = {
    "run": base + [events],
    "ceiling": base + ["--rules", ceiling, events],
    "memory": base + ["--rules", hrules, "--identity", identity, events],
    "data-dir": base + ["--rules", hrules, "--identity", identity, "--data-dir", f"{work}/data", events],
}
rates = {k: [] for k in runs}
for _ in range(5):
    for name, argv in runs.items():
        shutil.rmtree(f"{work}/data", ignore_errors=True)
        t = time.monotonic()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rates[name].append(100000 / (time.monotonic() - t))
m = {k: sorted(v)[2] for k, v in rates.items()}
print(f"run: {m['run']:.0f} events/s; the ceiling: {m['ceiling']:.0f} ({m['ceiling'] / m['run']:.2f}x run)")
print(f"history in memory: {m['memory']:.0f} events/s ({m['memory'] / m['run']:.2f}x run)")
print(f"run --data-dir: {m['data-dir']:.0f} events/s ({m['data-dir'] / m['run']:.2f}x run of rules-1000 alone, "
      f"{m['data-dir'] / m['ceiling']:.2f}x the ceiling, {m['data-dir'] / m['memory']:.2f}x the same rules in memory)")
PY
