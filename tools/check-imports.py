#!/usr/bin/env python3
"""Fail on an import cycle between the crate's modules (docs/design.md, "Layers").

Each source file under src/ is a module (src/papers/mod.rs is `papers`, src/papers/lp/run.rs is
`papers::lp::run`). A module depends on another when its code (not its comments or strings) names
it through a path starting at `crate`, `super` or `self`, or at one of its own child modules
(`lp::run::race` in papers/mod.rs) — in `use` and `pub use` items, with brace groups expanded at every depth
(`use super::{a, b::{c, d}}`), `super::super::…`, and paths inside function bodies. `super` and
`self` inside an inline `mod tests { … }` are read from that inline module, so a file's tests
importing `super::*` name the file itself. Edges to and from the crate root (lib.rs) are left out:
it only declares the modules. A parent and its child count like any two modules (issue 34: a child
that imports its parent's items while the parent uses the child is a cycle); `--lenient` leaves
such parent/child edges out, as the check did before. The check prints every cycle (a strongly
connected component of more than one module) and exits 1 if there is one. Every run first checks
the parser on a few snippets whose edges it must find (`--self-test` runs only that).

    python3 tools/check-imports.py [--graph] [--lenient] [--self-test]
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


def tokens(text):
    """The code's tokens: identifiers, `::` and single punctuation; comments, strings and char
    literals are dropped (a path in a doc comment or a message is no dependency)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == '"' or (c in "br" and re.match(r'(b?r#*"|b")', text[i:i + 8])):
            m = re.match(r'(b?r)(#*)"', text[i:i + 8])
            if m:
                end = '"' + m.group(2)
                j = text.find(end, i + len(m.group(0)))
                i = n if j < 0 else j + len(end)
            else:
                i = text.index('"', i) + 1
                while i < n and text[i] != '"':
                    i += 2 if text[i] == "\\" else 1
                i += 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])
            if m:
                i += len(m.group(0))
            else:
                m = re.match(r"'[A-Za-z_][A-Za-z0-9_]*", text[i:])
                i += len(m.group(0)) if m else 1
        elif c.isalpha() or c == "_" or (c == "$" and text.startswith("$crate", i)):
            m = re.match(r"\$?[A-Za-z_][A-Za-z0-9_]*", text[i:])
            out.append(m.group(0).lstrip("$"))
            i += len(m.group(0))
        elif c.isdigit():
            m = re.match(r"[0-9][0-9A-Za-z_.]*", text[i:])
            out.append("0")
            i += len(m.group(0))
        elif text.startswith("::", i):
            out.append("::")
            i += 2
        else:
            out.append(c)
            i += 1
    return out


def use_tree(toks, i):
    """Parse the path (or `use` tree) starting at toks[i]; return its expanded paths (brace groups
    at every depth, `self` in a group meaning the group's prefix) and the index after it."""
    segs = []
    while i < len(toks) and re.match(r"[A-Za-z_]", toks[i]):
        segs.append(toks[i])
        i += 1
        if i + 1 < len(toks) and toks[i] == "::" and toks[i + 1] == "{":
            i += 2
            found = []
            while i < len(toks) and toks[i] != "}":
                if toks[i] == ",":
                    i += 1
                    continue
                sub, j = use_tree(toks, i)
                found += [segs + [s for s in p if s != "self"] for p in sub]
                i = j if j > i else i + 1
            return found or [segs], i + 1
        if i + 1 < len(toks) and toks[i] == "::" and re.match(r"[A-Za-z_*]", toks[i + 1]):
            i += 1
            if toks[i] == "*":
                return [segs], i + 1
            continue
        break
    if i + 1 < len(toks) and toks[i] == "as":
        i += 2
    return [segs], i


def paths_in(code, children=()):
    """(inline module, path) for every path in `code` starting at `crate`, `super`, `self` or
    one of the file's child modules (`lp::run` in papers/mod.rs), `use` trees expanded at every
    depth; the inline module is the `mod x { … }` chain the path sits in (so `super` in a file's
    `mod tests` names the file's own module)."""
    toks = tokens(code)
    found, stack, depth, i = [], [], 0, 0
    while i < len(toks):
        t = toks[i]
        if t == "mod" and i + 2 < len(toks) and toks[i + 2] == "{":
            stack.append((toks[i + 1], depth + 1))
        if t == "{":
            depth += 1
        elif t == "}":
            if stack and stack[-1][1] == depth:
                stack.pop()
            depth -= 1
        starts = t in ("crate", "super", "self") or (t in children and not stack)
        prev = toks[i - 1] if i else ""
        if starts and prev not in ("::", ".") and i + 1 < len(toks) and toks[i + 1] == "::":
            inline = [m for m, _ in stack]
            tree, j = use_tree(toks, i)
            found += [(inline, p) for p in tree]
            # braces inside a use tree are not blocks
            i = max(j, i + 1)
            continue
        i += 1
    return found


def resolve(mod, inline, path, mods):
    """The deepest existing module a path names, seen from file module `mod` (inside the inline
    modules `inline`)."""
    cur = ([] if not mod else mod.split("::")) + inline
    if path[0] == "crate":
        base, rest = [], path[1:]
    elif path[0] == "self":
        base, rest = cur, path[1:]
    elif path[0] == "super":
        ups = 0
        while ups < len(path) and path[ups] == "super":
            ups += 1
        base, rest = cur[: max(len(cur) - ups, 0)], path[ups:]
    else:  # a child module of the file's module
        base, rest = cur[: len(cur) - len(inline)], path
    full = base + rest
    target = None
    for i in range(1, len(full) + 1):
        cand = "::".join(full[:i])
        if cand in mods:
            target = cand
    return target


def related(a, b):
    return a == b or a.startswith(b + "::") or b.startswith(a + "::") or a == "" or b == ""


def children_of(mod, mods):
    pre = mod + "::" if mod else ""
    return {c[len(pre):] for c in mods if c.startswith(pre) and c != mod and "::" not in c[len(pre):]}


def edges_of(mod, code, mods, lenient=False):
    """The modules `mod` depends on, given its source text."""
    out = set()
    for inline, p in paths_in(code, children_of(mod, mods)):
        t = resolve(mod, inline, p, mods)
        if t is None or t == mod or t == "" or mod == "":
            continue
        if lenient and related(mod, t):
            continue
        out.add(t)
    return out


def graph(lenient=False):
    mods = modules()
    return {m: edges_of(m, open(f, encoding="utf-8").read(), mods, lenient) for m, f in mods.items()}


SELF_TEST = [
    # (module, source, the edges the parser must find)
    ("a::b", "use super::{x, y::Z};", {"a", "a::y"}),
    ("a::b", "pub use super::{self, y::{Z, w::{V as W}}};", {"a", "a::y", "a::y::w"}),
    ("a::b::c", "use super::super::y::Z;", {"a::y"}),
    ("a::b::c", "use super::{super::y, d};", {"a::y", "a::b::d"}),
    ("a::b", "fn f() -> f64 { let v = crate::a::y::w::g(1.0); super::y::h::<u8>(v) }", {"a::y::w", "a::y"}),
    ("a::b", "use crate::{a::y::*, q};", {"a::y", "q"}),
    ("a", "pub mod b;\nuse b::Thing;\nfn f() { y::w::g() }", {"a::b", "a::y::w"}),
    ("a::b", "#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::y;\n}", {"a::y"}),
    ("a::b", "// use crate::q;\n/* super::y */ fn f() { let s = \"crate::q\"; let c = '{'; }", set()),
    ("a::b", "fn f<'a>(x: &'a str) { self::d::g(x) }\nmod inner { fn g() { super::d::h() } }", {"a::b::d"}),
]


def self_test():
    """The parser finds every edge of a few snippets (`use super::{…}`, nested groups, `pub use`,
    `super::super`, paths inside bodies, inline test modules) and none in comments or strings."""
    mods = {"a", "a::b", "a::b::c", "a::b::d", "a::y", "a::y::w", "q"}
    bad = []
    for mod, code, want in SELF_TEST:
        got = edges_of(mod, code, mods)
        if got != want:
            bad.append(f"self-test: {mod}: {code!r} gave {sorted(got)}, expected {sorted(want)}")
    return bad


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
    bad = self_test()
    if bad:
        print("\n".join(bad))
        return 1
    if "--self-test" in sys.argv:
        print(f"self-test: {len(SELF_TEST)} snippets, every edge found")
        return 0
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
