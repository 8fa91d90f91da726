#!/usr/bin/env python3
"""Fail on a source file over 800 lines (src/**/*.rs, www/*.js) whose header does not say why
(docs/design.md, "Habits"): a line `Long file: <reason>` in its first 30 lines. A long file is
usually two concepts; split it by concept, or write down why it is one.

    python3 tools/check-lengths.py
"""

import os
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..")
LIMIT = 800


def sources():
    for top, ext in (("src", ".rs"), ("www", ".js")):
        for root, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in ("pkg", "pkg-threads", "node_modules")]
            for f in files:
                if f.endswith(ext):
                    yield os.path.join(root, f)


def main():
    bad = []
    for path in sorted(sources()):
        with open(path, encoding="utf-8") as fh:
            lines = fh.readlines()
        if len(lines) > LIMIT and not any("Long file:" in l for l in lines[:30]):
            bad.append((os.path.relpath(path, ROOT), len(lines)))
    for path, n in bad:
        print(f"{path}: {n} lines (over {LIMIT}) and no 'Long file: <reason>' in its header")
    print(f"files over {LIMIT} lines without a reason: {len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
