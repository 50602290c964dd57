#!/usr/bin/env bash
# `rulekit serve` over HTTPS against plain HTTP in the same run: rules-1000.json, history in memory, wrk
# (which speaks TLS) posting batches of 100 events from ../shared/bench/events-10k.jsonl with 8 connections
# (kept alive: the handshake is paid once per connection), a self-signed certificate made by openssl.
# ROUNDS rounds (3), each figure SECONDS_PER_FIGURE seconds (6), medians.
# usage: Benchmarks/Serve/tls.sh   (from the repository root, after swift build -c release --product rulekit)
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/Serve/common.sh
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 1 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 2> /dev/null
rate() {  # rate SCHEME -- serve ARGS... ; prints events/s
    local scheme=$1; shift 2
    "$bin" serve --listen 127.0.0.1:0 --rules "$rules" --history memory "$@" > "$work/out" 2> "$work/err" &
    local pid=$!
    for _ in $(seq 200); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.05; done
    local port; port=$(grep -o '127.0.0.1:[0-9]*' "$work/out" | head -1)
    EVENTS_PER_BATCH=100 BODIES_FILE="$work/lines.txt" CONTENT_TYPE=application/x-ndjson \
        wrk -t2 -c8 -d"${seconds}s" -s Benchmarks/Serve/post-batches.lua "$scheme://$port" > "$work/wrk.txt"
    kill $pid; wait $pid 2>/dev/null || true
    grep -q '^non-2xx 0$' "$work/wrk.txt" || { cat "$work/wrk.txt" "$work/err" >&2; echo "bench: non-2xx answers" >&2; exit 1; }
    awk '/^events\/s/ {print $2}' "$work/wrk.txt"
}
plain=(); tls=()
for round in $(seq "${ROUNDS:-3}"); do
    plain+=("$(rate http --)")
    tls+=("$(rate https -- --tls-cert "$work/cert.pem" --tls-key "$work/key.pem")")
    echo "round $round: HTTP ${plain[-1]}, HTTPS ${tls[-1]} events/s"
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
p=$(median "${plain[@]}"); t=$(median "${tls[@]}")
echo "median: HTTPS $t, HTTP $p events/s: $(python3 -c "print(f'{$t / $p:.3f}')")x"
