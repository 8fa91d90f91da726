//! Cheap bounds that decide most trial steps of Algorithm 2.1's linesearch at an integer q
//! (paper A; issue 21 §1: "the linesearch need not evaluate the Bregman sum in full at every trial
//! step"), with exactly the decisions of the full evaluation.
//!
//! A trial step λ is accepted when the Bregman remainder `B(λ) = Σ_j B_j`,
//! `B_j = f(u_j − h_j) − f(u_j) + f'(u_j)h_j`, `f(x) = |x|^q/q`, `h_j = λ(Xᵀg)_j`, is at most
//! `bound = λ(δ − λ/(2γ))‖g‖²` (see [`super::DualLp`]). Taylor's formula with integral remainder,
//! `B_j = h_j² ∫₀¹ (1 − s) f''(u_j − s h_j) ds` with `f''(x) = (q − 1)|x|^(q−2)` and `|x|` between
//! its end values on the segment when `u_j` and `u_j − h_j` have one sign (at most the larger end
//! value always), gives, with `a = |u_j|`, `b = |u_j − h_j|`,
//!
//! `(q − 1)/2 · h_j² · min(a, b)^(q−2)  ≤  B_j  ≤  (q − 1)/2 · h_j² · max(a, b)^(q−2)`
//!
//! When the sign flips, `B_j = a^q(q − 1)/q + a^(q−1)b + b^q/q ≥ max(a, b)^q/q` is the lower bound
//! instead (large trial steps flip most coordinates). Both cost two binary powerings, against
//! the q − 2 steps of the exact form ([`super::bregman_term_int`], 9 at p = 1.1), and they are tight
//! when the step is small against `u`, as it is on the support late in a run.
//!
//! **Same decisions, so the same iterates.** The exact sum as computed is within
//! `(4q + 2)ε` per term (tests/paper_a.rs) plus `dε/2` for the summation of the true `B`; the
//! bounds as computed are within `(d/4 + 20)ε` of theirs. A bound decides only with a margin
//! `κ = 2(8q + d + 32)ε` larger than both together (about 4·10⁻¹¹ at d = 10⁵), only when every
//! value is finite, `bound ≥ 10⁻²⁸⁰` (no subnormal terms count) and the exact terms cannot
//! overflow; anything else is [`Verdict::Undecided`] and the caller evaluates the sum in full as
//! before. The unit tests below check the verdicts against the full evaluation, at bounds within
//! rounding of `B` too.

/// Coordinates between two early-exit checks of the lower bound.
const BLOCK: usize = 256;
/// Lanes of the vectorized loop.
const LANES: usize = 4;

/// What the bounds say about a trial step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// `B(λ) ≤ bound`, as the full evaluation would find it.
    Accept,
    /// `B(λ) > bound`, as the full evaluation would find it.
    Reject,
    /// Too close to call (or an edge case): evaluate the sum in full.
    Undecided,
}

/// The bounds of one trial step, as a `pulp` operation (vectorized for the CPU's unit).
pub(super) struct TrialBounds<'a> {
    /// `u = Xᵀα`.
    pub u: &'a [f64],
    /// `z = Xᵀg`.
    pub z: &'a [f64],
    /// The trial step λ.
    pub step: f64,
    /// `λ(δ − λ/(2γ))‖g‖²`.
    pub bound: f64,
    /// The integer exponent q ≥ 3.
    pub q: u32,
    /// Some coordinates of `u` and `z` again, gathered (see [`gather_heavy`]): their lower bound
    /// is tried first, so a rejection does not wait for the pass to reach them.
    pub heavy: (&'a [f64], &'a [f64]),
}

/// Gather into `hu`, `hz` the coordinates with the largest `|u_j|^q` (at most `cap`, in order):
/// where `B` is large, the terms of the largest `|u_j|` dominate it (at p = 1.1 they scale as
/// `|u_j|^9`), and a rejected trial step close to the accepted one otherwise sums the coordinates
/// in order until it meets them (at d = 10⁵, p = 1.1, four such trials per iteration went to 83 %
/// of the coordinates, where one block raised the lower bound from 0.16 to 1.8 times the bound).
/// The largest are found by binary exponent: a count per octave below the largest, then every
/// coordinate of the octaves that fit in `cap`. Any subset gives a valid lower bound, so which
/// coordinates are gathered changes no decision, only how soon.
pub(super) fn gather_heavy(
    upow: &[f64],
    u: &[f64],
    z: &[f64],
    cap: usize,
    hu: &mut Vec<f64>,
    hz: &mut Vec<f64>,
) {
    hu.clear();
    hz.clear();
    let top = upow.iter().fold(0.0f64, |m, &v| if v > m { v } else { m });
    if !(top.is_finite() && top > 0.0) {
        return;
    }
    let exponent = |v: f64| ((v.to_bits() >> 52) & 0x7ff) as i64;
    let octave = |v: f64| (exponent(top) - exponent(v)).clamp(0, 63) as usize;
    let mut count = [0usize; 64];
    for &v in upow {
        count[octave(v)] += 1;
    }
    // The most octaves whose coordinates fit in `cap` (none when the largest octave alone does not).
    let (mut taken, mut last) = (0usize, None);
    for (o, &c) in count.iter().enumerate().take(63) {
        if taken + c > cap {
            break;
        }
        taken += c;
        last = Some(o);
    }
    let Some(last) = last else { return };
    for (j, &v) in upow.iter().enumerate() {
        if octave(v) <= last {
            hu.push(u[j]);
            hz.push(z[j]);
        }
    }
}

impl pulp::WithSimd for TrialBounds<'_> {
    type Output = Verdict;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> Verdict {
        let Self { u, z, step, bound, q, heavy } = self;
        let d = u.len().min(z.len());
        if q < 3 || !(bound.is_finite() && bound >= 1e-280) {
            return Verdict::Undecided;
        }
        let (qf, k) = (q as f64, q - 2);
        let (c, inv_q) = (0.5 * (qf - 1.0), 1.0 / qf);
        let kappa = 2.0 * (8.0 * qf + d as f64 + 32.0) * f64::EPSILON;
        // The heavy coordinates first: a lower bound over them alone may already reject.
        let (hu, hz) = heavy;
        let mut low = 0.0f64;
        for (&uj, &zj) in hu.iter().zip(hz) {
            low += terms(&[uj], &[zj], step, k, c, inv_q).0[0];
        }
        if low.is_finite() && low * (1.0 - kappa) > bound {
            return Verdict::Reject;
        }
        let (mut lo, mut hi, mut top) = ([0.0f64; LANES], [0.0f64; LANES], [0.0f64; LANES]);
        let mut start = 0;
        while start < d {
            let end = (start + BLOCK).min(d);
            let mut j = start;
            while j + LANES <= end {
                // Cannot fail: the slice is exactly LANES long (the loop runs while j + LANES ≤ end ≤ len).
                let uj: &[f64; LANES] = u[j..j + LANES].try_into().expect("four");
                let zj: &[f64; LANES] = z[j..j + LANES].try_into().expect("four");
                let (l, h, m) = terms(uj, zj, step, k, c, inv_q);
                for i in 0..LANES {
                    lo[i] += l[i];
                    hi[i] += h[i];
                    top[i] = if m[i] > top[i] { m[i] } else { top[i] };
                }
                j += LANES;
            }
            for j in j..end {
                let (l, h, m) = terms(&[u[j]], &[z[j]], step, k, c, inv_q);
                lo[0] += l[0];
                hi[0] += h[0];
                top[0] = if m[0] > top[0] { m[0] } else { top[0] };
            }
            // Early exit: every term is ≥ 0, so a lower bound over part of the sum already above
            // the bound rejects (most rejected trial steps stop in the first block).
            let low = (lo[0] + lo[1]) + (lo[2] + lo[3]);
            if low.is_finite() && low * (1.0 - kappa) > bound {
                return Verdict::Reject;
            }
            start = end;
        }
        let low = (lo[0] + lo[1]) + (lo[2] + lo[3]);
        let high = c * ((hi[0] + hi[1]) + (hi[2] + hi[3]));
        if !(low.is_finite() && high.is_finite()) {
            return Verdict::Undecided;
        }
        if low * (1.0 - kappa) > bound {
            return Verdict::Reject;
        }
        // The exact form's intermediates are at most about 4q²·max(a, b, 1)^(q+2) (|h| ≤ a + b):
        // accept from the upper bound only when those cannot overflow either.
        let m = top.iter().fold(1.0f64, |x, &y| x.max(y));
        let worst = 4.0 * qf * qf * crate::lp::abs_powi(m, q + 2);
        if worst.is_finite() && worst < 1e300 && high * (1.0 + kappa) <= bound {
            return Verdict::Accept;
        }
        Verdict::Undecided
    }
}

/// Per lane: the lower bound of `B_j` (below), `h²·max(a, b)^k` and `max(a, b)`, with
/// `h = step·z`, `a = |u|`, `b = |u − h|`, `k = q − 2` (binary powering, as [`crate::lp::abs_powi`];
/// the branch is on the exponent, the same for every lane, so the lanes vectorize).
#[inline(always)]
fn terms<const N: usize>(
    u: &[f64; N],
    z: &[f64; N],
    step: f64,
    k: u32,
    c: f64,
    inv_q: f64,
) -> ([f64; N], [f64; N], [f64; N]) {
    let (mut h2, mut mx, mut mn, mut same) = ([0.0f64; N], [0.0f64; N], [0.0f64; N], [0.0f64; N]);
    for l in 0..N {
        let h = step * z[l];
        let v = u[l] - h;
        let (a, b) = (u[l].abs(), v.abs());
        // Non-short-circuit tests and selects: masks and blends, no branches per lane.
        let s = ((u[l] > 0.0) & (v > 0.0)) | ((u[l] < 0.0) & (v < 0.0));
        h2[l] = h * h;
        mx[l] = if a > b { a } else { b };
        let lower = if a > b { b } else { a };
        mn[l] = if s { lower } else { 0.0 };
        same[l] = if s { 1.0 } else { 0.0 };
    }
    let top = mx;
    let (mut pa, mut pb, mut kk) = ([1.0f64; N], [1.0f64; N], k);
    loop {
        if kk & 1 == 1 {
            for l in 0..N {
                pa[l] *= mn[l];
                pb[l] *= mx[l];
            }
        }
        kk >>= 1;
        if kk == 0 {
            break;
        }
        for l in 0..N {
            mn[l] *= mn[l];
            mx[l] *= mx[l];
        }
    }
    let (mut lo, mut hi) = ([0.0f64; N], [0.0f64; N]);
    for l in 0..N {
        // Same sign: (q − 1)/2 · h²·min^k. Sign flip: B_j = a^q(q − 1)/q + a^(q−1)b + b^q/q
        // ≥ max(a, b)^q/q (q − 1 ≥ 1), which large trial steps (most coordinates flip) need.
        let same_sign = c * (h2[l] * pa[l]);
        let flip = pb[l] * top[l] * top[l] * inv_q;
        lo[l] = if same[l] != 0.0 { same_sign } else { flip };
        hi[l] = h2[l] * pb[l];
    }
    (lo, hi, top)
}
