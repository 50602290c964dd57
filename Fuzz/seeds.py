#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target from the external corpora, at run time.

    seeds.py TARGET SHARED_DIR REPO_DIR OUT_DIR

Seeds are cut from ../shared (conformance suites and benchmark workloads) and from the repository's own
rules and fixtures; nothing of ../shared is copied into the repository. Each seed is at most MAX bytes
(libFuzzer's -max_len), so large files contribute their first records instead.
"""
import glob
import hashlib
import json
import os
import sys

MAX = 64 * 1024


def write(out, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data or len(data) > MAX:
        return
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def lines(path, n):
    with open(path, "rb") as f:
        for i, line in enumerate(f):
            if i >= n:
                break
            yield line.rstrip(b"\n")


def json_files(shared):
    yield from sorted(glob.glob(os.path.join(shared, "corpora/aep-rules/*.json")))
    yield from sorted(glob.glob(os.path.join(shared, "corpora/json-schema-test-suite/tests/draft7/*.json")))
    yield from sorted(glob.glob(os.path.join(shared, "corpora/xdm/**/*.json"), recursive=True))
    yield from sorted(glob.glob(os.path.join(shared, "corpora/yaml-test-suite/data/*/in.json")))


def launch_rule_sets(shared):
    for path in sorted(glob.glob(os.path.join(shared, "corpora/aep-rules/*.json"))):
        try:
            case = json.loads(read(path))
        except ValueError:
            continue
        rules = case.get("rules") if isinstance(case, dict) else None
        if rules is not None:
            yield json.dumps(rules, indent=1)
    for name in ("rules-10.json", "rules-100.json"):
        path = os.path.join(shared, "bench", name)
        if os.path.exists(path):
            yield read(path)


def yaml_rule_files(shared, repo):
    for path in sorted(glob.glob(os.path.join(repo, "Rules/*.yaml"))):
        yield read(path)
    for path in sorted(glob.glob(os.path.join(repo, "Tests/**/Fixtures/**/*.yaml"), recursive=True)):
        yield read(path)
    bench = os.path.join(shared, "bench/rules-10k.yaml")
    if os.path.exists(bench):
        # The head of the 10k-rule file: anchors, aliases, flow and block styles, literal scalars.
        yield b"\n".join(lines(bench, 120)) + b"\n"


def strings_with_tokens(value):
    if isinstance(value, str):
        if "{%" in value or "%}" in value:
            yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings_with_tokens(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_with_tokens(v)


def seeds(target, shared, repo):
    if target == "json":
        for path in json_files(shared):
            yield read(path)
        events = os.path.join(shared, "bench/events-10k.jsonl")
        if os.path.exists(events):
            yield from lines(events, 40)
    elif target == "yaml":
        for path in sorted(glob.glob(os.path.join(shared, "corpora/yaml-test-suite/data/*/in.yaml"))):
            yield read(path)
        yield from yaml_rule_files(shared, repo)
    elif target == "launch-json":
        yield from launch_rule_sets(shared)
    elif target == "rules":
        yield from launch_rule_sets(shared)
        yield from yaml_rule_files(shared, repo)
    elif target == "template":
        found = set()
        for path in sorted(glob.glob(os.path.join(shared, "corpora/aep-rules/*.json"))):
            try:
                found.update(strings_with_tokens(json.loads(read(path))))
            except ValueError:
                pass
        for path in sorted(glob.glob(os.path.join(repo, "Rules/*.yaml"))):
            for line in read(path).decode("utf-8", "replace").splitlines():
                if "{%" in line:
                    found.add(line.strip())
        found.update(["{%~type%}", "a{%%}b", "{%urlenc(x.y)%}", "{%int(n)%} and {%~state.ext/k%}", "{% unclosed",
                      "%}{%", "{%{%x%}%}", "{%~timestampu%}", "{%double(a.b.0)%}"])
        yield from sorted(found)
    elif target == "schema":
        for path in sorted(glob.glob(os.path.join(shared, "corpora/json-schema-test-suite/tests/draft7/*.json"))):
            try:
                groups = json.loads(read(path))
            except ValueError:
                continue
            for group in groups:
                for test in group.get("tests", []):
                    yield json.dumps([group["schema"], test["data"]])
        # Hostile patterns against strings that make a backtracking engine explode.
        for pattern in ["^(a+)+$", "(x+x+)+y", "^(\\w+\\s?)*$"]:
            yield json.dumps([{"pattern": pattern}, "a" * 40 + "!"])
    else:
        raise SystemExit(f"unknown target {target!r}")


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    target, shared, repo, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    if not os.path.isdir(shared):
        print(f"seeds: {shared} is absent; fuzzing {target} from an empty corpus", file=sys.stderr)
        return
    n = 0
    for s in seeds(target, shared, repo):
        write(out, s)
        n += 1
    print(f"seeds: {n} for {target} in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
