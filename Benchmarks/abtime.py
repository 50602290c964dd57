#!/usr/bin/env python3
"""Times whole commands, A B A B ..., after a warm-up: median wall seconds of each, the median of the
per-pair ratios A/B (a ratio holds when the machine's speed drifts between pairs), and peak RSS.

usage: Benchmarks/abtime.py [-n RUNS] [--warmup N] --a 'COMMAND' [--b 'COMMAND']
Each command runs through `sh -c` with its output thrown away (redirect inside it to keep it).
"""
import argparse
import resource
import statistics
import subprocess
import time


def once(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(["sh", "-c", cmd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, after.ru_maxrss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("-n", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--a", required=True)
    p.add_argument("--b")
    o = p.parse_args()
    for _ in range(o.warmup):
        once(o.a)
        if o.b:
            once(o.b)
    a, b = [], []
    for _ in range(o.n):
        a.append(once(o.a))
        if o.b:
            b.append(once(o.b))
    med = lambda xs: statistics.median(xs)
    print(f"A wall s  median {med([x[0] for x in a]):.3f}  min {min(x[0] for x in a):.3f}  max {max(x[0] for x in a):.3f}  cpu {med([x[1] for x in a]):.3f}")
    if b:
        print(f"B wall s  median {med([x[0] for x in b]):.3f}  min {min(x[0] for x in b):.3f}  max {max(x[0] for x in b):.3f}  cpu {med([x[1] for x in b]):.3f}")
        ratios = [x[0] / y[0] for x, y in zip(a, b)]
        print(f"A/B wall  median {med(ratios):.3f}  min {min(ratios):.3f}  max {max(ratios):.3f}")
    print(f"peak RSS (largest child so far) {a[-1][2] // 1024} MiB")


if __name__ == "__main__":
    main()
