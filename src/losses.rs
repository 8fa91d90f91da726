//! Losses, each one type that knows its value, subgradient and Fenchel conjugate (paper A,
//! eq. 7–8 and Appendix A.2; paper C, Table 1). The dual methods of paper A add the prox of
//! the conjugate and paper C the resolvent `−J_α`, in further `impl Loss` blocks, so both papers
//! share one definition per loss.
//!
//! Convention: `L(y, t)` with `y` the target (or a ±1 label) and `t` the prediction; the
//! conjugate is taken in `t`: `L*(y, s) = sup_t s·t − L(y, t)`.
//!
//! Long file: the loss catalogue is one file by design — adding a loss edits this file alone
//! (issue 20); each loss's value, conjugate, prox, resolvent and envelope sit side by side.

use crate::fmath;
use serde::{Deserialize, Serialize};

use crate::error::{KpError, Result};

/// A convex loss `L(y, t)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields, from = "strict::Loss")]
pub enum Loss {
    /// `(t − y)²/2` (paper A eq. 7; paper C "RLS").
    Square,
    /// `|t − y|` (paper C "RLA").
    Absolute,
    /// `(|t − y| − ε)_+`, ε ≥ 0 (paper A Appendix A.2; paper C "SVR").
    EpsInsensitive { eps: f64 },
    /// Huber with threshold ρ > 0: `r²/2` for `|r| ≤ ρ`, `ρ|r| − ρ²/2` beyond, `r = t − y`.
    Huber { rho: f64 },
    /// `(1 − yt)_+`, labels ±1 (paper A; paper C "L1-SVM").
    Hinge,
    /// `(1 − yt)_+²/2`, labels ±1 (paper C "L2-SVM").
    SquaredHinge,
    /// `log(1 + e^(−yt))`, labels ±1.
    Logistic,
    /// Smoothed hinge with smoothing μ > 0 (ours, not in papers A or C: Shalev-Shwartz & Zhang's
    /// smoothed hinge), in the margin `m = yt`: 0 for `m ≥ 1`, `(1 − m)²/(2μ)` for
    /// `1 − μ < m < 1`, `1 − m − μ/2` for `m ≤ 1 − μ`; labels ±1. Its conjugate
    /// `σ + μσ²/2` on `σ = ys ∈ [−1, 0]` makes both papers' dual steps closed forms.
    SmoothedHinge { smoothing: f64 },
}

/// The spec's form of [`Loss`], read strictly: serde's `deny_unknown_fields` does not reach a
/// unit variant of an internally tagged enum (`{"kind": "square", "x": 1}` would pass), so every
/// variant here is a struct variant, and an unknown field is an error naming it.
mod strict {
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Loss {
        Square {},
        Absolute {},
        EpsInsensitive { eps: f64 },
        Huber { rho: f64 },
        Hinge {},
        SquaredHinge {},
        Logistic {},
        SmoothedHinge { smoothing: f64 },
    }

    impl From<Loss> for super::Loss {
        fn from(l: Loss) -> Self {
            match l {
                Loss::Square {} => Self::Square,
                Loss::Absolute {} => Self::Absolute,
                Loss::EpsInsensitive { eps } => Self::EpsInsensitive { eps },
                Loss::Huber { rho } => Self::Huber { rho },
                Loss::Hinge {} => Self::Hinge,
                Loss::SquaredHinge {} => Self::SquaredHinge,
                Loss::Logistic {} => Self::Logistic,
                Loss::SmoothedHinge { smoothing } => Self::SmoothedHinge { smoothing },
            }
        }
    }
}

/// Paper C's box-constrained dual of a loss: `(q, box for y ≥ 0, box for y < 0)`
/// ([`Loss::box_quadratic`]).
pub type BoxQuadratic = (f64, (f64, f64), (f64, f64));

/// One numeric parameter of a loss, declared once: the spec's field, the symbol a page shows,
/// its range and its default. [`Loss::validate`] checks it and the pages build their fields
/// from it (the exported catalogue).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Parameter {
    /// The field of the loss's spec object (`{"kind": …, "eps": 0.1}`) and the page's field id.
    pub name: &'static str,
    /// The field path an error names (`loss.eps`).
    pub field: &'static str,
    /// The symbol a page shows (ε, ρ, μ).
    pub symbol: &'static str,
    /// What it means, one line (a page's tooltip).
    pub doc: &'static str,
    /// The lower bound.
    pub min: f64,
    /// Whether the lower bound itself is excluded (`> min` rather than `≥ min`).
    pub min_exclusive: bool,
    /// The value of [`Loss::ALL`]'s entry and a page's initial field.
    pub default: f64,
}

impl Parameter {
    /// Whether `v` is a finite number in range.
    pub fn accepts(&self, v: f64) -> bool {
        v.is_finite() && if self.min_exclusive { v > self.min } else { v >= self.min }
    }
}

const EPS: Parameter = Parameter {
    name: "eps",
    field: "loss.eps",
    symbol: "ε",
    doc: "the half-width of the tube where the loss is 0",
    min: 0.0,
    min_exclusive: false,
    default: 0.1,
};
const RHO: Parameter = Parameter {
    name: "rho",
    field: "loss.rho",
    symbol: "ρ",
    doc: "Huber: r²/2 for |r| ≤ ρ, ρ|r| − ρ²/2 beyond",
    min: 0.0,
    min_exclusive: true,
    default: 1.0,
};
const SMOOTHING: Parameter = Parameter {
    name: "smoothing",
    field: "loss.smoothing",
    symbol: "μ",
    doc: "the width of the quadratic piece below the margin 1",
    min: 0.0,
    min_exclusive: true,
    default: 0.5,
};

/// `log(1 + e^x)` without overflow.
pub fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + fmath::ln_1p(fmath::exp(-x))
    } else {
        fmath::ln_1p(fmath::exp(x))
    }
}

/// `x log x` with the limit 0 at 0.
fn xlogx(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * fmath::ln(x)
    }
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
    /// Every loss, with its default parameter (ε = 0.1, ρ = 1).
    pub const ALL: [Loss; 8] = [
        Loss::Square,
        Loss::Absolute,
        Loss::EpsInsensitive { eps: EPS.default },
        Loss::Huber { rho: RHO.default },
        Loss::Hinge,
        Loss::SquaredHinge,
        Loss::Logistic,
        Loss::SmoothedHinge { smoothing: SMOOTHING.default },
    ];

    /// What this loss is and offers.
    pub fn capabilities(&self) -> Capabilities {
        let (label, parameters, paper_c): (_, &'static [Parameter], _) = match *self {
            Loss::Square => ("square", &[], Some("RLS")),
            Loss::Absolute => ("absolute", &[], Some("RLA")),
            Loss::EpsInsensitive { .. } => ("ε-insensitive", &[EPS], Some("SVR")),
            Loss::Huber { .. } => ("Huber", &[RHO], None),
            Loss::Hinge => ("hinge", &[], Some("L1-SVM")),
            Loss::SquaredHinge => ("squared hinge", &[], Some("L2-SVM")),
            Loss::Logistic => ("logistic", &[], None),
            Loss::SmoothedHinge { .. } => ("smoothed hinge", &[SMOOTHING], None),
        };
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
        match *self {
            Loss::EpsInsensitive { eps } => vec![eps],
            Loss::Huber { rho } => vec![rho],
            Loss::SmoothedHinge { smoothing } => vec![smoothing],
            Loss::Square | Loss::Absolute | Loss::Hinge | Loss::SquaredHinge | Loss::Logistic => {
                Vec::new()
            }
        }
    }

    /// The half-width of the band around the target where the loss is 0 (a regression plot's
    /// tube): ε for the ε-insensitive loss, 0 otherwise.
    pub fn tube_width(&self) -> f64 {
        match *self {
            Loss::EpsInsensitive { eps } => eps,
            Loss::Square
            | Loss::Absolute
            | Loss::Huber { .. }
            | Loss::Hinge
            | Loss::SquaredHinge
            | Loss::Logistic
            | Loss::SmoothedHinge { .. } => 0.0,
        }
    }

    /// Paper C's dual of problem (2) over c, `cᵀKc/2 + Σ_i (q c_i²/2 − y_i c_i)` subject to
    /// `lo(y_i) ≤ c_i ≤ hi(y_i)`, when the loss makes it a box-constrained quadratic: `(q, box for
    /// y ≥ 0, box for y < 0)`; `None` otherwise (ε-insensitive with ε > 0: an `ε|c_i|` term;
    /// logistic: an entropy). Read off `L*(y, −λc)/λ`.
    pub fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        let inf = f64::INFINITY;
        let r = 1.0 / lambda;
        let sym = |q: f64, b: f64| Some((q, (-b, b), (-b, b)));
        match *self {
            Loss::Square => sym(lambda, inf),
            Loss::Absolute => sym(0.0, r),
            Loss::EpsInsensitive { eps: 0.0 } => sym(0.0, r),
            Loss::EpsInsensitive { .. } | Loss::Logistic => None,
            Loss::Huber { rho } => sym(lambda, rho / lambda),
            Loss::Hinge => Some((0.0, (0.0, r), (-r, 0.0))),
            Loss::SquaredHinge => Some((lambda, (0.0, inf), (-inf, 0.0))),
            Loss::SmoothedHinge { smoothing } => Some((smoothing * lambda, (0.0, r), (-r, 0.0))),
        }
    }
}

/// Run `$body` with `$l` bound to a copy of `$loss` whose variant is known at compile time, so
/// the loss's `match` folds away inside a solver's hot loop (paper C's greedy scan).
macro_rules! with_loss {
    ($loss:expr, $l:ident => $body:expr) => {
        match $loss {
            $crate::losses::Loss::Square => {
                let $l = $crate::losses::Loss::Square;
                $body
            }
            $crate::losses::Loss::Absolute => {
                let $l = $crate::losses::Loss::Absolute;
                $body
            }
            $crate::losses::Loss::EpsInsensitive { eps } => {
                let $l = $crate::losses::Loss::EpsInsensitive { eps };
                $body
            }
            $crate::losses::Loss::Huber { rho } => {
                let $l = $crate::losses::Loss::Huber { rho };
                $body
            }
            $crate::losses::Loss::Hinge => {
                let $l = $crate::losses::Loss::Hinge;
                $body
            }
            $crate::losses::Loss::SquaredHinge => {
                let $l = $crate::losses::Loss::SquaredHinge;
                $body
            }
            $crate::losses::Loss::Logistic => {
                let $l = $crate::losses::Loss::Logistic;
                $body
            }
            $crate::losses::Loss::SmoothedHinge { smoothing } => {
                let $l = $crate::losses::Loss::SmoothedHinge { smoothing };
                $body
            }
        }
    };
}
pub(crate) use with_loss;

impl Loss {
    /// True for the margin losses whose targets must be ±1 labels.
    pub fn is_classification(&self) -> bool {
        match self {
            Loss::Hinge | Loss::SquaredHinge | Loss::Logistic | Loss::SmoothedHinge { .. } => true,
            Loss::Square | Loss::Absolute | Loss::EpsInsensitive { .. } | Loss::Huber { .. } => {
                false
            }
        }
    }

    /// Check the loss's parameters against their declared ranges (ε ≥ 0, ρ > 0, μ > 0), each
    /// refusal naming the field (`loss.eps`).
    pub fn validate(&self) -> Result<()> {
        let caps = self.capabilities();
        for (p, v) in caps.parameters.iter().zip(self.parameter_values()) {
            if !p.accepts(v) {
                let op = if p.min_exclusive { ">" } else { "≥" };
                return Err(KpError::Parameter {
                    name: p.field,
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
    pub fn value(&self, y: f64, t: f64) -> f64 {
        match *self {
            Loss::Square => 0.5 * (t - y) * (t - y),
            Loss::Absolute => (t - y).abs(),
            Loss::EpsInsensitive { eps } => fmath::max((t - y).abs() - eps, 0.0),
            Loss::Huber { rho } => {
                let r = (t - y).abs();
                if r <= rho {
                    0.5 * r * r
                } else {
                    rho * r - 0.5 * rho * rho
                }
            }
            Loss::Hinge => fmath::max(1.0 - y * t, 0.0),
            Loss::SquaredHinge => {
                let m = fmath::max(1.0 - y * t, 0.0);
                0.5 * m * m
            }
            Loss::Logistic => softplus(-y * t),
            Loss::SmoothedHinge { smoothing: mu } => {
                let u = 1.0 - y * t;
                if u <= 0.0 {
                    0.0
                } else if u < mu {
                    u * u / (2.0 * mu)
                } else {
                    u - 0.5 * mu
                }
            }
        }
    }

    /// A subgradient of `t ↦ L(y, t)` (at a kink, the one of least magnitude).
    pub fn subgradient(&self, y: f64, t: f64) -> f64 {
        match *self {
            Loss::Square => t - y,
            Loss::Absolute => sign0(t - y),
            Loss::EpsInsensitive { eps } => {
                let r = t - y;
                if r.abs() > eps {
                    r.signum()
                } else {
                    0.0
                }
            }
            Loss::Huber { rho } => (t - y).clamp(-rho, rho),
            Loss::Hinge => {
                if y * t < 1.0 {
                    -y
                } else {
                    0.0
                }
            }
            Loss::SquaredHinge => -y * fmath::max(1.0 - y * t, 0.0),
            Loss::Logistic => {
                // d/dt log(1 + e^(−yt)) = −y σ(−yt)
                let z = -y * t;
                let s = if z >= 0.0 {
                    1.0 / (1.0 + fmath::exp(-z))
                } else {
                    fmath::exp(z) / (1.0 + fmath::exp(z))
                };
                -y * s
            }
            Loss::SmoothedHinge { smoothing: mu } => {
                -y * fmath::min(fmath::max(1.0 - y * t, 0.0) / mu, 1.0)
            }
        }
    }

    /// The subdifferential `∂_t L(y, t)` as an interval `[lo, hi]`.
    pub fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        match *self {
            Loss::Absolute if t == y => (-1.0, 1.0),
            Loss::EpsInsensitive { eps } => {
                let r = t - y;
                if r.abs() < eps {
                    (0.0, 0.0)
                } else if r == eps {
                    if eps == 0.0 {
                        (-1.0, 1.0)
                    } else {
                        (0.0, 1.0)
                    }
                } else if r == -eps {
                    (-1.0, 0.0)
                } else {
                    let g = r.signum();
                    (g, g)
                }
            }
            Loss::Hinge if y * t == 1.0 => {
                let (a, b): (f64, f64) = (0.0, -y);
                (a.min(b), a.max(b))
            }
            // Differentiable here (or everywhere): the subgradient is the derivative.
            Loss::Square
            | Loss::Absolute
            | Loss::Huber { .. }
            | Loss::Hinge
            | Loss::SquaredHinge
            | Loss::Logistic
            | Loss::SmoothedHinge { .. } => {
                let g = self.subgradient(y, t);
                (g, g)
            }
        }
    }

    /// Fenchel conjugate `L*(y, s)`; `+∞` outside its domain.
    pub fn conjugate(&self, y: f64, s: f64) -> f64 {
        let inf = f64::INFINITY;
        match *self {
            Loss::Square => 0.5 * s * s + y * s,
            Loss::Absolute => {
                if s.abs() <= 1.0 {
                    y * s
                } else {
                    inf
                }
            }
            Loss::EpsInsensitive { eps } => {
                if s.abs() <= 1.0 {
                    y * s + eps * s.abs()
                } else {
                    inf
                }
            }
            Loss::Huber { rho } => {
                if s.abs() <= rho {
                    y * s + 0.5 * s * s
                } else {
                    inf
                }
            }
            Loss::Hinge => {
                let sig = y * s;
                if (-1.0..=0.0).contains(&sig) {
                    sig
                } else {
                    inf
                }
            }
            Loss::SquaredHinge => {
                let sig = y * s;
                if sig <= 0.0 {
                    sig + 0.5 * sig * sig
                } else {
                    inf
                }
            }
            Loss::Logistic => {
                // ψ*(σ) = (1 + σ) log(1 + σ) + (−σ) log(−σ) on [−1, 0]
                let sig = y * s;
                if (-1.0..=0.0).contains(&sig) {
                    xlogx(1.0 + sig) + xlogx(-sig)
                } else {
                    inf
                }
            }
            Loss::SmoothedHinge { smoothing: mu } => {
                // sup_m σm − L(m): σ + μσ²/2 on σ = ys ∈ [−1, 0]
                let sig = y * s;
                if (-1.0..=0.0).contains(&sig) {
                    sig + 0.5 * mu * sig * sig
                } else {
                    inf
                }
            }
        }
    }

    /// Short name, as in the spec.
    pub fn name(&self) -> &'static str {
        match self {
            Loss::Square => "square",
            Loss::Absolute => "absolute",
            Loss::EpsInsensitive { .. } => "eps_insensitive",
            Loss::Huber { .. } => "huber",
            Loss::Hinge => "hinge",
            Loss::SquaredHinge => "squared_hinge",
            Loss::Logistic => "logistic",
            Loss::SmoothedHinge { .. } => "smoothed_hinge",
        }
    }
}

fn sign0(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// `σ(x) = 1/(1 + e^(−x))` without overflow.
fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + fmath::exp(-x))
    } else {
        let e = fmath::exp(x);
        e / (1.0 + e)
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
        let r = alpha * y - v;
        match *self {
            Loss::Square => r / (1.0 + alpha * lambda),
            Loss::Absolute => sign0(r) * fmath::min(r.abs(), 1.0 / lambda),
            Loss::EpsInsensitive { eps } => {
                sign0(r) * fmath::min(fmath::max(r.abs() - alpha * eps, 0.0), 1.0 / lambda)
            }
            Loss::Huber { rho } => {
                sign0(r) * fmath::min(r.abs() / (1.0 + alpha * lambda), rho / lambda)
            }
            Loss::Hinge => y * fmath::min(fmath::max(alpha - y * v, 0.0), 1.0 / lambda),
            Loss::SquaredHinge => y * fmath::max(alpha - y * v, 0.0) / (1.0 + alpha * lambda),
            Loss::Logistic => {
                let gamma = 1.0 / (alpha * lambda);
                let m = y * v / alpha;
                let s = logistic_prox_margin(m, gamma);
                y * sigmoid(-s) / lambda
            }
            Loss::SmoothedHinge { smoothing: mu } => {
                y * fmath::min(
                    fmath::max(alpha - y * v, 0.0) / (1.0 + alpha * mu * lambda),
                    1.0 / lambda,
                )
            }
        }
    }

    /// The Moreau–Yosida envelope of `f(t) = L(y, t)/λ` as defined in paper C's appendix,
    /// `f_α(x) = min_t f(t) + (α/2)(t − x)²` (Theorem 5), evaluated through the proximal point
    /// `p = prox_{f/α}(x)`, which is read off the resolvent: `p = x + (−J_α(αx))/α`.
    /// For the hinge loss, λ = α = 1 this is `1/2 − yx` for `yx ≤ 0` and `(1 − yx)_+²/2` beyond.
    /// The domain `[lo, hi]` of `s ↦ L*(y, s)` (the range of `−λc_i` at any iterate of
    /// paper C's solvers, since `−J_α` maps into it).
    pub fn conjugate_domain(&self, y: f64) -> (f64, f64) {
        let inf = f64::INFINITY;
        match *self {
            Loss::Square => (-inf, inf),
            Loss::Absolute | Loss::EpsInsensitive { .. } => (-1.0, 1.0),
            Loss::Huber { rho } => (-rho, rho),
            Loss::Hinge | Loss::Logistic | Loss::SmoothedHinge { .. } => {
                if y >= 0.0 {
                    (-1.0, 0.0)
                } else {
                    (0.0, 1.0)
                }
            }
            Loss::SquaredHinge => {
                if y >= 0.0 {
                    (-inf, 0.0)
                } else {
                    (0.0, inf)
                }
            }
        }
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

    pub fn moreau_envelope(&self, y: f64, x: f64, alpha: f64, lambda: f64) -> f64 {
        // prox_{f/α}(x) = argmin_t L(y,t)/(αλ) + (t − x)²/2; by the Moreau identity
        // J_α(αx) = αx − α·prox_{f/α}(x), so prox = x + (−J_α(αx))/α.
        let p = x + self.neg_resolvent(y, alpha * x, alpha, lambda) / alpha;
        self.value(y, p) / lambda + 0.5 * alpha * (p - x) * (p - x)
    }
}

/// The margin `s = y·t` of `prox_{γ·log(1+e^(−y·))}` at a point of margin `m`: the root of
/// `g(s) = s − m − γσ(−s)`, increasing with `g' = 1 + γσ(s)σ(−s) ∈ [1, 1 + γ/4]` and bracketed
/// by `[m, m + γ]` ([`increasing_root`]).
fn logistic_prox_margin(m: f64, gamma: f64) -> f64 {
    if !m.is_finite() {
        // An overflowed margin (±∞, NaN) has no bracket (and `clamp` panics on a NaN bound):
        // pass it on, so the solver reports a non-finite iterate.
        return m;
    }
    // Start from the smooth approximation in the middle of the bracket.
    let start = m + gamma * sigmoid(-m) / (1.0 + 0.25 * gamma);
    increasing_root(
        |s| {
            let sg = sigmoid(-s);
            (s - m - gamma * sg, 1.0 + gamma * sg * (1.0 - sg))
        },
        m,
        m + gamma,
        start,
    )
}

/// The root of an increasing function on a bracket `[lo, hi]` (`f(lo) ≤ 0 ≤ f(hi)`), given
/// `s ↦ (f(s), f'(s))`: Newton from `start`, safeguarded as in Numerical Recipes' `rtsafe`
/// (§9.4): a bisection of the bracket whenever the Newton point leaves it or the Newton step
/// is more than half the step before last. A sigmoid's flat tails otherwise send plain
/// bracketed Newton back and forth between them while the bracket barely shrinks: paper C's
/// logistic coordinate update stopped after its 100 steps at a margin of −6.2 where the root
/// is −0.75 (λ = 0.07), and the dual objective fell by 10 %. Bisection alone would need about
/// 60 steps, so 200 always suffice.
fn increasing_root(f: impl Fn(f64) -> (f64, f64), mut lo: f64, mut hi: f64, start: f64) -> f64 {
    let mut s = start.clamp(lo, hi);
    let mut dx_old = hi - lo;
    let mut dx = dx_old;
    for _ in 0..200 {
        let (g, dg) = f(s);
        if g == 0.0 {
            return s;
        }
        if g > 0.0 {
            hi = s;
        } else {
            lo = s;
        }
        let newton = s - g / dg;
        let next = if !(newton > lo && newton < hi) || (2.0 * g).abs() > (dx_old * dg).abs() {
            dx_old = dx;
            dx = 0.5 * (hi - lo);
            lo + dx
        } else {
            dx_old = dx;
            dx = g / dg;
            newton
        };
        if (next - s).abs() <= 4.0 * f64::EPSILON * (1.0 + s.abs())
            || hi - lo <= 4.0 * f64::EPSILON * (1.0 + s.abs())
        {
            return next;
        }
        s = next;
    }
    s
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
    pub fn dual_term_derivatives(&self, y: f64, a: f64, gamma: f64) -> Option<(f64, f64)> {
        match *self {
            Loss::Square => Some((a / gamma - y, 1.0 / gamma)),
            Loss::Logistic => {
                let b = y * a;
                let c = gamma - b;
                Some((y * (fmath::ln(b) - fmath::ln(c)), gamma / (b * c)))
            }
            Loss::Absolute
            | Loss::EpsInsensitive { .. }
            | Loss::Huber { .. }
            | Loss::Hinge
            | Loss::SquaredHinge
            | Loss::SmoothedHinge { .. } => None,
        }
    }

    /// The dual Newton method's starting coordinate: a point inside the dual term's domain
    /// (`yγ/2`, the middle of `[0, γ]` in `b = ya`, for the logistic loss; 0 otherwise).
    pub fn dual_newton_start(&self, y: f64, gamma: f64) -> f64 {
        match *self {
            Loss::Logistic => 0.5 * gamma * y,
            Loss::Square
            | Loss::Absolute
            | Loss::EpsInsensitive { .. }
            | Loss::Huber { .. }
            | Loss::Hinge
            | Loss::SquaredHinge
            | Loss::SmoothedHinge { .. } => 0.0,
        }
    }

    /// The work of one evaluation of [`Self::neg_resolvent`] in the budget's units
    /// (multiply-adds): a few for the closed forms, about a thousand (measured) for the
    /// logistic loss's safeguarded Newton solve with exponentials.
    pub fn resolvent_work(&self) -> f64 {
        match *self {
            Loss::Logistic => 1000.0,
            Loss::Square
            | Loss::Absolute
            | Loss::EpsInsensitive { .. }
            | Loss::Huber { .. }
            | Loss::Hinge
            | Loss::SquaredHinge
            | Loss::SmoothedHinge { .. } => 4.0,
        }
    }

    /// `g(a) = γ L*(y, −a/γ)`, the loss's term of paper A's dual (eq. 24, Appendix B.2), in closed
    /// form in `a` (so the domain test matches the clamps of [`Loss::prox_dual`] exactly);
    /// `+∞` outside its domain.
    pub fn dual_term(&self, y: f64, a: f64, gamma: f64) -> f64 {
        let inf = f64::INFINITY;
        match *self {
            Loss::Square => a * a / (2.0 * gamma) - y * a,
            Loss::Absolute => {
                if a.abs() <= gamma {
                    -y * a
                } else {
                    inf
                }
            }
            Loss::EpsInsensitive { eps } => {
                if a.abs() <= gamma {
                    eps * a.abs() - y * a
                } else {
                    inf
                }
            }
            Loss::Huber { rho } => {
                if a.abs() <= rho * gamma {
                    a * a / (2.0 * gamma) - y * a
                } else {
                    inf
                }
            }
            Loss::Hinge => {
                let b = y * a;
                if (0.0..=gamma).contains(&b) {
                    -b
                } else {
                    inf
                }
            }
            Loss::SquaredHinge => {
                let b = y * a;
                if b >= 0.0 {
                    -b + b * b / (2.0 * gamma)
                } else {
                    inf
                }
            }
            Loss::Logistic => {
                let b = y * a;
                if (0.0..=gamma).contains(&b) {
                    let t = b / gamma;
                    gamma * (xlogx(t) + xlogx(1.0 - t))
                } else {
                    inf
                }
            }
            Loss::SmoothedHinge { smoothing: mu } => {
                let b = y * a;
                if (0.0..=gamma).contains(&b) {
                    -b + mu * b * b / (2.0 * gamma)
                } else {
                    inf
                }
            }
        }
    }

    /// The prox of the dual term (Algorithm 3.3, eq. 28, coordinatewise):
    /// `argmin_a step·g(a) + (a − v)²/2` with `g(a) = γ L*(y, −a/γ)` ([`Loss::dual_term`]).
    /// Closed form for every loss but the logistic, whose optimality condition
    /// `step·logit(b/γ) + b = y v` (`b = y a`) is solved in `z = logit(b/γ)` by a safeguarded
    /// Newton iteration on the bracket `[(y v − γ)/step, y v/step]`.
    /// `step` and `gamma` must be positive (the solvers validate them).
    pub fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        match *self {
            Loss::Square => (v + step * y) / (1.0 + step / gamma),
            Loss::Absolute => (v + step * y).clamp(-gamma, gamma),
            Loss::EpsInsensitive { eps } => {
                let u = v + step * y;
                let thr = step * eps;
                let s = if u > thr {
                    u - thr
                } else if u < -thr {
                    u + thr
                } else {
                    0.0
                };
                s.clamp(-gamma, gamma)
            }
            Loss::Huber { rho } => {
                let c = rho * gamma;
                ((v + step * y) / (1.0 + step / gamma)).clamp(-c, c)
            }
            Loss::Hinge => y * (y * v + step).clamp(0.0, gamma),
            Loss::SquaredHinge => y * fmath::max((y * v + step) / (1.0 + step / gamma), 0.0),
            Loss::Logistic => y * logistic_prox_b(y * v, step, gamma),
            Loss::SmoothedHinge { smoothing: mu } => {
                y * ((y * v + step) / (1.0 + step * mu / gamma)).clamp(0.0, gamma)
            }
        }
    }

    /// The Fenchel–Young gap of one coordinate, `γ L(y, t) + g(a) + a t ≥ 0`
    /// (`= γ[L(y, t) + L*(y, s) − s t]` with `s = −a/γ`). Summed over i with `t_i = ∇P(α)_i`
    /// it is paper A's duality gap `F(w(α)) + Λ(α)` (Euler: `⟨α, ∇P(α)⟩ = q P(α)`), without the
    /// cancellation of subtracting two large objectives. Square loss: `(γ/2)(t − y + a/γ)²`.
    pub fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        match *self {
            Loss::Square => {
                let r = t - y + a / gamma;
                0.5 * gamma * r * r
            }
            Loss::Absolute
            | Loss::EpsInsensitive { .. }
            | Loss::Huber { .. }
            | Loss::Hinge
            | Loss::SquaredHinge
            | Loss::Logistic
            | Loss::SmoothedHinge { .. } => {
                (gamma * self.value(y, t) + self.dual_term(y, a, gamma) + a * t).max(0.0)
            }
        }
    }
}

/// The logistic prox in `b = y a ∈ [0, γ]`: the root of `step·z + γσ(z) = c` (`c = y v`),
/// `b = γσ(z)`. The left side is increasing in z with derivative `step + γσ(z)σ(−z)`, and
/// `γσ ∈ (0, γ)` brackets the root in `[(c − γ)/step, c/step]` ([`increasing_root`]).
fn logistic_prox_b(c: f64, step: f64, gamma: f64) -> f64 {
    // Beyond |z| = 800, σ(z) rounds to 0 or 1.
    const ZMAX: f64 = 800.0;
    let lo = ((c - gamma) / step).max(-ZMAX);
    let hi = (c / step).min(ZMAX);
    if lo >= hi {
        // The bracket lies entirely beyond ±ZMAX, where σ is 0 or 1.
        return if hi <= -ZMAX { 0.0 } else { gamma };
    }
    // Start from the smaller-magnitude guess when it lies in the bracket.
    let guess = (c - 0.5 * gamma) / (step + 0.25 * gamma);
    let start = if guess > lo && guess < hi { guess } else { 0.5 * (lo + hi) };
    let z = increasing_root(
        |z| (step * z + gamma * sigmoid(z) - c, step + gamma * sigmoid(z) * sigmoid(-z)),
        lo,
        hi,
        start,
    );
    (gamma * sigmoid(z)).clamp(0.0, gamma)
}
