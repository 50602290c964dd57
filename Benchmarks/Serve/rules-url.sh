#!/usr/bin/env bash
# Rules delivered by URL, each figure against its anchor measured in the same call:
#   load:   `rulekit match` with ../shared/bench/rules-10k.yaml zipped and fetched from a local publisher
#           (no cache), against the same file unzipped on disk: median CPU of each, and their ratio (target ≤ 1.2);
#   poll:   an idle `rulekit serve --rules URL --rules-poll 100ms`: the server's CPU per poll (a conditional GET
#           answered 304 on a kept-alive connection; /proc/PID/stat over a window of POLL_SECONDS, 30 by
#           default: its 10-ms ticks over 300 polls read a poll's CPU to ±0.04 ms, over 80 polls only to
#           ±0.15), and reloads (must stay 0);
#   reload: serve with rules-1000.json from a URL: the stateless throughput (wrk, batches of 100, 8
#           connections), then batches paced at half of it, p99 with the rules steady, and p99 while a new version
#           is published every 0.5 s and picked up by a 200 ms poll (target: within 2× of steady, no error).
# Every rule file is linted first. usage: Benchmarks/Serve/rules-url.sh (from the repository root, after
# swift build -c release --product rulekit; wrk and python3 on the PATH.)
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${RULEKIT_SHARED:-../shared}
bin=${RULEKIT_BIN:-$PWD/.build/release/rulekit}
seconds=${SECONDS_PER_FIGURE:-8}
poll_seconds=${POLL_SECONDS:-30}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
rules10k=$shared/bench/rules-10k.yaml
rules1000=$shared/bench/rules-1000.json

echo "== lint"
$bin lint "$rules1000" > "$work/lint.txt" 2>&1 || { tail -5 "$work/lint.txt"; echo "bench: $rules1000 does not lint" >&2; exit 1; }
tail -1 "$work/lint.txt"
# rules-10k.yaml is a size corpus whose Check finds re-triggering rules: both sides load it with
# --allow-errors; a load error (a file that does not load) still fails here.
$bin lint "$rules10k" > "$work/lint.txt" 2>&1 || true
tail -1 "$work/lint.txt"
$bin match --allow-errors --rules "$rules10k" /dev/null > /dev/null 2>&1 || { echo "bench: $rules10k does not load" >&2; exit 1; }

# The publisher (the tests' own: ETag, Last-Modified, 304s), serving $work/pub.
mkdir -p "$work/pub"
python3 - "$rules10k" "$rules1000" "$work/pub" <<'PY'
import sys, zipfile
for src, name in ((sys.argv[1], "rules-10k.zip"), (sys.argv[2], "rules-1000.zip")):
    with zipfile.ZipFile(f"{sys.argv[3]}/{name}", "w", zipfile.ZIP_DEFLATED) as z:
        z.write(src, "rules-10k.yaml" if name == "rules-10k.zip" else "rules.json")
PY
mkfifo "$work/pub.in"
python3 Tests/RulekitCLITests/Fixtures/rules_publisher.py --until-stdin-closes --root "$work/pub" < "$work/pub.in" > "$work/pub.port" &
exec 3> "$work/pub.in"
for _ in $(seq 100); do [[ -s $work/pub.port ]] && break; sleep 0.05; done
pub="http://127.0.0.1:$(head -1 "$work/pub.port")"
echo "publisher at $pub ($(du -h "$work/pub/rules-10k.zip" | cut -f1) zip of $(du -h "$rules10k" | cut -f1))"

echo "== load: rules-10k fetched as a zip, against the file"
: > "$work/empty.jsonl"
python3 Benchmarks/abtime.py -n "${ROUNDS:-5}" \
    --a "$bin match --allow-errors --no-cache --rules $pub/rules-10k.zip $work/empty.jsonl" \
    --b "$bin match --allow-errors --rules $rules10k $work/empty.jsonl" | tee "$work/load.txt"
python3 - "$work/load.txt" <<'PY'
import re, sys
cpu = [float(m) for m in re.findall(r"cpu ([0-9.]+)", open(sys.argv[1]).read())]
print(f"fetch + unzip + load / load, CPU: {cpu[0] / cpu[1]:.2f} (target ≤ 1.20)")
PY

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "== poll: an idle server polling every 100 ms, against the same server not polling"
idle_cpu() {  # idle_cpu ARGS... ; the server's CPU ms over the window, idle
    $bin serve --listen 127.0.0.1:0 --history memory --no-cache "$@" > "$work/idle.out" 2> "$work/idle.err" &
    local pid=$!
    for _ in $(seq 200); do grep -q listening "$work/idle.out" 2>/dev/null && break; sleep 0.05; done
    sleep 1
    local a b
    a=$(cpu_ticks $pid); sleep "$poll_seconds"; b=$(cpu_ticks $pid)
    kill $pid; wait $pid 2>/dev/null || true
    python3 -c "print(($b - $a) * 1000 / $(getconf CLK_TCK))"
}
base_ms=$(idle_cpu --rules "$pub/rules-1000.zip")
$bin serve --listen 127.0.0.1:0 --history memory --rules "$pub/rules-1000.zip" --rules-poll 100ms --no-cache \
    > "$work/serve.out" 2> "$work/serve.err" &
spid=$!
for _ in $(seq 200); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
url=$(grep -o 'http://[0-9.:]*' "$work/serve.out")
metric() { curl -s "$url/metrics" | awk -v n="$1" '$1 == n {print $2}'; }
sleep 1
polls0=$(metric rulekit_rules_polls_total); reloads0=$(metric rulekit_rules_reloads_total); t0=$(cpu_ticks $spid)
sleep "$poll_seconds"
polls1=$(metric rulekit_rules_polls_total); reloads1=$(metric rulekit_rules_reloads_total); t1=$(cpu_ticks $spid)
hz=$(getconf CLK_TCK)
python3 -c "
polls = $polls1 - $polls0; cpu = ($t1 - $t0) * 1000 / $hz
print(f'{polls:.0f} polls, server CPU {cpu:.0f} ms, not polling {$base_ms:.0f} ms: {(cpu - $base_ms) / max(polls, 1):.2f} ms per 304 poll (target < 1), reloads {${reloads1:-0} - ${reloads0:-0}:.0f} (target 0)')"
kill $spid; wait $spid 2>/dev/null || true

echo "== reload: p99 while new versions are published, against steady"
python3 - "$shared/bench/events-10k.jsonl" "$work" <<'PY'
import sys
lines = [l.strip() for l in open(sys.argv[1]) if l.strip()]
with open(f"{sys.argv[2]}/lines.txt", "w") as n, open(f"{sys.argv[2]}/array.txt", "w") as a:
    for i in range(0, len(lines), 100):
        n.write("\x1e".join(lines[i:i + 100]) + "\n")
        a.write("[" + ",".join(lines[i:i + 100]) + "]\n")
PY
cp "$work/pub/rules-1000.zip" "$work/v0.zip"
python3 - "$rules1000" "$work/v1.zip" <<'PY'
import json, sys, zipfile
doc = json.load(open(sys.argv[1]))
doc["rules"] = doc["rules"][:-1]  # another version: one rule fewer
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("rules.json", json.dumps(doc))
PY
$bin serve --listen 127.0.0.1:0 --history memory --rules "$pub/rules-1000.zip" --rules-poll 200ms --no-cache \
    > "$work/serve.out" 2> "$work/serve.err" &
spid=$!
for _ in $(seq 200); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
url=$(grep -o 'http://[0-9.:]*' "$work/serve.out")
EVENTS_PER_BATCH=100 BODIES_FILE="$work/lines.txt" CONTENT_TYPE=application/x-ndjson wrk -t2 -c8 -d"${seconds}s" \
    -s Benchmarks/Serve/post-batches.lua "$url" > "$work/wrk.txt"
grep -q '^non-2xx 0$' "$work/wrk.txt" || { cat "$work/wrk.txt"; echo "bench: non-2xx answers" >&2; exit 1; }
rate=$(awk '/^events\/s/ {print $2}' "$work/wrk.txt")
half=$(python3 -c "print(round($rate / 100 / 2))")
echo "stateless: $rate events/s; paced at $half batches/s (half)"
steady=$(python3 Benchmarks/Serve/paced.py "$url" "$work/array.txt" "$half" "$seconds")
echo "  steady:          $steady"
reloads0=$(metric rulekit_rules_reloads_total)
(
    end=$((SECONDS + seconds))
    v=1
    while ((SECONDS < end)); do
        cp "$work/v$v.zip" "$work/pub/.next.zip" && mv "$work/pub/.next.zip" "$work/pub/rules-1000.zip"
        v=$((1 - v))
        sleep 0.5
    done
) &
publisher_loop=$!
reloading=$(python3 Benchmarks/Serve/paced.py "$url" "$work/array.txt" "$half" "$seconds")
wait $publisher_loop
reloads1=$(metric rulekit_rules_reloads_total)
echo "  while reloading: $reloading ($((${reloads1%.*} - ${reloads0%.*})) reloads)"
python3 - "$steady" "$reloading" <<'PY'
import re, sys
p99 = [float(re.search(r"p99 ([0-9.]+)", s).group(1)) for s in sys.argv[1:]]
errors = int(re.search(r"errors (\d+)", sys.argv[2]).group(1))
print(f"p99 while reloading / steady: {p99[1] / p99[0]:.2f} (target ≤ 2), errors {errors} (target 0)")
PY
kill $spid; wait $spid 2>/dev/null || true
