#!/usr/bin/env python3
"""Posts batches at a fixed rate (open loop) and prints latency percentiles: what wrk cannot do.

usage: paced.py URL BODIES_FILE RATE_PER_SECOND SECONDS [CONNECTIONS]
"""
import http.client, sys, threading, time, urllib.parse

url, bodies_file, rate, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
connections = int(sys.argv[5]) if len(sys.argv) > 5 else 8
bodies = [line.rstrip("\n").encode() for line in open(bodies_file)]
u = urllib.parse.urlparse(url)
latencies, errors, lock = [], [0], threading.Lock()
start = time.monotonic()
total = int(rate * seconds)

def worker(k):
    conn = http.client.HTTPConnection(u.hostname, u.port)
    i = k
    while i < total:
        due = start + i / rate
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        t0 = time.monotonic()
        conn.request("POST", "/v1/events", body=bodies[i % len(bodies)], headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        # Latency from when the request was due: a late start (the client fell behind) counts against it.
        t1 = time.monotonic()
        with lock:
            latencies.append(t1 - min(due, t0))
            if r.status != 200:
                errors[0] += 1
        i += connections

threads = [threading.Thread(target=worker, args=(k,)) for k in range(connections)]
for t in threads: t.start()
for t in threads: t.join()
latencies.sort()
def pct(p): return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000
print(f"requests {len(latencies)} errors {errors[0]} rate {rate:.0f}/s p50 {pct(0.50):.1f} ms p99 {pct(0.99):.1f} ms")
