#!/usr/bin/env bash
# A person's erasure through `rulekit serve` (docs/serving.md, "Privacy"):
#   latency: DELETE /v1/history/{identity} of one identity among 1,000,000 records of 100,000 identities,
#     20 identities in turn, on SQLite (through the index the server keeps) and, given a URL, PostgreSQL;
#     the median and the slowest, wall time as curl sees it (HTTP on loopback included);
#   cost under load: serve with rules-1000.json + ../shared/bench/history-rules.yaml on SQLite (and
#     PostgreSQL), wrk posting batches of 100 events with 8 connections, with and without one DELETE a
#     second of an identity of the workload, in turn for ROUNDS rounds: the server's CPU per event
#     (utime + stime from /proc/PID/stat over the load window), medians, and their ratio.
# usage: Benchmarks/Serve/erase.sh [POSTGRES_URL]   (from the repository root, after
#        swift build -c release --product rulekit; wrk, sqlite3, python3, curl, and psql for PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/../.."
pg=${1:-}
source Benchmarks/Serve/common.sh
seconds=${SECONDS_PER_FIGURE:-8}
rounds=${ROUNDS:-3}
hrules=$shared/bench/history-rules.yaml
identity=xdm.identityMap.ECID.0.id
"$bin" lint "$rules" "$hrules" > "$work/lint.txt" 2>&1 || { cat "$work/lint.txt"; echo "bench: the rules do not lint" >&2; exit 1; }
echo admin > "$work/admins"
python3 - "$shared/bench/events-10k.jsonl" > "$work/identities" <<'PY'
import json, sys
seen = []
for line in open(sys.argv[1]):
    try:
        i = json.loads(line)["data"]["xdm"]["identityMap"]["ECID"][0]["id"]
    except (KeyError, IndexError, TypeError, ValueError):
        continue
    if i not in seen:
        seen.append(i)
print("\n".join(seen[:200]))
PY

serve() {  # serve ARGS... ; sets url and pid
    "$bin" serve --listen 127.0.0.1:0 --admin-token-file "$work/admins" "$@" > "$work/serve.out" 2> "$work/serve.err" &
    pid=$!
    for _ in $(seq 600); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
    url=$(grep -o 'http://[0-9.:]*' "$work/serve.out") || { cat "$work/serve.err" >&2; exit 1; }
}
stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$work/serve.out"; }
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
erase() { curl -s -o "$work/erase.json" -w '%{http_code} %{time_total}\n' -X DELETE -H 'Authorization: Bearer admin' "$url/v1/history/$1"; }

latency() {  # latency LABEL ; 20 identities of the seeded million
    for k in $(seq 1 20); do
        read -r code t < <(erase "seed-$k")
        [[ $code == 200 ]] || { cat "$work/erase.json" >&2; echo "bench: the delete answered $code" >&2; exit 1; }
        grep -q '"deleted":10' "$work/erase.json" || { cat "$work/erase.json" >&2; echo "bench: not 10 records deleted" >&2; exit 1; }
        echo "$t"
    done | python3 -c "import sys; t = sorted(float(x) * 1000 for x in sys.stdin); print(f'$1: median {t[len(t)//2]:.1f} ms, slowest {t[-1]:.1f} ms (20 identities of 100,000, 10 records each, of 1,000,000)')"
}

echo "== erasing one identity among 1,000,000 records"
serve --rules "$rules" --history "sqlite:$work/seed.sqlite" && stop
sqlite3 "$work/seed.sqlite" "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 1000000)
    INSERT INTO history_log (identity, key, hash, ts) SELECT 'seed-' || (i % 100000), 'seed-' || i, 1000 + (i % 7), 1.7e12 + i FROM g"
serve --rules "$rules" --history "sqlite:$work/seed.sqlite"
latency "SQLite"
stop
if [[ -n $pg ]]; then
    psql "$pg" -q -c "DROP TABLE IF EXISTS rulekit_history, rulekit_history_summary, rulekit_history_tombstones, rulekit_schema_version CASCADE" >/dev/null
    serve --rules "$rules" --history "$pg" --history-spool "$work/pg.spool" && stop
    psql "$pg" -q -c "INSERT INTO rulekit_history (identity, hash, ts, event_key)
        SELECT 'seed-' || (i % 100000), 1000 + (i % 7), 1.7e12 + i, 'seed-' || i FROM generate_series(1, 1000000) AS i;
        ANALYZE rulekit_history" >/dev/null
    serve --rules "$rules" --history "$pg" --history-spool "$work/pg.spool"
    latency "PostgreSQL"
    stop
fi

load() {  # load MODE --history WHERE ; prints "events cpu-ticks"
    local mode=$1
    shift
    serve --rules "$rules" --rules "$hrules" --identity "$identity" "$@" --history-spool "$work/load.spool"
    EVENTS_PER_BATCH=100 BODIES_FILE="$work/lines.txt" CONTENT_TYPE=application/x-ndjson wrk -t2 -c8 -d2s \
        -s Benchmarks/Serve/post-batches.lua "$url" > /dev/null
    local deleter=
    if [[ $mode == deletes ]]; then
        (while true; do erase "$(shuf -n1 "$work/identities")" > /dev/null; sleep 1; done) &
        deleter=$!
    fi
    local before
    before=$(cpu "$pid")
    EVENTS_PER_BATCH=100 BODIES_FILE="$work/lines.txt" CONTENT_TYPE=application/x-ndjson wrk -t2 -c8 -d"${seconds}s" \
        -s Benchmarks/Serve/post-batches.lua "$url" > "$work/wrk.txt"
    local after
    after=$(cpu "$pid")
    [[ -n $deleter ]] && { kill "$deleter"; wait "$deleter" 2>/dev/null || true; }
    grep -q '^non-2xx 0$' "$work/wrk.txt" || { cat "$work/wrk.txt" >&2; echo "bench: non-2xx answers" >&2; exit 1; }
    stop
    echo "$(awk -v s="$seconds" '/^events\/s/ {printf "%d", $2 * s}' "$work/wrk.txt") $((after - before))"
}

cost() {  # cost LABEL --history WHERE-TEMPLATE (with ROUND in it: a fresh store each run)
    local label=$1
    shift
    for r in $(seq "$rounds"); do
        for mode in none deletes; do
            [[ ${2:-} == postgres* ]] && psql "$2" -q -c "TRUNCATE rulekit_history, rulekit_history_tombstones" >/dev/null 2>&1 || true
            echo "$mode $(load "$mode" "$1" "${2//ROUND/$r-$mode}")"
        done
    done | python3 -c "
import statistics, sys
tick = 1e6 / $(getconf CLK_TCK)
per = {'none': [], 'deletes': []}
for line in sys.stdin:
    mode, events, ticks = line.split()
    per[mode].append(int(ticks) * tick / int(events))
a, b = statistics.median(per['none']), statistics.median(per['deletes'])
print(f'$label: server CPU per event {a:.2f} us without deletes, {b:.2f} us with one a second: {b / a:.3f}x '
      f'(rounds: {[round(x, 2) for x in per[\"none\"]]} / {[round(x, 2) for x in per[\"deletes\"]]})')
"
}

echo "== the history workload with one delete a second (CPU per event, $rounds rounds of ${seconds} s)"
cost "SQLite" --history "sqlite:$work/h-ROUND.sqlite"
[[ -n $pg ]] && cost "PostgreSQL" --history "$pg"
