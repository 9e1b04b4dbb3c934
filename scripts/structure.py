#!/usr/bin/env python3
"""Structure figures of the workspace: lines and `pub` items per crate, module import cycles
(strongly connected components of the `use crate::` / `use super::` graph between a crate's
modules), and the match sites of `Node` and `Property` variants.

Usage: python3 scripts/structure.py [--check]   (--check: exit 1 when there is an import cycle)
"""
import os, re, sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = {"tessera": "src", "tessera-ir": "ir/src", "tessera-verifier": "verifier/src",
          "tessera-codegen": "codegen/src"}


def modules(src):
    """Module path (tuple) -> file, for every .rs file under src."""
    out = {}
    for d, _, fs in os.walk(src):
        for f in fs:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(d, f), src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            out[tuple(rel)] = os.path.join(d, f)
    return out


def strip_comments(text):
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def resolve(mods, cur, path):
    """The longest module prefix of an import path, as a module of this crate."""
    parts = list(path)
    while parts:
        if tuple(parts) in mods:
            return tuple(parts)
        parts.pop()
    return None


def imports(mods, cur, text):
    out = set()
    for m in re.finditer(r"\b(crate|super)((?:::\w+)+)", text):
        segs = m.group(2).split("::")[1:]
        if m.group(1) == "crate":
            base = []
        else:
            # `super` is the parent of this module; each further `super` one level up.
            base = list(cur[:-1])
            while segs and segs[0] == "super":
                segs = segs[1:]
                base = base[:-1]
        target = resolve(mods, cur, base + segs)
        if target is not None and target != cur and target != ():
            out.add(target)
    return out


def sccs(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main():
    total_cycles = 0
    for crate, src in CRATES.items():
        path = os.path.join(ROOT, src)
        if not os.path.isdir(path):
            continue
        mods = modules(path)
        lines = pubs = 0
        graph = defaultdict(set)
        top = defaultdict(set)
        for m, f in mods.items():
            text = open(f).read()
            lines += text.count("\n")
            code = strip_comments(text)
            pubs += len(re.findall(r"^\s*pub\s+(?:fn|struct|enum|trait|type|const|static|mod|use)\b", code, re.M))
            # Group modules at their first two levels, so that a file's own submodules do not
            # count as a cycle with it.
            for t in imports(mods, m, code):
                if m[:1] != t[:1] and m[:1] != () and t[:1] != ():
                    top[m[:1]].add(t[:1])
                a, b = m[:2], t[:2]
                if a != b and a[:1] != () and not (b[:len(a)] == a or a[:len(b)] == b):
                    graph[a].add(b)
        cyc = sccs(graph)
        layers = [c for c in sccs(top) if c not in cyc]
        total_cycles += len(cyc) + len(layers)
        print(f"{crate}: {lines} lines, {pubs} pub items, {len(cyc)} import cycles between "
              f"modules, {len(layers)} between top-level modules")
        for c in cyc + layers:
            print("   cycle:", " <-> ".join("::".join(x) for x in c))
    sites = defaultdict(int)
    for crate, src in CRATES.items():
        for d, _, fs in os.walk(os.path.join(ROOT, src)):
            for f in fs:
                if f.endswith(".rs"):
                    code = strip_comments(open(os.path.join(d, f)).read())
                    for kind in ("Node", "Property"):
                        # A match site: a `match` whose arms name the enum's variants.
                        for m in re.finditer(r"\bmatch\b[^{]*\{", code):
                            body = code[m.end():m.end() + 2000]
                            if re.search(rf"\b{kind}::\w+", body.split("\n}")[0]):
                                sites[(kind, os.path.relpath(os.path.join(d, f), ROOT))] += 1
    for kind in ("Node", "Property"):
        files = {f: n for (k, f), n in sites.items() if k == kind}
        print(f"{kind} match sites: {sum(files.values())} in {len(files)} files:",
              ", ".join(f"{f} ({n})" for f, n in sorted(files.items())))
    print(f"import cycles in all: {total_cycles}")
    if "--check" in sys.argv and total_cycles:
        sys.exit(1)


if __name__ == "__main__":
    main()
