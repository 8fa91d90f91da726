#!/usr/bin/env python3
"""Fail when code outside the executor slices work against a time budget itself (issue 34: "no
code outside the executor's module calls `clock::within`").

The one slicing loop is `exec::run_task_for` (src/exec/stepper.rs), built on `clock::within` /
`clock::try_within` (src/clock.rs); everything else that advances in slices implements
`exec::Task` and is run by it. This check reads every .rs file under src/ except those two,
comments removed, and reports each line that names `within` or `try_within` of the clock module
(`clock::within(`, `clock::try_within(`, or either imported from `clock`), or that compares or
subtracts elapsed time against a budget itself (a `budget_ms` beside `elapsed()` or `ms_since`:
the hand-written slicing loops the preparations had). Exit 1 if any.

    python3 tools/check-slicing.py
"""

import os
import re
import sys

SRC = os.path.join(os.path.dirname(__file__), "..", "src")
ALLOWED = {os.path.join("exec", "stepper.rs"), "clock.rs"}
CALL = re.compile(r"\bclock::(try_)?within\b")
SELF_TIMED = re.compile(r"\bbudget_ms\b.*\b(elapsed\(\)|ms_since)\b|\b(elapsed\(\)|ms_since)\b.*\bbudget_ms\b")
IMPORT = re.compile(r"\buse\s+(crate|super)(::\w+)*::clock::\{[^}]*\b(try_)?within\b")


def code_lines(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    for n, line in enumerate(text.splitlines(), 1):
        yield n, re.sub(r"//.*$", "", line)


def main():
    bad = []
    for root, _, files in os.walk(SRC):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, SRC)
            if rel in ALLOWED:
                continue
            for n, line in code_lines(path):
                if CALL.search(line) or IMPORT.search(line) or SELF_TIMED.search(line):
                    bad.append(f"src/{rel}:{n}: {line.strip()}")
    for b in bad:
        print("slices outside the executor (implement exec::Task, run it with exec::run_task_for):", b)
    print(f"{len(bad)} calls of clock::within or budget checks outside src/exec/stepper.rs and src/clock.rs")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
