#!/usr/bin/env python3
"""Fail on an import cycle between the crate's modules (docs/design.md, "Layers").

Each source file under src/ is a module (src/engine/mod.rs is `engine`, src/engine/lp.rs is
`engine::lp`). A module depends on another when its code (not its comments) names it through
`crate::…`, `super::…` or `self::…` paths, or a path starting at one of its own child modules
(`lp::run` in engine/mod.rs), in `use` items or inline. Edges to and from the crate root (lib.rs)
are left out: it only declares the modules. A parent and its child count like any two modules
(issue 34: a child that imports its parent's items while the parent uses the child is a cycle);
`--lenient` leaves such parent/child edges out, as the check did before. The check prints every
cycle (a strongly connected component of more than one module) and exits 1 if there is one.

    python3 tools/check-imports.py [--graph] [--lenient]
"""

import os
import re
import sys

SRC = os.path.join(os.path.dirname(__file__), "..", "src")


def modules():
    out = {}
    for root, _, files in os.walk(SRC):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, f), SRC)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib"):
                parts = parts[:-1]
            if parts and parts[0] == "bin":
                continue
            out["::".join(parts)] = os.path.join(root, f)
    return out


def code_of(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("//"):
            continue
        lines.append(re.sub(r"//.*$", "", line))
    return "\n".join(lines)


def paths_in(code):
    """Every path starting at crate/super/self, with brace groups of `use` expanded one level."""
    found = []
    for m in re.finditer(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)(::\{([^}]*)\})?", code):
        head = [m.group(1)] + m.group(2).strip(":").split("::")
        found.append(head)
        if m.group(4):
            for item in m.group(4).split(","):
                item = item.strip().split(" as ")[0].strip()
                if item and item != "self":
                    found.append(head + item.split("::"))
    return found


def resolve(mod, path, mods):
    """The deepest existing module a path names, seen from module `mod`."""
    cur = [] if not mod else mod.split("::")
    if path[0] == "crate":
        base, rest = [], path[1:]
    elif path[0] == "self":
        base, rest = cur, path[1:]
    else:
        ups = 0
        while ups < len(path) and path[ups] == "super":
            ups += 1
        base, rest = cur[: max(len(cur) - ups, 0)], path[ups:]
    target = None
    for i in range(len(rest) + 1):
        cand = "::".join(base + rest[:i])
        if cand in mods:
            target = cand
    return target


def related(a, b):
    return a == b or a.startswith(b + "::") or b.startswith(a + "::") or a == "" or b == ""


def child_paths(mod, code, mods):
    """Paths that start at one of `mod`'s child modules without `self::` (`lp::run`)."""
    pre = mod + "::" if mod else ""
    children = {c[len(pre):] for c in mods if c.startswith(pre) and c != mod and "::" not in c[len(pre):]}
    found = []
    for c in children:
        for m in re.finditer(r"(?<![:\w])" + c + r"((?:::[A-Za-z_][A-Za-z0-9_]*)+)", code):
            found.append(["self", c] + m.group(1).strip(":").split("::"))
    return found


def graph(lenient=False):
    mods = modules()
    edges = {m: set() for m in mods}
    for m, f in mods.items():
        code = code_of(f)
        for p in paths_in(code) + child_paths(m, code, mods):
            t = resolve(m, p, mods)
            if t is None or t == m or t == "" or m == "":
                continue
            if lenient and related(m, t):
                continue
            edges[m].add(t)
    return edges


def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
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
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def main():
    edges = graph(lenient="--lenient" in sys.argv)
    if "--graph" in sys.argv:
        for m in sorted(edges):
            print(f"{m or 'crate'} -> {', '.join(sorted(edges[m]))}")
    cycles = [sorted(c) for c in sccs(edges) if len(c) > 1]
    for c in cycles:
        print("import cycle among:", ", ".join(c))
        for a in c:
            for b in sorted(edges[a]):
                if b in c:
                    print(f"    {a} -> {b}")
    print(f"{len(edges)} modules, {sum(len(e) for e in edges.values())} dependencies, {len(cycles)} cycles")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
