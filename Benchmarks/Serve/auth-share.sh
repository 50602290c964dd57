#!/usr/bin/env bash
# What authentication and event validation cost `rulekit serve`, counted in instructions rather than timed
# (issue 38's target: at most 5% of stateless serve): the release service runs under callgrind with
# rules-1000.json, history in memory and a token file; the counters are zeroed once it listens, then
# ROUNDS x 100 batches of 100 events (../shared/bench/events-10k.jsonl, JSON lines, with the bearer token)
# are posted one after another and the counters dumped. Printed: all instructions per event, and the
# inclusive share of the token check (hummingbird-auth's `bearer` header parse and `AuthTokens.accepts`)
# and of the event check (`EventShape.problem`). Instruction counts repeat for the same binary and input,
# whatever else the machine does (wall-time figures here move by 10-15%: Benchmarks/Serve/auth.sh).
# usage: Benchmarks/Serve/auth-share.sh   (from the repository root, after swift build -c release --product rulekit)
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${RULEKIT_SHARED:-../shared}
bin=$PWD/.build/release/rulekit
# valgrind gives up on the release binary's DWARF (linked by lld); the symbol table is all callgrind needs.
nodebug=$(mktemp)
objcopy --strip-debug "$bin" "$nodebug"
rounds=${ROUNDS:-2}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work" "$nodebug"' EXIT
rules=$shared/bench/rules-1000.json
"$bin" lint "$rules" > "$work/lint.txt" || { tail -1 "$work/lint.txt"; echo "bench: the rules do not lint" >&2; exit 1; }
echo "lint: $(tail -1 "$work/lint.txt")"
token=$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')
echo "$token" > "$work/tokens"
valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$nodebug" serve --listen 127.0.0.1:0 --rules "$rules" \
    --history memory --auth-token-file "$work/tokens" > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 600); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' "$work/out") || { cat "$work/err" >&2; exit 1; }
callgrind_control -z "$pid" > /dev/null 2>&1
python3 - "$shared/bench/events-10k.jsonl" "$url" "$token" "$rounds" > "$work/sent" <<'PY'
import sys, urllib.request
lines = [l.strip() for l in open(sys.argv[1]) if l.strip()]
url, token, rounds = sys.argv[2], sys.argv[3], int(sys.argv[4])
sent = 0
for _ in range(rounds):
    for i in range(0, len(lines), 100):
        body = "\n".join(lines[i:i + 100]).encode()
        req = urllib.request.Request(url + "/v1/events", data=body, method="POST", headers={
            "Content-Type": "application/x-ndjson", "Authorization": "Bearer " + token})
        with urllib.request.urlopen(req) as r:
            assert r.status == 200, r.status
            r.read()
        sent += len(lines[i:i + 100])
print(sent)
PY
callgrind_control -d "$pid" > /dev/null 2>&1
sleep 1
kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
dump=$(ls -t "$work"/cg.out.* 2>/dev/null | head -1)
[[ -n $dump ]] || dump=$work/cg.out
callgrind_annotate --inclusive=yes --threshold=100 "$dump" > "$work/annotate.txt"
[[ -z ${KEEP_ANNOTATION:-} ]] || cp "$work/annotate.txt" "$KEEP_ANNOTATION"
events=$(cat "$work/sent")
python3 - "$work/annotate.txt" "$events" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
events = int(sys.argv[2])
def count(s): return int(s.replace(",", ""))
total = count(re.search(r"^([\d,]+) \(100\.0+%\)\s+PROGRAM TOTALS", text, re.M).group(1))
# Swift symbols stay mangled here: AuthTokens.accepts, HTTPFields.bearer (hummingbird-auth), EventShape.problem.
def inclusive(pattern):
    best = 0
    for m in re.finditer(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+)", text, re.M):
        if re.search(pattern, m.group(2)): best = max(best, count(m.group(1)))
    return best
auth = inclusive(r"10AuthTokensC7accepts5token") + inclusive(r"10HTTPFieldsV15HummingbirdAuthE6bearer")
shape = inclusive(r"10EventShapeO7problem")
print(f"events posted: {events}; instructions per event, all threads: {total / events:,.0f}")
print(f"token check (bearer parse + AuthTokens.accepts): {auth / events:,.1f} instructions per event, {100 * auth / total:.3f}% of the service")
print(f"event check (EventShape.problem): {shape / events:,.1f} instructions per event, {100 * shape / total:.3f}% of the service")
print(f"together: {100 * (auth + shape) / total:.3f}% (target: at most 5%)")
PY
