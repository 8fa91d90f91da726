//! The Gram tensor of paper A (eq. 15), stored once per symmetry class and built as a
//! steppable state after its cost and memory check; its value, gradient ω and Hessian as a
//! [`DualPolynomial`] (one pass each over the symmetry classes).

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::classes::*;
use super::config::*;
use super::cost::*;
use crate::error::{KpError, Result};
use crate::lp::DualPolynomial;

// The build, as a steppable state.

/// Progress of a Gram-tensor build: `done` of `total` values computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BuildProgress {
    pub done: u64,
    pub total: u64,
}

impl BuildProgress {
    /// Fraction done, in [0, 1].
    pub fn fraction(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.done as f64 / self.total as f64
        }
    }
    /// Whether every value is computed.
    pub fn is_done(&self) -> bool {
        self.done >= self.total
    }
}

/// A Gram-tensor build in progress (Section 2.3): call [`advance`](Self::advance) until done
/// (the page draws a progress bar and may drop the state between calls to cancel), then
/// [`finish`](Self::finish).
pub struct GramTensorBuild {
    cfg: TensorKernelConfig,
    cost: TensorCost,
    /// Inputs, n × d.
    x: DMatrix<f64>,
    /// Inputs transposed, d × n (a sample per contiguous column).
    xt: DMatrix<f64>,
    values: Vec<f64>,
    /// The current block's suffix `(i3, …, iq)`, sorted.
    suffix: Vec<usize>,
    more: bool,
    error: Option<KpError>,
    /// One scratch per thread the build may use ([`crate::par::threads`] when it was created,
    /// the memory checked for all of them): each block is computed by one thread, in one
    /// scratch, exactly as on one thread, and appended in order (the same bits for any count).
    scratch: Vec<BlockScratch>,
}

/// The work space of one block: `v` (d), the scaled inputs `c` (d × n), the product `m` (n × n)
/// and the block's values.
struct BlockScratch {
    v: DVector<f64>,
    c: DMatrix<f64>,
    m: DMatrix<f64>,
    out: Vec<f64>,
}

impl GramTensorBuild {
    /// Check the inputs, estimate the cost, refuse a build over `max_bytes`, and allocate.
    pub fn new(x: &DMatrix<f64>, cfg: TensorKernelConfig, max_bytes: u64) -> Result<Self> {
        let (n, d) = x.shape();
        let cost = estimate_cost(n, d, &cfg)?;
        // Scratch of the build: the inputs twice, and per thread the scaled block (d × n), the
        // product (n × n) and one block's values (at most n(n+1)/2).
        let (nu, du) = (n as u64, d as u64);
        let workers = crate::par::threads();
        let per_thread = nu
            .saturating_mul(du)
            .saturating_add(nu.saturating_mul(nu))
            .saturating_add(nu.saturating_mul(nu + 1) / 2)
            .saturating_add(du);
        let scratch = nu
            .saturating_mul(du)
            .saturating_mul(2)
            .saturating_add(per_thread.saturating_mul(workers as u64))
            .saturating_mul(8);
        check_budget(
            "the Gram tensor",
            cost.bytes.saturating_add(scratch),
            max_bytes,
            &format!(
                "{} values of 8 bytes, one per symmetry class, C(n+q−1, q) with n = {n}, q = {}",
                cost.entries, cfg.q
            ),
        )?;
        check_finite_inputs(x)?;
        let total = usize::try_from(cost.entries).map_err(|_| KpError::Parameter {
            name: "n",
            reason: format!("{} values do not fit in this platform's address space", cost.entries),
        })?;
        let mut values = Vec::new();
        values.try_reserve_exact(total).map_err(|_| KpError::Parameter {
            name: "memory budget",
            reason: format!("could not allocate {} bytes for the Gram tensor", cost.bytes),
        })?;
        Ok(Self {
            cfg,
            cost,
            x: x.clone(),
            xt: x.transpose(),
            values,
            suffix: vec![0; cfg.q - 2],
            more: true,
            error: None,
            scratch: (0..workers)
                .map(|_| BlockScratch {
                    v: DVector::zeros(d),
                    c: DMatrix::zeros(d, n),
                    m: DMatrix::zeros(n, n),
                    out: Vec::with_capacity(n * (n + 1) / 2),
                })
                .collect(),
        })
    }

    /// The cost estimate (known before any value is computed).
    pub fn cost(&self) -> &TensorCost {
        &self.cost
    }

    /// Whether every value is computed (then call [`finish`](Self::finish)).
    pub fn is_done(&self) -> bool {
        !self.more
    }

    /// Values computed so far, of the total.
    pub fn progress(&self) -> BuildProgress {
        BuildProgress { done: self.values.len() as u64, total: self.cost.entries }
    }

    /// Compute the next blocks, at least one and about `max_entries` values; returns the
    /// progress. A non-finite kernel value stops the build with an error naming the tuple
    /// (and every later call returns the same error).
    pub fn advance(&mut self, max_entries: usize) -> Result<BuildProgress> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let start = self.values.len();
        let workers = self.scratch.len().min(crate::par::threads()).max(1);
        while self.more {
            // The next `workers` blocks (one per thread), each in its own scratch.
            let mut suffixes = Vec::with_capacity(workers);
            while self.more && suffixes.len() < workers {
                suffixes.push(self.suffix.clone());
                self.more = next_sorted(&mut self.suffix, self.cost.n);
            }
            let (x, xt, cfg) = (&self.x, &self.xt, &self.cfg);
            let mut work: Vec<(&Vec<usize>, &mut BlockScratch)> =
                suffixes.iter().zip(self.scratch.iter_mut()).collect();
            let results = crate::par::for_each_chunk(&mut work, 1, |_, w| {
                let (suffix, scratch) = &mut w[0];
                build_block(x, xt, cfg, suffix, scratch)
            });
            // Appended in order; the first failing block stops the build where the sequential
            // loop would: the blocks before it kept, the suffix left at it.
            for (k, r) in results.into_iter().enumerate() {
                if let Err(e) = r {
                    self.suffix.clone_from(&suffixes[k]);
                    self.more = true;
                    self.error = Some(e.clone());
                    return Err(e);
                }
                self.values.extend_from_slice(&self.scratch[k].out);
            }
            if self.values.len() - start >= max_entries {
                break;
            }
        }
        Ok(self.progress())
    }

    /// The finished Gram tensor; an error if the build is not complete.
    pub fn finish(self) -> Result<GramTensor> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.more || (self.values.len() as u64) != self.cost.entries {
            return Err(KpError::Parameter {
                name: "build",
                reason: format!(
                    "the Gram tensor is not complete ({} of {} values)",
                    self.values.len(),
                    self.cost.entries
                ),
            });
        }
        Ok(GramTensor { cfg: self.cfg, n: self.cost.n, d: self.cost.d, values: self.values })
    }
}

/// One block of the build into `s.out`: every pair `i1 ≤ i2 ≤ i3` for the suffix
/// `(i3, …, iq)` (eq. 15's values in colex order); an error naming the tuple on a non-finite value.
fn build_block(
    x: &DMatrix<f64>,
    xt: &DMatrix<f64>,
    cfg: &TensorKernelConfig,
    suffix: &[usize],
    s: &mut BlockScratch,
) -> Result<()> {
    let s0 = suffix[0];
    let m = s0 + 1;
    s.v.copy_from(&xt.column(s0));
    for &j in &suffix[1..] {
        s.v.component_mul_assign(&xt.column(j));
    }
    for i in 0..m {
        let mut col = s.c.column_mut(i);
        col.copy_from(&xt.column(i));
        col.component_mul_assign(&s.v);
    }
    // Only the upper triangle i1 ≤ i2 is needed: compute it by column panels, each panel
    // [j0, j0 + b) needing rows 0..j0 + b (about half the flops of the full m × m product).
    let mut j0 = 0;
    while j0 < m {
        let b = BUILD_PANEL.min(m - j0);
        let mut mp = s.m.view_mut((0, j0), (j0 + b, b));
        mp.gemm(1.0, &x.rows(0, j0 + b), &s.c.columns(j0, b), 0.0);
        j0 += b;
    }
    s.out.clear();
    for i2 in 0..m {
        for i1 in 0..=i2 {
            let sum = s.m[(i1, i2)];
            let k = cfg.link(sum);
            if !k.is_finite() {
                let mut tuple = vec![i1, i2];
                tuple.extend_from_slice(suffix);
                return Err(non_finite_error(cfg, &tuple, sum, k));
            }
            s.out.push(k);
        }
    }
    Ok(())
}

fn non_finite_error(cfg: &TensorKernelConfig, tuple: &[usize], s: f64, k: f64) -> KpError {
    let names: Vec<String> = tuple.iter().map(|i| format!("x{}", i + 1)).collect();
    let hint = cfg.kernel.overflow_hint();
    KpError::NonFinite(format!(
        "tensor kernel value K({}) = {k} (samples counted from 1) with sum(x_i1 ⊙ ⋯ ⊙ x_iq) = {s}: {hint}",
        names.join(", ")
    ))
}

// ---------------------------------------------------------------------------------------------
// The Gram tensor and the dual polynomial.

/// The Gram tensor `K_{i1…iq} = K(x_{i1}, …, x_{iq})` (paper A, eq. 15), one value per
/// symmetry class in colex order (see [`rank`]).
#[derive(Debug, Clone)]
pub struct GramTensor {
    cfg: TensorKernelConfig,
    n: usize,
    d: usize,
    values: Vec<f64>,
}

/// Weights `multiplicity/q` of the entries of one block, by pattern of `(i1, i2)`.
#[derive(Clone, Copy)]
struct BlockWeights {
    /// `i1 < i2 < i3`.
    lt_lo: f64,
    /// `i1 = i2 < i3`.
    eq_lo: f64,
    /// `i1 < i2 = i3`.
    lt_hi: f64,
    /// `i1 = i2 = i3`.
    eq_hi: f64,
}

impl BlockWeights {
    #[inline]
    fn row(&self, i2: usize, s0: usize) -> (f64, f64) {
        if i2 < s0 {
            (self.lt_lo, self.eq_lo)
        } else {
            (self.lt_hi, self.eq_hi)
        }
    }
}

/// `Σ a_i b_i` with four accumulators.
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let ca = a.chunks_exact(4);
    let cb = b.chunks_exact(4);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// `Σ k_i a_i`, while `g_i += c·k_i` (fused, four accumulators; `k` sets the length).
#[inline]
fn dot_axpy(k: &[f64], a: &[f64], g: &mut [f64], c: f64) -> f64 {
    let n = k.len();
    let (a, g) = (&a[..n], &mut g[..n]);
    let mut acc = [0.0f64; 4];
    let mut kc = k.chunks_exact(4);
    let mut ac = a.chunks_exact(4);
    let mut gc = g.chunks_exact_mut(4);
    for ((kk, aa), gg) in (&mut kc).zip(&mut ac).zip(&mut gc) {
        for l in 0..4 {
            acc[l] += kk[l] * aa[l];
            gg[l] += kk[l] * c;
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for ((kk, aa), gg) in kc.remainder().iter().zip(ac.remainder()).zip(gc.into_remainder()) {
        s += kk * aa;
        *gg += kk * c;
    }
    s
}

/// `Σ k_i a_i`, while `g_i += c·k_i` and `u_i += cu·k_i` (fused, four accumulators).
#[inline]
fn dot_axpy2(k: &[f64], a: &[f64], g: &mut [f64], c: f64, u: &mut [f64], cu: f64) -> f64 {
    let n = k.len();
    let (a, g, u) = (&a[..n], &mut g[..n], &mut u[..n]);
    let mut acc = [0.0f64; 4];
    let mut kc = k.chunks_exact(4);
    let mut ac = a.chunks_exact(4);
    let mut gc = g.chunks_exact_mut(4);
    let mut uc = u.chunks_exact_mut(4);
    for (((kk, aa), gg), uu) in (&mut kc).zip(&mut ac).zip(&mut gc).zip(&mut uc) {
        for l in 0..4 {
            acc[l] += kk[l] * aa[l];
            gg[l] += kk[l] * c;
            uu[l] += kk[l] * cu;
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (((kk, aa), gg), uu) in
        kc.remainder().iter().zip(ac.remainder()).zip(gc.into_remainder()).zip(uc.into_remainder())
    {
        s += kk * aa;
        *gg += kk * c;
        *uu += kk * cu;
    }
    s
}

/// Products of α over the suffix: all of it, with one position left out, with two left out.
fn suffix_products(s: &[usize], a: &[f64], loo: &mut [f64]) -> f64 {
    for (j, l) in loo.iter_mut().enumerate() {
        *l = s.iter().enumerate().filter(|&(k, _)| k != j).map(|(_, &i)| a[i]).product();
    }
    s.iter().map(|&i| a[i]).product()
}

fn suffix_pair_product(s: &[usize], a: &[f64], j: usize, k: usize) -> f64 {
    s.iter().enumerate().filter(|&(l, _)| l != j && l != k).map(|(_, &i)| a[i]).product()
}

impl GramTensor {
    /// Build in one go (loop over [`GramTensorBuild::advance`]).
    pub fn build(x: &DMatrix<f64>, cfg: TensorKernelConfig, max_bytes: u64) -> Result<Self> {
        let mut b = GramTensorBuild::new(x, cfg, max_bytes)?;
        while !b.advance(1 << 20)?.is_done() {}
        b.finish()
    }

    /// Rebuild a Gram tensor from its stored values (one per symmetry class, colex order, as
    /// [`values`](Self::values) gives them), e.g. values built in a Web Worker and sent to the
    /// page. Refused unless there are exactly `C(n+q−1, q)` values (Section 2.3) and every one
    /// is finite: a tensor of another n or q, or a corrupted transfer, never reaches a solver.
    pub fn from_values(
        cfg: TensorKernelConfig,
        n: usize,
        d: usize,
        values: Vec<f64>,
    ) -> Result<Self> {
        let cost = estimate_cost(n, d, &cfg)?;
        if values.len() as u64 != cost.entries {
            return Err(KpError::Parameter {
                name: "tensor",
                reason: format!(
                    "a Gram tensor of order q = {} on n = {n} points has C(n+q−1, q) = {} values, but {} were given \
                     (it was built for other data or another q)",
                    cfg.q,
                    cost.entries,
                    values.len()
                ),
            });
        }
        if let Some(r) = values.iter().position(|v| !v.is_finite()) {
            let tuple: Vec<String> =
                unrank(r as u64, cfg.q).iter().map(|i| format!("x{}", i + 1)).collect();
            return Err(KpError::NonFinite(format!(
                "Gram tensor value number {} of {}, K({}), is {} (samples counted from 1)",
                r + 1,
                values.len(),
                tuple.join(", "),
                values[r]
            )));
        }
        Ok(Self { cfg, n, d, values })
    }

    /// The stored values, moved out (the inverse of [`from_values`](Self::from_values)).
    pub fn into_values(self) -> Vec<f64> {
        self.values
    }

    /// The kernel and q.
    pub fn config(&self) -> &TensorKernelConfig {
        &self.cfg
    }

    /// Dimension of the inputs.
    pub fn d(&self) -> usize {
        self.d
    }

    /// The cost figures of this tensor (Section 2.3).
    pub fn cost(&self) -> Result<TensorCost> {
        estimate_cost(self.n, self.d, &self.cfg)
    }

    /// The stored values, one per sorted tuple, in colex order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// `K_{i1…iq}` for indices in any order (0-based).
    pub fn get(&self, idx: &[usize]) -> Result<f64> {
        if idx.len() != self.cfg.q {
            return Err(KpError::Parameter {
                name: "index",
                reason: format!("need {} indices (got {})", self.cfg.q, idx.len()),
            });
        }
        if let Some(&bad) = idx.iter().find(|&&i| i >= self.n) {
            return Err(KpError::Parameter {
                name: "index",
                reason: format!("index {bad} is not below n = {}", self.n),
            });
        }
        let mut t = idx.to_vec();
        t.sort_unstable();
        let r = rank(&t).and_then(|r| usize::try_from(r).ok());
        r.and_then(|r| self.values.get(r).copied()).ok_or_else(|| KpError::Parameter {
            name: "index",
            reason: "index out of range".into(),
        })
    }

    /// Walk the blocks of the storage: `f(suffix, block values, weights)`.
    fn for_each_block(&self, mut f: impl FnMut(&[usize], &[f64], BlockWeights)) {
        let q = self.cfg.q;
        let qf = q as f64;
        let mut s = vec![0usize; q - 2];
        let mut off = 0usize;
        loop {
            let s0 = s[0];
            let m = s0 + 1;
            let len = m * (m + 1) / 2;
            let m0 = multiplicity_with_q(&s, q);
            let c3 = s.iter().take_while(|&&i| i == s0).count() as f64;
            let w = BlockWeights {
                lt_lo: m0 / qf,
                eq_lo: m0 / (2.0 * qf),
                lt_hi: m0 / ((c3 + 1.0) * qf),
                eq_hi: m0 / ((c3 + 1.0) * (c3 + 2.0) * qf),
            };
            f(&s, &self.values[off..off + len], w);
            off += len;
            if !next_sorted(&mut s, self.n) {
                break;
            }
        }
    }

    fn check_alpha(&self, alpha: &DVector<f64>) {
        assert_eq!(
            alpha.len(),
            self.n,
            "α has length {} but the Gram tensor has n = {}",
            alpha.len(),
            self.n
        );
    }

    /// Coefficients `c_0..c_q` of the degree-q polynomial `λ ↦ P(α + λ v)` in one pass, so a
    /// linesearch along `v` (Algorithm 2.1 / 3.3) costs O(q) per trial step instead of a pass.
    pub fn line_polynomial(&self, alpha: &DVector<f64>, dir: &DVector<f64>) -> Vec<f64> {
        self.check_alpha(alpha);
        assert_eq!(dir.len(), self.n);
        let q = self.cfg.q;
        let (a, v) = (alpha.as_slice(), dir.as_slice());
        let mut out = vec![0.0; q + 1];
        // Each value contributes w K Π_j (a_{t_j} + λ v_{t_j}): multiply the linear factors out.
        let mut poly_s = vec![0.0; q - 1];
        let mut poly = vec![0.0; q + 1];
        self.for_each_block(|s, blk, w| {
            // Polynomial of the suffix factors.
            poly_s.iter_mut().for_each(|c| *c = 0.0);
            poly_s[0] = 1.0;
            for (deg, &i) in s.iter().enumerate() {
                for k in (0..=deg).rev() {
                    poly_s[k + 1] += poly_s[k] * v[i];
                    poly_s[k] *= a[i];
                }
            }
            let s0 = s[0];
            // Inner sums: Σ w K (a_i1 + λ v_i1)(a_i2 + λ v_i2) = A + Bλ + Cλ².
            let (mut ca, mut cb, mut cc) = (0.0, 0.0, 0.0);
            let mut off = 0;
            for i2 in 0..=s0 {
                let row = &blk[off..off + i2 + 1];
                off += i2 + 1;
                let (wl, we) = w.row(i2, s0);
                let ra = dot(&row[..i2], &a[..i2]);
                let rv = dot(&row[..i2], &v[..i2]);
                let kd = row[i2];
                ca += wl * ra * a[i2] + we * kd * a[i2] * a[i2];
                cb += wl * (ra * v[i2] + rv * a[i2]) + 2.0 * we * kd * a[i2] * v[i2];
                cc += wl * rv * v[i2] + we * kd * v[i2] * v[i2];
            }
            poly.iter_mut().for_each(|c| *c = 0.0);
            for (k, &p) in poly_s.iter().enumerate() {
                poly[k] += p * ca;
                poly[k + 1] += p * cb;
                poly[k + 2] += p * cc;
            }
            for (o, p) in out.iter_mut().zip(&poly) {
                *o += p;
            }
        });
        out
    }
}

/// `q!/Π c!` over the runs of the suffix (the multiplicity of `(i1, i2, suffix)` when i1, i2
/// are distinct from each other and from the suffix).
fn multiplicity_with_q(s: &[usize], q: usize) -> f64 {
    let mut m = factorial(q);
    for run in runs(s) {
        m /= factorial(run);
    }
    m
}

impl DualPolynomial for GramTensor {
    fn n(&self) -> usize {
        self.n
    }

    /// None: the Gram tensor has no explicit features (the session maps α to w for the
    /// linear kernel).
    fn weights(&self, _alpha: &DVector<f64>) -> Option<DVector<f64>> {
        None
    }

    fn q(&self) -> f64 {
        self.cfg.q as f64
    }

    /// `P(α) = (1/q) Σ_{i1..iq} K_{i1…iq} α_{i1}⋯α_{iq}` (eq. 15): one pass over the classes,
    /// each value weighted by its multiplicity.
    fn value(&self, alpha: &DVector<f64>) -> f64 {
        self.check_alpha(alpha);
        let a = alpha.as_slice();
        let mut p = 0.0;
        self.for_each_block(|s, blk, w| {
            let a_s: f64 = s.iter().map(|&i| a[i]).product();
            if a_s == 0.0 {
                return;
            }
            let s0 = s[0];
            let mut t = 0.0;
            let mut off = 0;
            for i2 in 0..=s0 {
                let row = &blk[off..off + i2 + 1];
                off += i2 + 1;
                let (wl, we) = w.row(i2, s0);
                let rs = dot(&row[..i2], &a[..i2]);
                t += a[i2] * (wl * rs + we * row[i2] * a[i2]);
            }
            p += t * a_s;
        });
        p
    }

    /// `P(α)` and `ω_i = ∂P/∂α_i = Σ_{i2..iq} K_{i i2…iq} α_{i2}⋯α_{iq}` (Section 2.3, for q = 4
    /// `ω_i = Σ_{jkl} K_{ijkl} α_j α_k α_l`) in one pass: about two multiply-adds per stored value.
    fn value_grad(&self, alpha: &DVector<f64>, grad: &mut DVector<f64>) -> f64 {
        self.check_alpha(alpha);
        assert_eq!(grad.len(), self.n);
        grad.fill(0.0);
        let a = alpha.as_slice();
        let g = grad.as_mut_slice();
        let mut loo = vec![0.0; self.cfg.q - 2];
        let mut p = 0.0;
        self.for_each_block(|s, blk, w| {
            let a_s = suffix_products(s, a, &mut loo);
            let s0 = s[0];
            let mut t = 0.0;
            let mut off = 0;
            for i2 in 0..=s0 {
                let row = &blk[off..off + i2 + 1];
                off += i2 + 1;
                let (wl, we) = w.row(i2, s0);
                let c = wl * a[i2] * a_s;
                let rs = if c == 0.0 {
                    dot(&row[..i2], &a[..i2])
                } else {
                    dot_axpy(&row[..i2], a, g, c)
                };
                let kd = row[i2];
                g[i2] += (wl * rs + 2.0 * we * kd * a[i2]) * a_s;
                t += a[i2] * (wl * rs + we * kd * a[i2]);
            }
            for (&sj, &l) in s.iter().zip(loo.iter()) {
                g[sj] += t * l;
            }
            p += t * a_s;
        });
        p
    }

    /// `∇²P(α)_{ij} = (q − 1) Σ K_{ij i3…iq} α_{i3}⋯α_{iq}` (for q = 4: `3 Σ_kl K_ijkl α_k α_l`),
    /// in one pass over the classes (about three multiply-adds per stored value).
    fn hessian(&self, alpha: &DVector<f64>) -> DMatrix<f64> {
        self.check_alpha(alpha);
        let n = self.n;
        let a = alpha.as_slice();
        // G holds each unordered pair of positions once; H = G + Gᵀ.
        let mut gm = DMatrix::<f64>::zeros(n, n);
        let mut u = vec![0.0; n];
        let mut loo = vec![0.0; self.cfg.q - 2];
        self.for_each_block(|s, blk, w| {
            let a_s = suffix_products(s, a, &mut loo);
            let s0 = s[0];
            let m = s0 + 1;
            u[..m].iter_mut().for_each(|x| *x = 0.0);
            let mut t = 0.0;
            let mut off = 0;
            let gs = gm.as_mut_slice();
            for i2 in 0..m {
                let row = &blk[off..off + i2 + 1];
                off += i2 + 1;
                let (wl, we) = w.row(i2, s0);
                let c = wl * a_s;
                let ca = wl * a[i2];
                let col = &mut gs[i2 * n..i2 * n + i2 + 1];
                let rs = dot_axpy2(&row[..i2], a, &mut col[..i2], c, &mut u[..i2], ca);
                let kd = row[i2];
                col[i2] += we * kd * a_s;
                u[i2] += wl * rs + 2.0 * we * kd * a[i2];
                t += a[i2] * (wl * rs + we * kd * a[i2]);
            }
            for (j, &sj) in s.iter().enumerate() {
                let l = loo[j];
                let col = &mut gs[sj * n..sj * n + m];
                for (gi, ui) in col.iter_mut().zip(&u[..m]) {
                    *gi += ui * l;
                }
                for k in j + 1..s.len() {
                    gs[s[k] * n + sj] += t * suffix_pair_product(s, a, j, k);
                }
            }
        });
        let gt = gm.transpose();
        gm + gt
    }
}

// ---------------------------------------------------------------------------------------------
// Predictor (Remark 2.4).

impl crate::exec::Task for GramTensorBuild {
    type Error = KpError;
    /// One round of blocks, one per thread ([`Self::advance`] with the smallest request: the
    /// rounds, and so the values, are the same whatever the slices); done once every value is.
    fn unit(&mut self) -> Result<crate::exec::Progress> {
        use crate::exec::Progress;
        if self.is_done() {
            return Ok(Progress::Done);
        }
        self.advance(1)?;
        Ok(if self.is_done() { Progress::Done } else { Progress::More })
    }
}
