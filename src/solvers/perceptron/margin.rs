//! The margin ρ_K of paper D (Ramdas–Peña, Eq. (5) and Lemma 3),
//! `ρ_K = sup_{‖α‖_G = 1} min_i (Gα)_i`, computed independently of the perceptrons and returned
//! with a certified bracket `[lower, upper]`.
//!
//! Two facts give the bracket:
//! * every α with `‖α‖_G > 0` gives `ρ_K ≥ min_i (Gα)_i / ‖α‖_G` (definition), and every
//!   `p ∈ Δ_n` gives `ρ_K ≤ ‖p‖_G` (Lemma 3, Cauchy–Schwarz);
//! * when the data are separable the two meet: `ρ_K = min_{p∈Δ} ‖p‖_G`, the distance from the
//!   origin to the convex hull of the `y_i φ̃(x_i)` (minimax in Lemma 3's proof). We solve
//!   `min_{p∈Δ} ½ pᵀGp` by pairwise Frank–Wolfe with exact line search; at any p, with
//!   `a = pᵀGp` and `m = min_i (Gp)_i`, α = p certifies `ρ_K ≥ m/√a` and p certifies `ρ_K ≤ √a`,
//!   so the bracket's relative width is the Frank–Wolfe gap `(a − m)/a`.
//!
//! When inseparable, `ρ_K ≤ 0` and `|ρ_K|` is the radius of the largest ball about the origin
//! inside the hull, within the span of the `y_i φ̃(x_i)` (Theorem 3). The min-norm point only
//! shows `ρ_K ≤ ‖p‖_G ≈ 0`. For a G of rank ≤ 2 (any 2-D linear kernel) `|ρ_K|` is computed
//! exactly from a 2-D factor of G (distance from the origin to the nearest edge of the hull
//! polygon); for higher rank (a vertex-enumeration problem in general) a local search over
//! directions gives a certified lower end `ρ_K ≥ min_i(Gα)_i/‖α‖_G`, and the bracket stays
//! `[that, ‖p‖_G]`.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::error::{KpError, Result};

/// Accuracy and effort of [`margin`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MarginOptions {
    /// Stop the min-norm solve when the bracket's relative width `(a − m)/a` is below this.
    pub rel_tol: f64,
    /// Declare the data inseparable when `min ‖p‖_G ≤ zero_tol` (an ε-certificate, ε = zero_tol).
    pub zero_tol: f64,
    /// Cap on Frank–Wolfe iterations (each O(n)).
    pub max_iter: usize,
    /// Iterations of the direction search per start (inseparable case, rank ≥ 3).
    pub search_iter: usize,
}

impl Default for MarginOptions {
    fn default() -> Self {
        Self { rel_tol: 1e-6, zero_tol: 1e-7, max_iter: 200_000, search_iter: 3_000 }
    }
}

/// The minimum-G-norm point of the simplex (the point of the hull nearest the origin).
#[derive(Debug, Clone, PartialEq)]
pub struct MinNormPoint {
    /// The final iterate p ∈ Δ_n.
    pub p: DVector<f64>,
    /// `‖p‖_G`, an upper bound on `min_{Δ} ‖·‖_G` and on ρ_K.
    pub norm_g: f64,
    /// `max(0, min_i (Gp)_i/‖p‖_G)`: a certified lower bound on `min_{Δ} ‖·‖_G`.
    pub lower: f64,
    /// Frank–Wolfe gap `pᵀGp − min_i (Gp)_i`.
    pub fw_gap: f64,
    /// Iterations done.
    pub iterations: usize,
}

/// Whether the data are separable, as far as the computation certifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Separability {
    /// `ρ_K ≥ lower > 0` is certified by α = p.
    Separable,
    /// A p ∈ Δ with `‖p‖_G ≤ zero_tol` was found.
    Inseparable,
    /// The iteration cap came first.
    Undecided,
}

/// ρ_K with a certified bracket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Margin {
    /// Best estimate of ρ_K (the bracket's midpoint when separable; the exact value for
    /// inseparable data of rank ≤ 2; the lower end otherwise).
    pub rho: f64,
    /// Certified `ρ_K ≥ lower` (from `alpha`).
    pub lower: f64,
    /// Certified `ρ_K ≤ upper` (from `p`, or from the exact 2-D computation).
    pub upper: f64,
    /// What the min-norm computation certified.
    pub separability: Separability,
    /// Whether `rho` is exact to rounding (separable to `rel_tol`, or the rank ≤ 2 computation).
    pub exact: bool,
    /// Witness of the lower end: `min_i (Gα)_i/‖α‖_G = lower`.
    pub alpha: Vec<f64>,
    /// The min-norm point: `‖p‖_G` bounds ρ_K from above.
    pub p: Vec<f64>,
    /// Frank–Wolfe iterations.
    pub iterations: usize,
}

fn check_gram(g: &DMatrix<f64>) -> Result<usize> {
    let n = g.nrows();
    if n == 0 || g.ncols() != n {
        return Err(KpError::Parameter {
            name: "G",
            reason: format!("must be a non-empty square matrix (got {}×{})", n, g.ncols()),
        });
    }
    if g.iter().any(|v| !v.is_finite()) {
        return Err(KpError::NonFinite("the normalized Gram matrix".into()));
    }
    Ok(n)
}

/// `min_{p∈Δ_n} ½ pᵀGp` by pairwise Frank–Wolfe with exact line search (each iteration moves
/// weight from the away vertex `argmax_{p_i>0} (Gp)_i` to the Frank–Wolfe vertex
/// `argmin_i (Gp)_i`; O(n) with `Gp` updated by two columns of G, refreshed every n iterations).
/// Stops when `(a − m) ≤ rel_tol·a` with `m > 0`, when `‖p‖_G ≤ abs_tol`, or at `max_iter`.
pub fn min_norm_point(
    g: &DMatrix<f64>,
    rel_tol: f64,
    abs_tol: f64,
    max_iter: usize,
) -> Result<MinNormPoint> {
    let mut search = MinNormSearch::new(g, rel_tol, abs_tol, max_iter)?;
    while !search.advance(g, usize::MAX) {}
    Ok(search.finish(g))
}

/// [`min_norm_point`] as a resumable state, so a page can spread its iterations over frames
/// (the same iterates: [`min_norm_point`] is a loop over [`Self::advance`]).
#[derive(Debug, Clone)]
pub struct MinNormSearch {
    p: DVector<f64>,
    gp: DVector<f64>,
    it: usize,
    rel_tol: f64,
    abs_tol: f64,
    max_iter: usize,
    done: bool,
}

impl MinNormSearch {
    /// Start at the centre of the simplex.
    pub fn new(g: &DMatrix<f64>, rel_tol: f64, abs_tol: f64, max_iter: usize) -> Result<Self> {
        let n = check_gram(g)?;
        let p = DVector::from_element(n, 1.0 / n as f64);
        // `Gp` on the first `advance` (so a search replaced before it runs costs nothing).
        let gp = DVector::zeros(0);
        Ok(Self { p, gp, it: 0, rel_tol, abs_tol, max_iter, done: false })
    }

    /// At most `iters` Frank–Wolfe iterations on the same `g`; returns whether the search has
    /// stopped.
    pub fn advance(&mut self, g: &DMatrix<f64>, iters: usize) -> bool {
        if self.done {
            return true;
        }
        let n = self.p.len();
        if self.gp.len() != n {
            self.gp = g * &self.p;
        }
        let (p, gp) = (&mut self.p, &mut self.gp);
        for _ in 0..iters {
            let a = p.dot(gp).max(0.0);
            let (s, m) = gp.argmin();
            if a.sqrt() <= self.abs_tol
                || (m > 0.0 && a - m <= self.rel_tol * a)
                || self.it >= self.max_iter
            {
                self.done = true;
                break;
            }
            let mut aw = s;
            let mut best = f64::NEG_INFINITY;
            for i in 0..n {
                if p[i] > 0.0 && gp[i] > best {
                    best = gp[i];
                    aw = i;
                }
            }
            let slope = best - m;
            let curv = 2.0 - 2.0 * g[(s, aw)];
            if !(slope > 0.0 && curv > 0.0) {
                self.done = true; // stationary to rounding
                break;
            }
            let step = (slope / curv).min(p[aw]);
            p[s] += step;
            if step >= p[aw] {
                p[aw] = 0.0;
            } else {
                p[aw] -= step;
            }
            for i in 0..n {
                gp[i] += step * (g[(i, s)] - g[(i, aw)]);
            }
            self.it += 1;
            if self.it.is_multiple_of(n.max(64)) {
                let sum = p.sum();
                *p /= sum;
                gp.gemv(1.0, g, p, 0.0);
            }
        }
        self.done
    }

    /// The weights `p` (not yet normalized) and the iterations of a stopped search, for a
    /// worker to hand over ([`Self::resume_stopped`]); `None` while it runs.
    pub fn stopped_state(&self) -> Option<(&[f64], usize)> {
        self.done.then_some((self.p.as_slice(), self.it))
    }

    /// A stopped search at the weights `p` after `it` iterations (a worker's
    /// [`Self::stopped_state`] on the same `g`), for [`Self::finish`], which normalizes `p` and
    /// recomputes `Gp` and the bracket from `p` and `g` alone: `min_i (Gp)_i/‖p‖_G ≤ ρ_K ≤ ‖p‖_G`
    /// holds for every p in the simplex, so weights from elsewhere can widen the bracket, never
    /// falsify it. Refused: a length other than n, a negative or non-finite weight, a zero sum,
    /// `it` above `max_iter`.
    pub fn resume_stopped(
        g: &DMatrix<f64>,
        p: Vec<f64>,
        it: usize,
        rel_tol: f64,
        abs_tol: f64,
        max_iter: usize,
    ) -> Result<Self> {
        let n = check_gram(g)?;
        let bad = |reason: String| KpError::Parameter { name: "margin weights", reason };
        if p.len() != n {
            return Err(bad(format!("{} weights handed over for {n} points", p.len())));
        }
        if let Some(i) = p.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(bad(format!("weight {i} is {} (must be finite and ≥ 0)", p[i])));
        }
        if p.iter().sum::<f64>() <= 0.0 {
            return Err(bad("the weights sum to 0".into()));
        }
        if it > max_iter {
            return Err(bad(format!("{it} iterations handed over; the cap is {max_iter}")));
        }
        let p = DVector::from_vec(p);
        // `Gp` is computed by `finish`; `advance` returns at once on a stopped search.
        let gp = DVector::zeros(0);
        Ok(Self { p, gp, it, rel_tol, abs_tol, max_iter, done: true })
    }

    /// Iterations done.
    pub fn iterations(&self) -> usize {
        self.it
    }

    /// The cap on iterations.
    pub fn max_iter(&self) -> usize {
        self.max_iter
    }

    /// The result at the current iterate (normalized and with `Gp` recomputed).
    pub fn finish(mut self, g: &DMatrix<f64>) -> MinNormPoint {
        let sum = self.p.sum();
        self.p /= sum;
        if self.gp.len() != self.p.len() {
            self.gp = DVector::zeros(self.p.len());
        }
        self.gp.gemv(1.0, g, &self.p, 0.0);
        let a = self.p.dot(&self.gp).max(0.0);
        let m = self.gp.min();
        let norm_g = a.sqrt();
        let lower = if m > 0.0 && norm_g > 0.0 { m / norm_g } else { 0.0 };
        MinNormPoint { p: self.p, norm_g, lower, fw_gap: a - m, iterations: self.it }
    }
}

/// `min_i (Gα)_i / ‖α‖_G`, the normalized margin of α (a lower bound on ρ_K); None if `‖α‖_G = 0`.
pub fn normalized_margin(g: &DMatrix<f64>, alpha: &DVector<f64>) -> Option<f64> {
    let ga = g * alpha;
    let nrm = alpha.dot(&ga);
    if nrm > 0.0 {
        Some(ga.min() / nrm.sqrt())
    } else {
        None
    }
}

/// ρ_K with a certified bracket (see the module documentation).
pub fn margin(g: &DMatrix<f64>, opts: &MarginOptions) -> Result<Margin> {
    check_gram(g)?;
    if !(opts.rel_tol > 0.0 && opts.zero_tol > 0.0) {
        return Err(KpError::Parameter { name: "margin tolerances", reason: "must be > 0".into() });
    }
    let mnp = min_norm_point(g, opts.rel_tol, opts.zero_tol, opts.max_iter)?;
    margin_from(g, opts, mnp)
}

/// ρ_K from a finished min-norm search ([`MinNormSearch`] run in slices by a page): the same
/// bracket as [`margin`].
pub fn margin_from(g: &DMatrix<f64>, opts: &MarginOptions, mnp: MinNormPoint) -> Result<Margin> {
    let n = check_gram(g)?;
    let p: Vec<f64> = mnp.p.iter().copied().collect();
    if mnp.lower > 0.0 {
        return Ok(Margin {
            rho: 0.5 * (mnp.lower + mnp.norm_g),
            lower: mnp.lower,
            upper: mnp.norm_g,
            separability: Separability::Separable,
            exact: mnp.norm_g - mnp.lower <= 2.0 * opts.rel_tol * mnp.norm_g,
            alpha: p.clone(),
            p,
            iterations: mnp.iterations,
        });
    }
    let separability = if mnp.norm_g <= opts.zero_tol {
        Separability::Inseparable
    } else {
        Separability::Undecided
    };
    // Inseparable (or undecided): the depth of the origin inside the hull.
    if let Some((depth, alpha)) = plane_depth(g) {
        let lower = normalized_margin(g, &alpha).unwrap_or(-depth).min(-depth);
        let upper =
            if separability == Separability::Inseparable { -depth + 1e-9 } else { mnp.norm_g };
        return Ok(Margin {
            rho: -depth,
            lower,
            upper: upper.min(mnp.norm_g),
            separability,
            exact: separability == Separability::Inseparable,
            alpha: alpha.iter().copied().collect(),
            p,
            iterations: mnp.iterations,
        });
    }
    let (lower, alpha) = direction_search(g, n, opts.search_iter);
    Ok(Margin {
        rho: lower,
        lower,
        upper: mnp.norm_g,
        separability,
        exact: false,
        alpha: alpha.iter().copied().collect(),
        p,
        iterations: mnp.iterations,
    })
}

/// For G of rank ≤ 2 (checked to 1e-10), the depth `δ ≥ 0` of the origin in the hull of the
/// `v_i` (distance to the nearest edge, 0 if the origin is not strictly inside) and a unit α
/// with `min_i (Gα)_i = −δ`. None if the rank exceeds 2.
fn plane_depth(g: &DMatrix<f64>) -> Option<(f64, DVector<f64>)> {
    let n = g.nrows();
    // Basis: e1 = v_0, e2 = the normalized part of the most orthogonal v_j.
    let (mut j, mut best) = (0, 0.0);
    for k in 0..n {
        let o = 1.0 - g[(0, k)] * g[(0, k)];
        if o > best {
            best = o;
            j = k;
        }
    }
    if best < 1e-10 {
        // Rank 1: every v_k = ±v_0. Inseparable iff both signs occur; then ρ_K = −1.
        let both = (0..n).any(|k| g[(0, k)] < 0.0);
        let mut alpha = DVector::zeros(n);
        alpha[0] = 1.0;
        return Some((if both { 1.0 } else { 0.0 }, alpha));
    }
    let s = best.sqrt();
    let g0j = g[(0, j)];
    let pts: Vec<(f64, f64)> =
        (0..n).map(|k| (g[(k, 0)], (g[(k, j)] - g0j * g[(k, 0)]) / s)).collect();
    let residual = (0..n)
        .map(|k| (g[(k, k)] - pts[k].0 * pts[k].0 - pts[k].1 * pts[k].1).abs())
        .fold(0.0, f64::max);
    if residual > 1e-10 {
        return None;
    }
    let hull = convex_hull(&pts);
    if hull.len() < 3 {
        // A segment: the origin is not interior to a 2-D hull.
        let mut alpha = DVector::zeros(n);
        alpha[0] = 1.0;
        return Some((0.0, alpha));
    }
    let mut depth = f64::INFINITY;
    let mut normal = (1.0, 0.0);
    for e in 0..hull.len() {
        let a = hull[e];
        let b = hull[(e + 1) % hull.len()];
        let t = (b.0 - a.0, b.1 - a.1);
        let len = (t.0 * t.0 + t.1 * t.1).sqrt();
        let nrm = (t.1 / len, -t.0 / len); // outward for a counter-clockwise polygon
        let d = nrm.0 * a.0 + nrm.1 * a.1;
        if d < depth {
            depth = d;
            normal = nrm;
        }
    }
    let depth = depth.max(0.0);
    // Direction u = −normal, written as α: u = u1 v_0 + u2 (v_j − G_0j v_0)/s.
    let (u1, u2) = (-normal.0, -normal.1);
    let mut alpha = DVector::zeros(n);
    alpha[0] += u1 - u2 * g0j / s;
    alpha[j] += u2 / s;
    Some((depth, alpha))
}

/// Andrew's monotone chain; counter-clockwise, collinear points dropped.
pub fn convex_hull(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = pts.to_vec();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    v.dedup();
    if v.len() < 3 {
        return v;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut h: Vec<(f64, f64)> = Vec::with_capacity(2 * v.len());
    for &pt in &v {
        while h.len() >= 2 && cross(h[h.len() - 2], h[h.len() - 1], pt) <= 0.0 {
            h.pop();
        }
        h.push(pt);
    }
    let lower_len = h.len() + 1;
    for &pt in v.iter().rev().skip(1) {
        while h.len() >= lower_len && cross(h[h.len() - 2], h[h.len() - 1], pt) <= 0.0 {
            h.pop();
        }
        h.push(pt);
    }
    h.pop();
    h
}

/// Local search for `max_{‖α‖_G=1} min_i (Gα)_i` (projected supergradient ascent on the sphere,
/// `α ← α + η_t e_{i*}` then renormalize, from the few columns of G with the largest minimum).
/// Returns the best normalized margin found (a certified lower bound on ρ_K) and its α.
fn direction_search(g: &DMatrix<f64>, n: usize, iters: usize) -> (f64, DVector<f64>) {
    let mut starts: Vec<(f64, usize)> = (0..n).map(|j| (g.column(j).min(), j)).collect();
    starts.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut best = (f64::NEG_INFINITY, DVector::zeros(n));
    for &(val, j) in starts.iter().take(4) {
        let mut alpha = DVector::zeros(n);
        alpha[j] = 1.0;
        let mut ga = g.column(j).into_owned();
        if val > best.0 {
            best = (val, alpha.clone());
        }
        for t in 0..iters {
            let (i, _) = ga.argmin();
            let eta = 0.5 / ((t + 1) as f64).sqrt();
            alpha[i] += eta;
            for r in 0..n {
                ga[r] += eta * g[(r, i)];
            }
            let nrm = alpha.dot(&ga).max(0.0).sqrt();
            if nrm <= 0.0 {
                break;
            }
            alpha /= nrm;
            ga /= nrm;
            let v = ga.min();
            if v > best.0 {
                best = (v, alpha.clone());
            }
        }
    }
    // Re-evaluate the winner from scratch so the bound does not depend on the running updates.
    let v = normalized_margin(g, &best.1).unwrap_or(f64::NEG_INFINITY);
    (v, best.1)
}
