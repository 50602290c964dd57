#!/usr/bin/env bash
# What sending postbacks costs `rulekit serve` (issue 64): rules-1000.json plus one `pb` rule that matches
# 1% of the events (every hundredth event of ../shared/bench/events-10k.jsonl carries "pb":"yes"), wrk posting
# batches of 100 events (JSON lines) with 8 connections, history in memory. In turn, ROUNDS rounds (5):
#   A: the same rules with the consequence answered as an event and not sent (no --postbacks);
#   B: --postbacks DIR, a receiver on 127.0.0.1 answering 200 (Benchmarks/Serve/postback_sink.py, asyncio: its
#      CPU is taken from the same two cores, so it is kept small and reported apart; RECEIVER=FILE for another).
# Reported: events/s of each and B/A (target ≥ 0.9), C/A (target: about 1, a receiver down costs only disk); the server's CPU per delivered postback,
# (CPU_B − CPU_A per event) × events / delivered (target ≤ 25 µs; /proc/PID/stat utime+stime over the load
# window and the drain after it); whether the queue drained as fast as it filled (queued at the end of the
# load window); the receiver's own CPU per postback, apart.
# usage: Benchmarks/Serve/postbacks.sh   (from the repository root, after swift build -c release --product rulekit)
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/Serve/common.sh
seconds=${SECONDS_PER_FIGURE:-8}
rounds=${ROUNDS:-5}
python3 - "$shared/bench/events-10k.jsonl" "$work" <<'PY'
import json, sys
lines = [l.strip() for l in open(sys.argv[1]) if l.strip()]
out = []
for i, l in enumerate(lines):
    e = json.loads(l)
    if i % 100 == 0:
        e.setdefault("data", {})["pb"] = "yes"
    out.append(json.dumps(e, separators=(",", ":")))
with open(f"{sys.argv[2]}/pb-lines.txt", "w") as n:
    for i in range(0, len(out), 100):
        n.write("\x1e".join(out[i:i + 100]) + "\n")
PY
python3 "${RECEIVER:-Benchmarks/Serve/postback_sink.py}" --until-stdin-closes < <(sleep 100000 2> /dev/null) > "$work/receiver.port" 2> /dev/null &
receiver=$!
for _ in $(seq 100); do [[ -s $work/receiver.port ]] && break; sleep 0.05; done
port=$(head -1 "$work/receiver.port")
rpid=$receiver
cat > "$work/pb.yaml" <<YAML
rules:
  - id: tell-partner
    when: {key: pb, eq: "yes"}
    then:
      - id: partner-hook
        type: pb
        detail:
          templateurl: "http://127.0.0.1:$port/hook?id={%xdm._id%}"
          templatebody: '{"id": "{%xdm._id%}"}'
YAML
"$bin" lint "$rules" "$work/pb.yaml" > "$work/lint.txt" 2>&1 || { cat "$work/lint.txt"; echo "bench: the rules do not lint" >&2; exit 1; }
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
metric() { curl -s "$1/metrics" | awk -v m="$2" '$1 == m {print $2}'; }

measure() {  # measure MODE ; prints "events/s events cpu-ticks delivered queued-at-end receiver-ticks"
    local mode=$1 extra=()
    [[ $mode != print ]] && { rm -rf "$work/queue"; extra=(--postbacks "$work/queue"); }
    "$bin" serve --listen 127.0.0.1:0 --rules "$rules" --rules "$work/pb.yaml" --history memory "${extra[@]}" > "$work/out" 2> "$work/err" &
    local pid=$!
    for _ in $(seq 200); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.05; done
    local url; url=$(grep -o 'http://[0-9.:]*' "$work/out")
    local c0 r0; c0=$(cpu $pid); r0=$(cpu "$rpid")
    [[ $mode == down ]] && kill -STOP "$rpid"
    EVENTS_PER_BATCH=100 BODIES_FILE="$work/pb-lines.txt" CONTENT_TYPE=application/x-ndjson \
        wrk -t2 -c8 -d"${seconds}s" -s Benchmarks/Serve/post-batches.lua "$url" > "$work/wrk.txt"
    local queued=0 delivered=0
    if [[ $mode == down ]]; then
        queued=$(metric "$url" rulekit_postbacks_queued)
        c0=$(cpu $pid); r0=$(cpu "$rpid")
        kill -CONT "$rpid"
        for _ in $(seq 1200); do [[ $(metric "$url" rulekit_postbacks_queued) == 0 ]] && break; sleep 0.05; done
        delivered=$(metric "$url" rulekit_postbacks_delivered_total)
    elif [[ $mode == send ]]; then
        queued=$(metric "$url" rulekit_postbacks_queued)
        for _ in $(seq 600); do [[ $(metric "$url" rulekit_postbacks_queued) == 0 ]] && break; sleep 0.05; done
        delivered=$(metric "$url" rulekit_postbacks_delivered_total)
    fi
    local c1 r1; c1=$(cpu $pid); r1=$(cpu "$rpid")
    kill $pid; wait $pid 2>/dev/null || true
    grep -q '^non-2xx 0$' "$work/wrk.txt" || { cat "$work/wrk.txt" "$work/err" >&2; echo "bench: non-2xx answers" >&2; exit 1; }
    local rate; rate=$(awk '/^events\/s/ {print $2}' "$work/wrk.txt")
    echo "$rate $(python3 -c "print(int($rate * $seconds))") $((c1 - c0)) $delivered $queued $((r1 - r0))"
}

for round in $(seq "$rounds"); do
    echo "printed $(measure print)"
    echo "send $(measure send)"
    echo "down $(measure down)"
done | tee "$work/rounds.txt" | python3 -c "
import statistics, sys
tick = 1e6 / $(getconf CLK_TCK)
rows = {'printed': [], 'send': [], 'down': []}
for line in sys.stdin:
    mode, rate, events, ticks, delivered, queued, rticks = line.split()
    rows[mode].append((float(rate), int(events), int(ticks), int(delivered), int(queued), int(rticks)))
    print(line.strip(), flush=True)
a = statistics.median(r[0] for r in rows['printed'])
b = statistics.median(r[0] for r in rows['send'])
per_a = statistics.median(r[2] * tick / r[1] for r in rows['printed'])
per_post = statistics.median((r[2] * tick - per_a * r[1]) / r[3] for r in rows['send'] if r[3] > 0)
recv = statistics.median(r[5] * tick / r[3] for r in rows['send'] if r[3] > 0)
print(f'serve with postbacks sent {b:.0f} events/s against printed {a:.0f}: {b / a:.3f}x (target >= 0.9)')
print(f'server CPU per delivered postback: {per_post:.1f} us (target <= 25); the receiver (python asyncio) {recv:.0f} us apart')
print(f'queued at the end of each load window (drains as fast as it fills when small): {[r[4] for r in rows[\"send\"]]}')
c = statistics.median(r[0] for r in rows['down'])
drain = statistics.median(r[2] * tick / r[3] for r in rows['down'] if r[3] > 0)
print(f'receiver down through the window: {c:.0f} events/s against printed {a:.0f}: {c / a:.3f}x ({[r[4] for r in rows[\"down\"]]} queued)')
print(f'server CPU per postback delivered from the standing queue afterwards: {drain:.1f} us (the receiver {statistics.median(r[5] * tick / r[3] for r in rows[\"down\"] if r[3] > 0):.0f} us apart)')
"
kill $receiver 2>/dev/null || true
