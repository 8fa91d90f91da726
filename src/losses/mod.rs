//! Losses, each one type that knows its value, subgradient and Fenchel conjugate (paper A,
//! eq. 7–8 and Appendix A.2; paper C, Table 1). The dual methods of paper A add the prox of
//! the conjugate and paper C the resolvent `−J_α`, in further `impl Loss` blocks, so both papers
//! share one definition per loss.
//!
//! Convention: `L(y, t)` with `y` the target (or a ±1 label) and `t` the prediction; the
//! conjugate is taken in `t`: `L*(y, s) = sup_t s·t − L(y, t)`.
//!
//! One file per loss (issue 34): each is a type implementing [`LossDef`], which has no default
//! method, so a new loss does not compile until it decides every one — its value, subgradient,
//! conjugate, paper A's dual term and prox, paper C's resolvent, its catalogue entry and its
//! default parameters. The one list is `catalogue!` below: a line per loss, from which [`Loss`],
//! its strict spec form, [`Loss::ALL`] and the dispatches from the enum to the files are
//! generated, so a new loss is its file and one line there. This file also holds what every
//! loss shares: parameter checks, the conjugate's rounding guard, the Moreau envelope. The
//! trait, the parameter descriptors and the helpers the loss files share are in `def.rs`, so a
//! loss file imports its sibling and never this file.

use serde::{Deserialize, Serialize};

use crate::catalogue::variants;
use crate::error::{KpError, Result};

#[cfg(test)]
mod catalogue_tests;
mod def;

pub use def::{softplus, BoxQuadratic, LossDef, Parameter};

variants! { $
    /// A convex loss `L(y, t)`.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields, from = "strict::Strict")]
    pub enum Loss: LossDef, dispatch def, fixed with_loss in losses {
        /// `(t − y)²/2` (paper A eq. 7; paper C "RLS").
        Square => square::Square,
        /// `|t − y|` (paper C "RLA").
        Absolute => absolute::Absolute,
        /// `(|t − y| − ε)_+`, ε ≥ 0 (paper A Appendix A.2; paper C "SVR").
        EpsInsensitive { eps: f64 } => eps_insensitive::EpsInsensitive,
        /// Huber with threshold ρ > 0: `r²/2` for `|r| ≤ ρ`, `ρ|r| − ρ²/2` beyond, `r = t − y`.
        Huber { rho: f64 } => huber::Huber,
        /// `(1 − yt)_+`, labels ±1 (paper A; paper C "L1-SVM").
        Hinge => hinge::Hinge,
        /// `(1 − yt)_+²/2`, labels ±1 (paper C "L2-SVM").
        SquaredHinge => squared_hinge::SquaredHinge,
        /// `log(1 + e^(−yt))`, labels ±1.
        Logistic => logistic::Logistic,
        /// Smoothed hinge with smoothing μ > 0 (ours, not in papers A or C: Shalev-Shwartz &
        /// Zhang's smoothed hinge), in the margin `m = yt`: 0 for `m ≥ 1`, `(1 − m)²/(2μ)` for
        /// `1 − μ < m < 1`, `1 − m − μ/2` for `m ≤ 1 − μ`; labels ±1. Its conjugate
        /// `σ + μσ²/2` on `σ = ys ∈ [−1, 0]` makes both papers' dual steps closed forms.
        SmoothedHinge { smoothing: f64 } => smoothed_hinge::SmoothedHinge,
        /// A test-only loss, `w·(t − y)²/2` with weight w > 0 (losses/test_weighted_square.rs).
        #[cfg(test)]
        TestWeightedSquare { w: f64 } => test_weighted_square::TestWeightedSquare,
    }
}
pub(crate) use with_loss;

/// The loss catalogue as JSON text, each loss's [`Capabilities`]: what the pages build their loss
/// selects and "which algorithm takes this loss" rules from (`lossCatalogue` in the wasm shell).
pub fn catalogue_json() -> String {
    let caps: Vec<_> = Loss::ALL.iter().map(|l| l.capabilities()).collect();
    serde_json::to_string(&caps).unwrap_or_else(|_| "[]".into())
}

/// What a loss is and what it offers, declared once: every "does this algorithm accept this
/// loss" decision (paper A's spec, paper C's page, the pages' selects through the exported
/// catalogue) reads it (scikit-learn's `_parameter_constraints` in spirit).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Capabilities {
    /// The spec's `kind`.
    pub kind: &'static str,
    /// The name a page shows.
    pub label: &'static str,
    /// A margin loss: the targets must be ±1 labels.
    pub classification: bool,
    /// `(t − y)²/2`: the loss of paper A's square-loss methods (Algorithm 2.1, primal GD, FISTA).
    pub square: bool,
    /// The dual term `γL*(y, −a/γ)` is twice differentiable on an open domain, so paper A's dual
    /// Newton method applies (square, logistic).
    pub smooth_dual: bool,
    /// Its parameters (name, symbol, range, default), from which the pages build their fields.
    pub parameters: &'static [Parameter],
    /// Its name in paper C's Table 1 (RLS, RLA, SVR, L1-SVM, L2-SVM), if it has one.
    pub paper_c: Option<&'static str>,
    /// Its dual (paper C, problem (2) over c) is a box-constrained quadratic
    /// ([`Loss::box_quadratic`]), so paper C's pair rule (`greedy_pairs`) applies.
    pub box_quadratic: bool,
}

impl Loss {
    /// What this loss is and offers.
    pub fn capabilities(&self) -> Capabilities {
        let (label, parameters, paper_c) =
            def!(self, d => (d.label(), d.parameters(), d.paper_c()));
        Capabilities {
            kind: self.name(),
            label,
            classification: self.is_classification(),
            square: *self == Loss::Square,
            smooth_dual: self.dual_term_derivatives(1.0, 0.5, 1.0).is_some(),
            parameters,
            paper_c,
            box_quadratic: self.box_quadratic(1.0).is_some(),
        }
    }

    /// The values of its parameters, in the order of [`Capabilities::parameters`].
    pub fn parameter_values(&self) -> Vec<f64> {
        def!(self, d => d.parameter_values())
    }

    /// The half-width of the band around the target where the loss is 0 (a regression plot's
    /// tube): ε for the ε-insensitive loss, 0 otherwise.
    pub fn tube_width(&self) -> f64 {
        def!(self, d => d.tube_width())
    }

    /// Paper C's dual of problem (2) over c, `cᵀKc/2 + Σ_i (q c_i²/2 − y_i c_i)` subject to
    /// `lo(y_i) ≤ c_i ≤ hi(y_i)`, when the loss makes it a box-constrained quadratic: `(q, box for
    /// y ≥ 0, box for y < 0)`; `None` otherwise (ε-insensitive with ε > 0: an `ε|c_i|` term;
    /// logistic: an entropy). Read off `L*(y, −λc)/λ`.
    pub fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        def!(self, d => d.box_quadratic(lambda))
    }
}

impl Loss {
    /// True for the margin losses whose targets must be ±1 labels.
    pub fn is_classification(&self) -> bool {
        def!(self, d => d.is_classification())
    }

    /// Check the loss's parameters against their declared ranges (ε ≥ 0, ρ > 0, μ > 0), each
    /// refusal naming the field (`loss.eps`).
    pub fn validate(&self) -> Result<()> {
        let caps = self.capabilities();
        for (p, v) in caps.parameters.iter().zip(self.parameter_values()) {
            if !p.accepts(v) {
                let op = if p.min_exclusive { ">" } else { "≥" };
                return Err(KpError::Parameter {
                    name: p.path,
                    reason: format!(
                        "{} must be a finite number {op} {} (got {v})",
                        p.symbol, p.min
                    ),
                });
            }
        }
        Ok(())
    }

    /// Check that the targets suit the loss: ±1 labels for a classification loss.
    pub fn check_targets(&self, y: &[f64]) -> Result<()> {
        if self.is_classification() {
            if let Some((i, v)) = y.iter().enumerate().find(|(_, v)| **v != 1.0 && **v != -1.0) {
                return Err(KpError::Parameter {
                    name: "labels",
                    reason: format!("the {} loss needs labels ±1, but y[{i}] = {v}", self.name()),
                });
            }
        }
        Ok(())
    }

    /// `L(y, t)`.
    #[inline]
    pub fn value(&self, y: f64, t: f64) -> f64 {
        def!(self, d => d.value(y, t))
    }

    /// A subgradient of `t ↦ L(y, t)` (at a kink, the one of least magnitude).
    #[inline]
    pub fn subgradient(&self, y: f64, t: f64) -> f64 {
        def!(self, d => d.subgradient(y, t))
    }

    /// The subdifferential `∂_t L(y, t)` as an interval `[lo, hi]`.
    pub fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        def!(self, d => d.subdifferential(y, t))
    }

    /// Fenchel conjugate `L*(y, s)`; `+∞` outside its domain.
    #[inline]
    pub fn conjugate(&self, y: f64, s: f64) -> f64 {
        def!(self, d => d.conjugate(y, s))
    }

    /// Short name, as in the spec.
    pub fn name(&self) -> &'static str {
        def!(self, d => d.kind())
    }
}

/// Paper C (Dinuzzo): the resolvent operators of Table 1 for a general α > 0, and the
/// Moreau–Yosida envelope of Theorem 5.
///
/// With `f_i(t) = L(y_i, t)/λ`, `J_α = (I + α(∂f)⁻¹)⁻¹ = prox_{αf*}` (eq. 6), and the Moreau
/// identity gives `−J_α(v) = α·prox_{L(y,·)/(αλ)}(v/α) − v`. Each closed form below is that
/// expression worked out; at α = 1 they reduce to the printed Table 1 (which, for α ≠ 1,
/// gives `−J_α(αv)/α` instead: see DIGEST.md, section C, **Check**).
impl Loss {
    /// `−J_α(v)` for one component (paper C, eq. 6–8 and Table 1, derived for general α):
    /// the coefficient `c` with `−λc ∈ ∂_t L(y, t)` at `t = (v + c)/α`.
    ///
    /// * RLS: `(αy − v)/(1 + αλ)`;
    /// * RLA: `sign(αy − v)·min(1/λ, |αy − v|)`;
    /// * SVR: `sign(αy − v)·min(1/λ, (|αy − v| − αε)_+)`;
    /// * Huber: `sign(αy − v)·min(ρ/λ, |αy − v|/(1 + αλ))`;
    /// * L1-SVM: `y·min(1/λ, (α − yv)_+)`;
    /// * L2-SVM (`(1 − yt)_+²/2`): `y·(α − yv)_+/(1 + αλ)`;
    /// * logistic: `(y/λ)·σ(−s)` where `s` solves `s − yv/α = σ(−s)/(αλ)` (safeguarded Newton);
    /// * smoothed hinge (ours): `y·min(1/λ, (α − yv)_+/(1 + αμλ))`.
    ///
    /// The caller guarantees α > 0 and λ > 0 (the solver configs validate them).
    #[inline(always)]
    pub fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64 {
        def!(self, d => d.neg_resolvent(y, v, alpha, lambda))
    }

    /// The domain `[lo, hi]` of `s ↦ L*(y, s)` (the range of `−λc_i` at any iterate of
    /// paper C's solvers, since `−J_α` maps into it).
    pub fn conjugate_domain(&self, y: f64) -> (f64, f64) {
        def!(self, d => d.conjugate_domain(y))
    }

    /// `L*(y, s)` with `s` first moved onto the domain when it lies outside by rounding only
    /// (relative 1e-9), as happens for `s = −λ·(1/λ)`.
    pub fn conjugate_rounded(&self, y: f64, s: f64) -> f64 {
        let (lo, hi) = self.conjugate_domain(y);
        let slack = 1e-9 * (1.0 + s.abs());
        let s = if s < lo && s >= lo - slack {
            lo
        } else if s > hi && s <= hi + slack {
            hi
        } else {
            s
        };
        self.conjugate(y, s)
    }

    /// The Moreau–Yosida envelope of `f(t) = L(y, t)/λ` as defined in paper C's appendix,
    /// `f_α(x) = min_t f(t) + (α/2)(t − x)²` (Theorem 5), evaluated through the proximal point
    /// `p = prox_{f/α}(x)`, which is read off the resolvent: `p = x + (−J_α(αx))/α`.
    /// For the hinge loss, λ = α = 1 this is `1/2 − yx` for `yx ≤ 0` and `(1 − yx)_+²/2` beyond.
    pub fn moreau_envelope(&self, y: f64, x: f64, alpha: f64, lambda: f64) -> f64 {
        // prox_{f/α}(x) = argmin_t L(y,t)/(αλ) + (t − x)²/2; by the Moreau identity
        // J_α(αx) = αx − α·prox_{f/α}(x), so prox = x + (−J_α(αx))/α.
        let p = x + self.neg_resolvent(y, alpha * x, alpha, lambda) / alpha;
        self.value(y, p) / lambda + 0.5 * alpha * (p - x) * (p - x)
    }
}

/// Paper A, Algorithm 3.3: the loss part of the dual, coordinate by coordinate.
///
/// The dual (paper A eq. 24) is `Λ(α) = P(α) + Σ_i γ L*(y_i, −α_i/γ)`. Algorithm 3.3 splits it
/// as `φ1 = P` (the polynomial, smooth) and `φ2(α) = Σ_i g_i(α_i)` with
/// `g_i(a) = γ L*(y_i, −a/γ)` (Appendix B.2), written out per loss in [`Loss::dual_term`]:
/// * square: `a²/(2γ) − y a`;
/// * ε-insensitive (absolute for ε = 0): `ε|a| − y a + ι{|a| ≤ γ}`;
/// * Huber(ρ): `a²/(2γ) − y a + ι{|a| ≤ ργ}`;
/// * hinge: `−y a + ι{0 ≤ y a ≤ γ}`; squared hinge: `−y a + (y a)²/(2γ) + ι{y a ≥ 0}`;
/// * logistic: `γ ψ*(−y a/γ)`, i.e. `γ[(1 − b/γ)log(1 − b/γ) + (b/γ)log(b/γ)]`, `b = y a ∈ [0, γ]`;
/// * smoothed hinge (ours): `−b + μb²/(2γ) + ι{0 ≤ b ≤ γ}`, `b = y a`.
impl Loss {
    /// `(g'(a), g''(a))` of the dual term [`Self::dual_term`] for paper A's dual Newton method
    /// (Section 3.2): `Some` exactly for the losses whose dual is twice differentiable on its
    /// domain (the catalogue's `smooth_dual`) — square `(a/γ − y, 1/γ)`; logistic, with `b = ya`,
    /// `(y(ln b − ln(γ − b)), γ/(b(γ − b)))` — `None` otherwise.
    #[inline]
    pub fn dual_term_derivatives(&self, y: f64, a: f64, gamma: f64) -> Option<(f64, f64)> {
        def!(self, d => d.dual_term_derivatives(y, a, gamma))
    }

    /// The dual Newton method's starting coordinate: a point inside the dual term's domain
    /// (`yγ/2`, the middle of `[0, γ]` in `b = ya`, for the logistic loss; 0 otherwise).
    pub fn dual_newton_start(&self, y: f64, gamma: f64) -> f64 {
        def!(self, d => d.dual_newton_start(y, gamma))
    }

    /// The work of one evaluation of [`Self::neg_resolvent`] in the budget's units
    /// (multiply-adds): a few for the closed forms, about a thousand (measured) for the
    /// logistic loss's safeguarded Newton solve with exponentials.
    pub fn resolvent_work(&self) -> f64 {
        def!(self, d => d.resolvent_work())
    }

    /// `g(a) = γ L*(y, −a/γ)`, the loss's term of paper A's dual (eq. 24, Appendix B.2), in closed
    /// form in `a` (so the domain test matches the clamps of [`Loss::prox_dual`] exactly);
    /// `+∞` outside its domain.
    #[inline]
    pub fn dual_term(&self, y: f64, a: f64, gamma: f64) -> f64 {
        def!(self, d => d.dual_term(y, a, gamma))
    }

    /// The prox of the dual term (Algorithm 3.3, eq. 28, coordinatewise):
    /// `argmin_a step·g(a) + (a − v)²/2` with `g(a) = γ L*(y, −a/γ)` ([`Loss::dual_term`]).
    /// Closed form for every loss but the logistic, whose optimality condition
    /// `step·logit(b/γ) + b = y v` (`b = y a`) is solved in `z = logit(b/γ)` by a safeguarded
    /// Newton iteration on the bracket `[(y v − γ)/step, y v/step]`.
    /// `step` and `gamma` must be positive (the solvers validate them).
    #[inline]
    pub fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        def!(self, d => d.prox_dual(y, v, step, gamma))
    }

    /// The Fenchel–Young gap of one coordinate, `γ L(y, t) + g(a) + a t ≥ 0`
    /// (`= γ[L(y, t) + L*(y, s) − s t]` with `s = −a/γ`). Summed over i with `t_i = ∇P(α)_i`
    /// it is paper A's duality gap `F(w(α)) + Λ(α)` (Euler: `⟨α, ∇P(α)⟩ = q P(α)`), without the
    /// cancellation of subtracting two large objectives. Square loss: `(γ/2)(t − y + a/γ)²`.
    #[inline]
    pub fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        def!(self, d => d.dual_gap_term(y, a, t, gamma))
    }
}
