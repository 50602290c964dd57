#!/usr/bin/env python3
"""Public functions and initializers with parameters whose doc comment has no `- Parameter(s):` section
(protocol requirements of public protocols included). A function with the name and argument labels of a
requirement documented in the modules checked is taken as its witness: the requirement's parameters are
its documentation, as DocC shows it.

usage: .ci/param_docs.py [--require MODULE ...] MODULE ...
Prints the count per module; exits 1 when a module given with --require has any, naming each.
"""
import glob
import re
import sys

DECL = re.compile(
    r"^(@\w+(\([^)]*\))?\s+)*(public\s+|open\s+)?(static\s+|final\s+|convenience\s+|override\s+|mutating\s+|nonisolated\s+|required\s+)*"
    r"(func\s+\S+?|init\??)\s*(<[^>]*>)?\s*\(")


def key(sig):
    """`name(label:label:)` of a declaration's signature text."""
    m = re.search(r"(func\s+(\S+?)|(init\??))\s*(<[^>]*>)?\s*\(", sig)
    name = m.group(2) or "init"
    depth, start, labels, i = 0, m.end(), [], m.end()
    part = ""
    while i < len(sig):
        c = sig[i]
        if c in "([<":
            depth += 1
        elif c in ")]>":
            if depth == 0:
                break
            depth -= 1
        if c == "," and depth == 0:
            labels.append(part)
            part = ""
        else:
            part += c
        i += 1
    labels.append(part)
    names = [p.split(":")[0].strip().split()[0] for p in labels if ":" in p]
    return name + "(" + "".join(n + ":" for n in names) + ")"


def undocumented(path, documented=None, requirements=None):
    """The undocumented declarations of `path`; `requirements` collects the keys of the documented
    protocol requirements, `documented` passes over them."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    protocol_depth = None  # brace depth inside a public protocol's body
    depth = 0
    for i, line in enumerate(lines):
        s = line.strip()
        in_protocol = protocol_depth is not None and depth == protocol_depth
        if s.startswith("public protocol "):
            protocol_depth = depth + 1
        public = s.startswith(("public ", "open ")) or re.match(r"^@\w+(\([^)]*\))?\s+(public|open)\s", s) or (in_protocol and not s.startswith("//"))
        if public and DECL.match(s) and not s.startswith("///"):
            sig, j = s, i
            while "{" not in sig and ")" not in sig and j + 1 < len(lines):
                j += 1
                sig += lines[j].strip()
            m = re.search(r"\((.*)", sig)
            params = m.group(1) if m else ""
            if not params.startswith(")"):
                doc, k = [], i - 1
                while k >= 0 and (lines[k].strip().startswith("///") or lines[k].strip().startswith("@")):
                    doc.append(lines[k])
                    k -= 1
                # Equatable's and Hashable's witnesses say nothing a reader needs.
                has = "- Parameter" in "\n".join(doc) or key(sig) in ("==(lhs:rhs:)", "hash(into:)") or re.search(r"func\s+[=<>!+*/-]+\s*\(", sig) or "func hash(into" in sig
                if in_protocol and has and requirements is not None:
                    requirements.add(key(sig))
                if not has and not (documented and key(sig) in documented):
                    out.append(f"{path}:{i + 1}: {s[:110]}")
        depth += line.count("{") - line.count("}")
        if protocol_depth is not None and depth < protocol_depth:
            protocol_depth = None
    return out


def main(argv):
    required, modules, it = set(), [], iter(argv)
    for a in it:
        if a == "--require":
            required.add(next(it))
        else:
            modules.append(a)
    modules = list(dict.fromkeys(list(required) + modules))
    requirements = set()
    for module in modules:
        for path in glob.glob(f"Sources/{module}/**/*.swift", recursive=True):
            undocumented(path, requirements=requirements)
    failed = False
    for module in modules:
        found = []
        for path in sorted(glob.glob(f"Sources/{module}/**/*.swift", recursive=True)):
            found += undocumented(path, documented=requirements)
        print(f"param-docs: {module}: {len(found)} public functions with parameters and no '- Parameter'")
        if module in required and found:
            failed = True
            print("\n".join(found))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
