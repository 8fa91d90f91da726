"""The peers of `make bench-peers` (issues 12 and 21): what a researcher would write in numpy /
scipy / scikit-learn instead of using Kernel Playground, on the same data (raw little-endian f64
files written once by `examples/peers.rs`). Each subcommand prints one JSON object.

  a-plain PREFIX N D P GAMMA TOL MAXIT  paper A, Algorithm 2.1 as the ten-line numpy script a
                                      researcher writes (issue 21): the dual decrease
                                      Lambda(a) - Lambda(a - t g) from ||u||_q^q, <a, a>, <y, a>,
                                      u = X^T a kept and updated as u - t X^T g; `X @ w` and `X.T @ g`
                                      (two passes over X per iteration). The fastest straightforward
                                      formulation: the row the benchmark calls "ten-line numpy".
  a-gd PREFIX N D P GAMMA TOL MAXIT   paper A, Algorithm 2.1 matching our iterates to rounding: the
                                      same cancellation-free Bregman form of the linesearch test as
                                      src/solvers/dual_lp.rs (about 10 masked array passes per trial
                                      step); the second row, "iterate-matching numpy".
  a-newton PREFIX N D P GAMMA TOL MAXIT   damped Newton on the same dual (Cholesky, Armijo c = 1e-4)
  stream N D                          a numpy read pass over an N x D matrix (X.sum())
  eigh PREFIX N                       the Gram matrix's eigendecomposition, the faster of
                                      numpy.linalg.eigh (LAPACK syevd) and scipy.linalg.eigh (syevr),
                                      and the M-RLSR refit at one m: the root C0 of F (brentq) + alpha
  tensor PREFIX N D                   paper A's Table 2 Gram tensor, polynomial degree 2 at q = 4,
                                      K[i,j,k,l] = (sum_m x_im x_jm x_km x_lm)^2, as numpy users write
                                      it: the pair products Z (n^2 x d, i.e. einsum's tensordot path)
                                      and K = (Z Z^T)^2 (the whole n^4 tensor, BLAS); and with the
                                      pairs i <= j only (the n(n+1)/2 rows of Z: a quarter of the
                                      flops); both timed, the faster reported
  svm-ref PREFIX N LAMBDA             SVC(kernel="precomputed", C = 1/lambda) at tol 1e-12: F
  svm-time PREFIX N LAMBDA TARGET     the SVC fit time at the loosest tol in 1e-1 ... 1e-12 whose
                                      solution reaches F <= TARGET

The paper-A algorithms are written from the paper (DIGEST.md's notation): dual
Lambda(a) = (1/q)||X^T a||_q^q + ||a||^2/(2 gamma) - <y, a>, w(a) = J_q(X^T a), and they stop on the
relative duality gap (gamma/2)||grad Lambda||^2 / F(w) <= TOL, as kplay does; Algorithm 2.1 with the
paper's backtracking, delta = theta = 1/2, step0 = gamma/(2(1 - delta)), at most 80 reductions.
"""
import json
import sys
import time

import numpy as np


def load(prefix, name, shape):
    return np.fromfile(f"{prefix}.{name}.bin", dtype="<f8").reshape(shape)


def bregman(u, h, q):
    """sum_j (1/q)(|u - h|^q - |u|^q) + J_q(u) h, termwise without cancellation."""
    au = np.abs(u)
    out = np.empty_like(u)
    zero = au == 0
    out[zero] = np.abs(h[zero]) ** q / q
    nz = ~zero
    t = -h[nz] / u[nz]
    aq = au[nz] ** q / q
    phi = np.empty_like(t)
    flip = t < -1.0
    small = (np.abs(t) < 1e-3) & ~flip
    big = ~flip & ~small
    phi[big] = np.expm1(q * np.log1p(t[big])) - q * t[big]
    ts = t[small]
    term = 0.5 * q * (q - 1.0) * ts * ts
    s = term.copy()
    for k in range(2, 12):
        term = term * (q - k) * ts / (k + 1.0)
        s += term
    phi[small] = s
    phi = np.maximum(phi, 0.0) * aq
    uf, hf = u[nz][flip], h[nz][flip]
    phi[flip] = (np.abs(uf - hf) ** q - np.abs(uf) ** q) / q + np.sign(uf) * np.abs(uf) ** (q - 1) * hf
    out[nz] = phi
    return out.sum()


def alg21(X, y, p, gamma, tol, maxit):
    q = p / (p - 1.0)
    delta, theta, step0 = 0.5, 0.5, gamma / (2 * (1 - 0.5))
    n, d = X.shape
    a = np.zeros(n)
    u = np.zeros(d)

    def refresh(a, u):
        au = np.abs(u)
        w = np.sign(u) * au ** (q - 1)
        s = (au * np.abs(w)).sum()
        r = X @ w - y
        g = r + a / gamma
        primal = 0.5 * gamma * (r @ r) + s / p
        return g, primal

    g, primal = refresh(a, u)
    it = 0
    while 0.5 * gamma * (g @ g) / abs(primal) > tol and it < maxit:
        g2 = g @ g
        z = X.T @ g
        step = step0
        for _ in range(80):
            b = bregman(u, step * z, q)
            if np.isfinite(b) and step * (delta - step / (2 * gamma)) * g2 >= b:
                break
            step *= theta
        a = a - step * g
        u = u - step * z
        g, primal = refresh(a, u)
        it += 1
    return it, 0.5 * gamma * (g @ g) / abs(primal), primal


def alg21_plain(X, y, p, gamma, tol, maxit):
    """Algorithm 2.1 as a researcher writes it (issue 21): the ten lines of the loop."""
    q = p / (p - 1.0)
    delta, theta, step0 = 0.5, 0.5, gamma / (2 * (1 - 0.5))
    a, u = np.zeros(X.shape[0]), np.zeros(X.shape[1])
    dual = lambda a, s: s / q + (a @ a) / (2 * gamma) - y @ a  # Lambda from ||u||_q^q, <a,a>, <y,a>
    for it in range(maxit + 1):
        w = np.sign(u) * np.abs(u) ** (q - 1)  # J_q(u)
        s = u @ w  # ||u||_q^q
        r = X @ w - y
        g = r + a / gamma
        g2, primal = g @ g, 0.5 * gamma * (r @ r) + s / p
        if 0.5 * gamma * g2 / abs(primal) <= tol or it == maxit:
            break
        z, lam0, t = X.T @ g, dual(a, s), step0
        for _ in range(80):
            if lam0 - dual(a - t * g, (np.abs(u - t * z) ** q).sum()) >= t * (1 - delta) * g2:
                break
            t *= theta
        a, u = a - t * g, u - t * z
    return it, 0.5 * gamma * g2 / abs(primal), primal


def newton(X, y, p, gamma, tol, maxit):
    from scipy.linalg import cho_factor, cho_solve
    q = p / (p - 1.0)
    n, d = X.shape
    a = np.zeros(n)

    def evaluate(a):
        u = X.T @ a
        au = np.abs(u)
        w = np.sign(u) * au ** (q - 1)
        pval = (au * np.abs(w)).sum() / q
        gradp = X @ w
        lam = pval + (a @ a) / (2 * gamma) - y @ a
        mag = abs(pval) + (a * a).sum() / (2 * gamma) + np.abs(y * a).sum()
        return u, pval, gradp, lam, mag

    u, pval, gradp, lam, mag = evaluate(a)
    it = 0
    while True:
        g = gradp + a / gamma - y
        r = gradp - y
        primal = 0.5 * gamma * (r @ r) + (q - 1) * pval
        if 0.5 * gamma * (g @ g) / abs(primal) <= tol or it >= maxit:
            break
        H = (q - 1) * (X * np.abs(u) ** (q - 2)) @ X.T
        H[np.diag_indices(n)] += 1.0 / gamma
        dirn = -cho_solve(cho_factor(H), g)
        slope = g @ dirn
        t = 1.0
        for _ in range(60):
            trial = a + t * dirn
            ut, pt, gpt, lt, magt = evaluate(trial)
            if np.isfinite(lt) and lt <= lam + 1e-4 * t * slope + 8 * np.finfo(float).eps * (magt + mag):
                break
            t *= 0.5
        a, u, pval, gradp, lam, mag = trial, ut, pt, gpt, lt, magt
        it += 1
    return it, 0.5 * gamma * (g @ g) / abs(primal), primal


def svm_objective(K, y, c, lam, b=0.0):
    """C sum hinge(y_i (Kc + b)_i) + c^T K c / 2 with C = 1/lambda: paper C's F(c) when b = 0, and
    SVC's own primal at its (c, b); on data symmetric under (x, y) -> (-x, -y) both minima agree."""
    z = K @ c + b
    return np.maximum(0.0, 1.0 - y * z).sum() / lam + 0.5 * c @ (z - b)


def svm_fit(K, y, lam, tol):
    from sklearn.svm import SVC
    clf = SVC(kernel="precomputed", C=1.0 / lam, tol=tol, cache_size=2000, max_iter=-1)
    t = time.perf_counter()
    clf.fit(K, y)
    ms = (time.perf_counter() - t) * 1e3
    c = np.zeros(len(y))
    c[clf.support_] = clf.dual_coef_[0]
    b = float(clf.intercept_[0])
    return ms, svm_objective(K, y, c, lam, b), b


def main(argv):
    cmd = argv[0]
    if cmd in ("a-gd", "a-plain", "a-newton"):
        prefix, n, d = argv[1], int(argv[2]), int(argv[3])
        p, gamma, tol, maxit = float(argv[4]), float(argv[5]), float(argv[6]), int(argv[7])
        X = np.ascontiguousarray(load(prefix, "X", (n, d)))
        y = load(prefix, "y", (n,))
        f = {"a-gd": alg21, "a-plain": alg21_plain, "a-newton": newton}[cmd]
        t = time.perf_counter()
        it, rel, primal = f(X, y, p, gamma, tol, maxit)
        ms = (time.perf_counter() - t) * 1e3
        print(json.dumps({"iterations": it, "ms": ms, "rel_gap": rel, "primal": primal}))
    elif cmd == "stream":
        n, d = int(argv[1]), int(argv[2])
        X = np.random.default_rng(0).random((n, d))
        best = min(_timed(lambda: X.sum()) for _ in range(7))
        print(json.dumps({"pass_ms": best, "gb_per_s": n * d * 8 / best / 1e6}))
    elif cmd == "eigh":
        import scipy.linalg
        from scipy.optimize import brentq
        prefix, n = argv[1], int(argv[2])
        K = load(prefix, "K", (n, n))
        y = load(prefix, "y", (n,))
        # A competent user takes the faster of numpy's eigh (LAPACK syevd, divide and conquer) and
        # scipy's (syevr): both timed, the faster reported.
        times = {}
        for name, f in (("numpy", np.linalg.eigh), ("scipy", scipy.linalg.eigh)):
            t = time.perf_counter()
            lam, Q = f(K)
            times[name] = (time.perf_counter() - t) * 1e3
        # The M-RLSR refit of Theorem 1 at (m, lambda), as ours times it (examples/peers.rs: m
        # cycling over 1.2, 1.5, 3, lambda = 1e-3): y' = Q^T y kept once; the root C0 of
        # F(C) = (sum 4 d y'^2 / (2d + lambda m n C)^2)^(m/2 - 1) - C by brentq on [0, hi] (hi
        # doubled until F(hi) < 0), then alpha = Q a' and the fitted values Q (d a') in one product.
        d = np.maximum(lam, 0.0)
        qty = Q.T @ y
        num = 4.0 * d * qty * qty
        reps, lmb = 30, 1e-3
        t = time.perf_counter()
        for r in range(reps):
            m = (1.2, 1.5, 3.0)[r % 3]
            F = lambda C: (num / (2.0 * d + lmb * m * n * C) ** 2).sum() ** (0.5 * m - 1.0) - C
            hi = 1.0
            while F(hi) > 0:
                hi *= 2.0
            c0 = brentq(F, 0.0, hi, xtol=1e-14 * hi, rtol=4 * np.finfo(float).eps)
            ap = 2.0 * qty / (2.0 * d + lmb * m * n * c0)
            alpha_fitted = Q @ np.column_stack((ap, d * ap))
        refit = (time.perf_counter() - t) * 1e3 / reps
        best = min(times, key=times.get)
        print(json.dumps({"eigen_ms": times[best], "eigen_by": best, "eigen_all_ms": times, "refit_ms": refit}))
    elif cmd == "tensor":
        prefix, n, d = argv[1], int(argv[2]), int(argv[3])
        X = load(prefix, "X", (n, d))
        times = {}
        t = time.perf_counter()
        Z = (X[:, None, :] * X[None, :, :]).reshape(n * n, d)
        K = Z @ Z.T
        K **= 2
        times["full"] = (time.perf_counter() - t) * 1e3
        check = float(K[0, 1 * n + 2]) if n > 2 else 0.0  # K[0,1,2,3]... as (i,j),(k,l) = (0,0),(1,2)
        del K, Z
        t = time.perf_counter()
        i, j = np.triu_indices(n)
        Zp = X[i] * X[j]
        Kp = Zp @ Zp.T
        Kp **= 2
        times["pairs"] = (time.perf_counter() - t) * 1e3
        best = min(times, key=times.get)
        print(json.dumps({"ms": times[best], "by": best, "all_ms": times, "values_full": n ** 4, "values_pairs": Kp.size, "check": check}))
    elif cmd == "svm-ref":
        prefix, n, lam = argv[1], int(argv[2]), float(argv[3])
        K = load(prefix, "K", (n, n))
        y = load(prefix, "y", (n,))
        ms, F, b = svm_fit(K, y, lam, 1e-12)
        print(json.dumps({"objective": F, "intercept": b, "ms": ms}))
    elif cmd == "svm-time":
        prefix, n, lam, target = argv[1], int(argv[2]), float(argv[3]), float(argv[4])
        K = load(prefix, "K", (n, n))
        y = load(prefix, "y", (n,))
        for e in range(1, 13):
            ms, F, b = svm_fit(K, y, lam, 10.0 ** -e)
            if F <= target:
                print(json.dumps({"ms": ms, "tol": 10.0 ** -e, "objective": F, "intercept": b}))
                return
        print(json.dumps({"ms": None}))
    else:
        raise SystemExit(f"unknown command {cmd}")


def _timed(f):
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1e3


if __name__ == "__main__":
    main(sys.argv[1:])
