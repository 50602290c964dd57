#!/usr/bin/env python3
"""Public functions and initializers with parameters whose doc comment has no `- Parameter(s):` section
(protocol requirements of public protocols included; a witness whose protocol documents it is still
counted: DocC shows the protocol's text, but the reader of the source does not see it).

usage: .ci/param_docs.py [--require MODULE ...] MODULE ...
Prints the count per module; exits 1 when a module given with --require has any, naming each.
"""
import glob
import re
import sys

DECL = re.compile(
    r"^(@\w+(\([^)]*\))?\s+)*(public\s+|open\s+)?(static\s+|final\s+|convenience\s+|override\s+|mutating\s+|nonisolated\s+|required\s+)*"
    r"(func\s+\S+?|init\??)\s*(<[^>]*>)?\s*\(")


def undocumented(path):
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
                if "- Parameter" not in "\n".join(doc):
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
    failed = False
    for module in modules:
        found = []
        for path in sorted(glob.glob(f"Sources/{module}/**/*.swift", recursive=True)):
            found += undocumented(path)
        print(f"param-docs: {module}: {len(found)} public functions with parameters and no '- Parameter'")
        if module in required and found:
            failed = True
            print("\n".join(found))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
