#!/usr/bin/env bash
# What authentication and event validation cost `rulekit serve` (issue 38's target: at most 5% of stateless
# throughput): rules-1000.json, history in memory, wrk posting batches of 100 events (JSON lines) from
# ../shared/bench/events-10k.jsonl with 8 connections. Served without tokens (B) and with
# --auth-token-file (A), in turn, ROUNDS rounds (5), medians; with BASELINE_BIN=path/to/an/older/rulekit (one
# without validation), that binary is measured in the same rounds too.
# usage: Benchmarks/Serve/auth.sh   (from the repository root, after swift build -c release --product rulekit)
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/Serve/common.sh
token=$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')
echo "$token" > "$work/tokens"

rate() {  # rate BINARY [AUTH] -- serve ARGS... ; prints events/s
    local b=$1 auth=$2; shift 3
    "$b" serve --listen 127.0.0.1:0 --rules "$rules" --history memory "$@" > "$work/out" 2> "$work/err" &
    local pid=$!
    for _ in $(seq 200); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.05; done
    local url; url=$(grep -o 'http://[0-9.:]*' "$work/out")
    AUTH=$auth EVENTS_PER_BATCH=100 BODIES_FILE="$work/lines.txt" CONTENT_TYPE=application/x-ndjson \
        wrk -t2 -c8 -d"${seconds}s" -s Benchmarks/Serve/post-batches.lua "$url" > "$work/wrk.txt"
    kill $pid; wait $pid 2>/dev/null || true
    grep -q '^non-2xx 0$' "$work/wrk.txt" || { cat "$work/wrk.txt" "$work/err" >&2; echo "bench: non-2xx answers" >&2; exit 1; }
    awk '/^events\/s/ {print $2}' "$work/wrk.txt"
}

with=(); without=(); base=()
rounds=${ROUNDS:-5}
for round in $(seq "$rounds"); do
    without+=("$(rate "$bin" "" --)")
    with+=("$(rate "$bin" "$token" -- --auth-token-file "$work/tokens")")
    if [[ -n ${BASELINE_BIN:-} ]]; then base+=("$(rate "$BASELINE_BIN" "" --)"); fi
    echo "round $round: without tokens ${without[-1]}, with tokens ${with[-1]}${BASELINE_BIN:+, baseline ${base[-1]:-}} events/s"
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
w=$(median "${with[@]}"); wo=$(median "${without[@]}")
echo "median: with tokens $w, without $wo events/s: $(python3 -c "print(f'{$w / $wo:.3f}')")x"
if [[ -n ${BASELINE_BIN:-} ]]; then
    b=$(median "${base[@]}")
    echo "baseline (no validation) $b events/s: validated without tokens $(python3 -c "print(f'{$wo / $b:.3f}')")x, with tokens $(python3 -c "print(f'{$w / $b:.3f}')")x"
fi
