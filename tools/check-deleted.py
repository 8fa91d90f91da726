#!/usr/bin/env python3
"""Fail when a protocol that issue 34 deleted comes back: its name as a whole word in the code
(src/, tests/, benches/, examples/, www/, tools/ other than this file). The four papers' algorithms
implement `exec::Stepper` directly and run under the executor (`Run`, a race's lanes), which
alone owns the cap, the tolerance, the trace and the stop words; a second protocol beside it is
what the issue removed. The `engine` module is gone too (issue 34 §5: the executor is `src/exec/`,
each paper's run, race and plot are in `src/papers/<paper>/`): the folder `src/engine/` and any
`engine::` path are refused.
The docs may still name them where they record history (docs/deploy.md's measurements).

    python3 tools/check-deleted.py
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..")

# Deleted name → what replaced it.
DELETED = {
    "KernelPerceptron": "paper D's algorithms implement exec::Stepper directly",
    "run_to_outcome": "exec::Run (with_cap, run) and solvers::perceptron::Outcome::of",
    "Capped": "the executor's cap: Run::with_cap, Watch::with_cap, Race::capped",
    "Driver": "paper A's algorithms implement exec::Stepper; exec::Run (papers::lp::watch_to) owns tol and cap",
    "solvers::Solver": "paper A's algorithms implement exec::Stepper directly",
    "trait Solver": "paper A's algorithms implement exec::Stepper directly",
    "PaperASolver": "papers::lp::LpAlgorithm, a Stepper (its alpha() and w() for the predictor)",
    "StepRecord": "exec::Record (paper A's measures as its primal, dual, gap, rel_gap, step, backtracks)",
    "force_step": "a run continued under a higher cap (Run::into_stepper, Run::with_watch)",
    "RootStatus": "paper B's root solve is a Stepper (own stop: the root found); its cap is the executor's",
    "RootStep": "exec::Record (F(C) as the residual, C as the step); RootSolve::bracket, log_residual",
    "ValidExperiment": "papers::lp::LpProblem (LpSpec → LpChecked → LpProblem: the checked parameters with the data built)",
    "engine::": "the executor is crate::exec, the tagged Spec and run/race/data/svg_plots are crate::papers, each paper's run in papers::<paper>::run",
}
# A name ending in a word character ends at a word boundary; `engine::` ends with its `::`.
PATTERN = re.compile(
    r"\b(" + "|".join(re.escape(n) + (r"\b" if n[-1].isalnum() else "") for n in DELETED) + r")"
)
EXTS = (".rs", ".js", ".mjs", ".py", ".html")
SKIP_DIRS = {"pkg", "pkg-threads", "node_modules", "target", "dist"}


def sources():
    me = os.path.abspath(__file__)
    for top in ("src", "tests", "benches", "examples", "www", "tools"):
        for root, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            for f in sorted(files):
                path = os.path.join(root, f)
                if f.endswith(EXTS) and os.path.abspath(path) != me:
                    yield path


def main():
    bad = []
    if os.path.exists(os.path.join(ROOT, "src", "engine")):
        bad.append("src/engine/ exists again: it was dissolved (issue 34 §5) into src/exec/ and src/papers/")
    for path in sources():
        with open(path, encoding="utf-8", errors="replace") as fh:
            for no, line in enumerate(fh, 1):
                for m in PATTERN.finditer(line):
                    rel = os.path.relpath(path, ROOT)
                    bad.append(f"{rel}:{no}: `{m.group(1)}` was deleted (issue 34): {DELETED[m.group(1)]}")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} use(s) of deleted protocols")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
