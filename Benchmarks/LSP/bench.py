#!/usr/bin/env python3
"""`rulekit lsp` under an editor's load (issue 37's targets).

For a rules file of 1,000 rules (gen_yaml_rules.py --n 1000) and of 10,000 (rules-10k.yaml), both from
../shared/bench: the file is linted first (`rulekit lint`, its summary printed), then opened in a workspace
with the shipped Schemas/, and
  - diagnostics latency: an edit (one value changed, incremental sync) → the publishDiagnostics of that
    version, p50/p95 over the rounds, for two places: a matcher value inside a rule (the usual keystroke,
    which re-reads that rule's text only), and one in the `shared:` anchors above the rules, which every
    rule that aliases them reads (that text is re-read, every rule is loaded and checked again);
  - completion latency: an XDM path completion request → its answer, p50/p95;
  - typing during a check: a burst of edits 20 ms apart, with a completion after each; the completion
    latency while checks run, and whether any diagnostics were published for a version older than the newest;
  - the server's peak memory (VmHWM).
Targets: 1,000 rules: diagnostics p95 <= 50 ms, completion p95 <= 20 ms, memory <= 150 MB; 10,000 rules:
diagnostics p95 <= 500 ms, typing never waits (completion during checks as fast as without).

usage: python3 Benchmarks/LSP/bench.py [--bin .build/release/rulekit] [--rounds 40]
"""

import argparse
import json
import os
import pathlib
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, binary, root):
        self.p = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=root)
        self.buf = b""
        self.next_id = 0
        self.published = []  # (version, time)

    def send(self, message):
        body = json.dumps(message).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self, timeout=60):
        end = time.monotonic() + timeout
        while True:
            h = self.buf.find(b"\r\n\r\n")
            if h >= 0:
                n = int(self.buf[:h].split(b":")[1])
                if len(self.buf) >= h + 4 + n:
                    m = json.loads(self.buf[h + 4 : h + 4 + n])
                    self.buf = self.buf[h + 4 + n :]
                    if m.get("method") == "textDocument/publishDiagnostics":
                        self.published.append((m["params"].get("version"), time.monotonic()))
                    return m
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise TimeoutError("no message")
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                raise EOFError("the server closed its output")
            self.buf += chunk

    def request(self, method, params):
        self.next_id += 1
        i = self.next_id
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == i and "method" not in m:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, version):
        while True:
            if any(v == version for v, _ in self.published):
                return next(t for v, t in self.published if v == version)
            self.read()

    def peak_mb(self):
        for line in open(f"/proc/{self.p.pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.p.wait(timeout=30)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def run(binary, rules_path, rounds, label):
    root = pathlib.Path(tempfile.mkdtemp())
    (root / "Rules").mkdir()
    (root / "Schemas").symlink_to(REPO / "Schemas")
    target = root / "Rules" / "bench.yaml"
    shutil.copy(rules_path, target)
    lint = subprocess.run([binary, "lint", str(target), "--schemas", str(REPO / "Schemas")], capture_output=True, text=True)
    if lint.returncode == 2:
        sys.exit(f"{label}: rulekit lint could not read the benchmark's rules:\n{lint.stderr}")
    print(f"{label}: lint: {lint.stdout.strip().splitlines()[-1]}")
    text = target.read_text()
    lines = text.split("\n")
    # The lines edited: a matcher value (`values: [...]` or `eq: ...`), changed back and forth, first above the
    # rules (the first such line of the file: a shared anchor, when the file has them), then in a rule.
    def is_value(line):
        return "values:" in line or " eq: " in line

    rules_at = next((i for i, l in enumerate(lines) if l.startswith("rules:")), 0)
    sites = {"a shared anchor": next(i for i, l in enumerate(lines) if is_value(l))}
    sites["a rule"] = next(i for i, l in enumerate(lines) if i > rules_at and is_value(l))
    if sites["a shared anchor"] > rules_at:
        del sites["a shared anchor"]  # no anchors above the rules: the first value is in a rule

    # Inside the value (before a closing bracket), so that the text stays valid YAML.
    def column(line):
        return lines[line].rindex("]") if "]" in lines[line] else len(lines[line].rstrip())
    uri = target.as_uri()
    s = Server(binary, root)
    s.request("initialize", {"processId": None, "capabilities": {}, "rootUri": root.as_uri()})
    s.notify("initialized", {})
    t0 = time.monotonic()
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
    s.wait_diagnostics(1)
    print(f"{label}: first diagnostics after open {1000 * (time.monotonic() - t0):.0f} ms (workspace and schemas loaded)")

    inserted = set()

    def edit(version, line):
        ch = "7" if version % 2 else "8"
        col = column(line)
        # The first edit of a line puts a digit in; the next ones replace it.
        width = 1 if line in inserted else 0
        inserted.add(line)
        s.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [
                    {"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + width}}, "text": ch}
                ],
            },
        )

    version = 1
    diag = {}
    for name, line in sites.items():
        diag[name] = []
        for _ in range(rounds):
            version += 1
            t = time.monotonic()
            edit(version, line)
            diag[name].append(1000 * (s.wait_diagnostics(version) - t))
    edit_line = sites["a rule"]
    # Completion at a new matcher key's value, after the last line.
    n = len(lines) + 0
    version += 1
    s.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 0}}, "text": "\n  - when: {key: xdm.commerce.or"}],
        },
    )
    s.wait_diagnostics(version)
    pos = {"line": n + 1, "character": len("  - when: {key: xdm.commerce.or")}
    comp = []
    for _ in range(rounds * 2):
        t = time.monotonic()
        r = s.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": pos})
        comp.append(1000 * (time.monotonic() - t))
        assert any(i["label"] == "xdm.commerce.order.priceTotal" for i in r["result"]["items"]), r
    # Typing during checks: edits 20 ms apart, a completion after each.
    busy = []
    first = version + 1
    for _ in range(10):
        version += 1
        edit(version, edit_line)
        t = time.monotonic()
        s.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": pos})
        busy.append(1000 * (time.monotonic() - t))
        time.sleep(0.02)
    s.wait_diagnostics(version)
    burst = [v for v, _ in s.published if v is not None and v >= first]
    stale = any(b < a for a, b in zip(burst, burst[1:]))
    peak = s.peak_mb()
    s.close()
    shutil.rmtree(root)
    for name, xs in diag.items():
        print(f"{label}: diagnostics after a change in {name}: p50 {pct(xs, 50):.1f} ms p95 {pct(xs, 95):.1f} ms")
    worst = max(pct(xs, 95) for xs in diag.values())
    print(
        f"{label}: diagnostics after a change, worst p95 {worst:.1f} ms | "
        f"completion p50 {pct(comp, 50):.2f} ms p95 {pct(comp, 95):.2f} ms | "
        f"completion while checks run p50 {pct(busy, 50):.2f} ms p95 {pct(busy, 95):.2f} ms | "
        f"burst of 10 edits published {len(burst)} diagnostics, out of order: {stale} | peak memory {peak:.0f} MB"
    )
    return worst, pct(comp, 95), pct(busy, 95), peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(REPO / ".build" / "release" / "rulekit"))
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--sizes", default="1k,10k", help="which rule sets: 1k, 10k or both")
    ap.add_argument("--shared", default=os.environ.get("RULEKIT_SHARED", str(REPO.parent / "shared")))
    a = ap.parse_args()
    bench = pathlib.Path(a.shared) / "bench"
    work = pathlib.Path(tempfile.mkdtemp())
    small = work / "rules-1k.yaml"
    subprocess.run([sys.executable, str(bench / "gen_yaml_rules.py"), "--n", "1000", "--out", str(small)], check=True, capture_output=True)
    sizes = a.sizes.split(",")
    print()
    if "1k" in sizes:
        d1, c1, b1, m1 = run(a.bin, small, a.rounds, "1,000 rules")
        print(f"target 1k: diagnostics p95 {d1:.1f} <= 50 ms: {d1 <= 50}; completion p95 {c1:.2f} <= 20 ms: {c1 <= 20}; memory {m1:.0f} <= 150 MB: {m1 <= 150}")
    if "10k" in sizes:
        d10, c10, b10, m10 = run(a.bin, bench / "rules-10k.yaml", max(5, a.rounds // 4), "10,000 rules")
        print(f"target 10k: diagnostics p95 {d10:.1f} <= 500 ms: {d10 <= 500}; completion while checking p95 {b10:.2f} ms vs idle {c10:.2f} ms")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
