#!/usr/bin/env python3
"""Record what `kplay run` and `kplay race` say on a fixed set of specs, every paper, so that a
refactor can be compared before and after ("a refactor changes no number").

    python3 tools/record-runs.py record OUT.jsonl [--kplay PATH]
    python3 tools/record-runs.py compare A.jsonl B.jsonl

Each line of OUT is one spec's outcome with every timing field removed: status, iterations,
objective bits (JSON keeps f64 exactly), data digest, solution, trace, race standings — or the
error message when the spec is refused. `compare` prints every spec whose outcome differs and
exits 1 if any does.
"""

import copy
import json
import subprocess
import sys
import tempfile

TIME_KEYS = {"time_ms", "elapsed_ms", "setup_ms", "ms", "build_ms", "solve_ms", "wall_ms"}


def strip_times(v):
    if isinstance(v, dict):
        return {k: strip_times(x) for k, x in v.items() if k not in TIME_KEYS and not k.endswith("_ms")}
    if isinstance(v, list):
        return [strip_times(x) for x in v]
    return v


def specs():
    """(name, spec) pairs: each paper's default and its algorithms, losses and rules."""
    lp = {"data": {"d": 300, "k": 5, "kind": "sparse_regression", "n": 50, "seed": 1, "sigma": 0.05},
          "model": {"gamma": 10.0, "p": 4 / 3, "problem": "lp_regression"},
          "solver": {"algorithm": "dual_gradient", "delta": 0.5, "max_iter": 3000, "theta": 0.5, "tol": 1e-10}}
    out = [("lp/default-small", lp)]
    for alg in ["prox_dual", "dual_newton", "primal_gd", "fista"]:
        s = copy.deepcopy(lp)
        s["solver"]["algorithm"] = alg
        out.append((f"lp/{alg}", s))
    for p in [1.1, 1.25, 1.5]:
        s = copy.deepcopy(lp)
        s["model"]["p"] = p
        out.append((f"lp/p{p}", s))
    s = copy.deepcopy(lp)
    s["model"]["loss"] = {"kind": "huber", "rho": 1.0}
    s["solver"]["algorithm"] = "prox_dual"
    out.append(("lp/huber", s))
    s = copy.deepcopy(lp)
    s["model"]["loss"] = {"kind": "eps_insensitive", "eps": 0.1}
    s["solver"]["algorithm"] = "prox_dual"
    out.append(("lp/eps", s))
    s = copy.deepcopy(lp)
    s["model"]["kernel"] = {"kind": "linear"}
    s["model"]["path"] = "tensor"
    s["data"].update(n=12, d=40)
    s["solver"]["algorithm"] = "prox_dual"
    out.append(("lp/tensor", s))

    mr = {"data": {"kind": "sine", "n": 100, "seed": 1, "sigma": 0.2},
          "kernel": {"bandwidth": "heuristic", "kind": "gaussian"}, "lambda": 0.001, "m": 1.5, "paper": "mrlsr"}
    out.append(("mrlsr/default", mr))
    for m in [0.5, 2.0, 3.0]:
        s = copy.deepcopy(mr)
        s["m"] = m
        out.append((f"mrlsr/m{m}", s))

    dz = {"data": {"kind": "classification", "label_noise": 0.05, "n": 200, "seed": 1,
                   "shape": {"kind": "moons", "noise": 0.15}},
          "kernel": {"bandwidth": {"fixed": 0.5}, "kind": "gaussian"}, "lambda": 0.1, "loss": {"kind": "hinge"},
          "method": {"kind": "coordinate", "max_sweeps": 20000, "rule": "cyclic", "seed": 1, "tol": 1e-08},
          "paper": "dinuzzo", "race": False}
    out.append(("dinuzzo/default", dz))
    for rule in ["aitken_double_sweep", "randomized_cyclic", "greedy", "greedy_pairs"]:
        s = copy.deepcopy(dz)
        s["method"]["rule"] = rule
        out.append((f"dinuzzo/{rule}", s))
    for loss in [{"kind": "square"}, {"kind": "logistic"}, {"kind": "squared_hinge"}]:
        s = copy.deepcopy(dz)
        s["loss"] = loss
        out.append((f"dinuzzo/{loss['kind']}", s))
    s = copy.deepcopy(dz)
    s["method"] = {"kind": "fixed_point", "step": {"kind": "inverse_norm"}, "tol": 1e-6, "max_sweeps": 20000}
    out.append(("dinuzzo/fixed_point", s))

    pc = {"algorithm": {"kind": "perceptron"},
          "data": {"kind": "generated", "set": {"label_noise": 0.0, "n": 60, "seed": 1,
                                                "shape": {"kind": "blobs", "margin": 0.3, "spread": 0.5}}},
          "kernel": {"kind": "linear"}, "max_iter": 100000, "paper": "perceptron"}
    out.append(("perceptron/default", pc))
    for alg in [{"kind": "nkp"}, {"kind": "snkp"}, {"kind": "nvn", "epsilon": 0.01},
                {"kind": "snkpvn", "delta": 0.01}, {"kind": "isnkpvn", "gamma": 2.0, "epsilon": 0.01}]:
        s = copy.deepcopy(pc)
        s["algorithm"] = alg
        out.append((f"perceptron/{alg['kind']}", s))
    s = copy.deepcopy(pc)
    s["data"]["set"]["label_noise"] = 0.2
    s["algorithm"] = {"kind": "isnkpvn", "gamma": 2.0, "epsilon": 0.01}
    out.append(("perceptron/inseparable", s))
    return out


def kplay(path, *args):
    p = subprocess.run([path, *args], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return {"error": p.stderr.strip()}
    return strip_times(json.loads(p.stdout))


def record(out_path, kplay_path):
    with tempfile.TemporaryDirectory() as tmp, open(out_path, "w") as out:
        for name, spec in specs():
            f = f"{tmp}/spec.json"
            with open(f, "w") as fh:
                json.dump(spec, fh)
            row = {"name": name, "run": kplay(kplay_path, "run", f)}
            if not name.startswith("mrlsr"):
                row["race"] = kplay(kplay_path, "race", f)
            out.write(json.dumps(row, sort_keys=True) + "\n")
            print(name, row["run"].get("status", row["run"].get("error")), row["run"].get("iterations", ""))


def diffs(a, b, path=""):
    """Paths where b differs from a; keys only in b are reported apart as additions."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in b:
                out.append(("removed", f"{path}.{k}"))
            elif k not in a:
                out.append(("added", f"{path}.{k}"))
            else:
                out += diffs(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += diffs(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [("changed", f"{path}: {json.dumps(a)[:80]} -> {json.dumps(b)[:80]}")]


def compare(a_path, b_path):
    """Every spec's outcome in B against A: a changed or removed value is a difference; a field
    only B has (a new readout) is listed as an addition, not a difference."""
    a = {json.loads(l)["name"]: json.loads(l) for l in open(a_path)}
    b = {json.loads(l)["name"]: json.loads(l) for l in open(b_path)}
    bad = 0
    added = set()
    for name in sorted(set(a) | set(b)):
        d = diffs(a.get(name), b.get(name))
        real = [x for x in d if x[0] != "added"]
        added |= {x[1].split("[")[0] for x in d if x[0] == "added"}
        if real:
            bad += 1
            print(f"DIFFERS: {name}")
            for kind, what in real[:8]:
                print(f"    {kind} {what}")
    if added:
        print("added fields:", ", ".join(sorted(added)))
    print(f"{len(set(a) | set(b)) - bad} equal, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "record":
        k = sys.argv[sys.argv.index("--kplay") + 1] if "--kplay" in sys.argv else "target/release/kplay"
        record(sys.argv[2], k)
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        print(__doc__)
        sys.exit(2)
