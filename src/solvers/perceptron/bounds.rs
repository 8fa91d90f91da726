//! The iteration bounds of paper D as functions of the margin ρ_K (for the reference lines of
//! the page and the tests). Constants as derived in the paper's proofs:
//!
//! * Perceptron (Novikoff, features of norm 1) and NKP (§4): `1/ρ_K²`;
//! * SNKP (Theorem 1): `L(α_k) ≤ μ_k log n − ρ²/2` with `μ_k = 4/((k+1)(k+2)) < 4/(k+1)²`, so
//!   `Gα_k > 0` once `k ≥ 2√(2 log n)/ρ_K`;
//! * SNKPVN separable (Lemma 8, `sup_Δ ½‖p − q‖² ≤ 1`, `μ_k = 4n/((k+1)(k+2))`):
//!   `k ≥ 2√(2n)/ρ_K` when `δ ≤ ρ_K` (Theorem 4 states the same `2√(2n)/ρ_K`);
//! * SNKPVN inseparable (Lemma 9): `‖p_k‖²_G ≤ μ_k dist(q, W)²` and Lemma 7
//!   `dist(q,W) ≤ √2·min{1, ‖q‖_G/|ρ_K|}` give `‖p_k‖_G ≤ 2√(2n)/(k+1)·min{1, ‖q‖_G/|ρ_K|}`, so
//!   a δ-certificate once `k + 1 > 2√(2n)/δ · min{1, ‖q‖_G/|ρ_K|}`. (The paper prints
//!   `2√n/(k+1)·min{√2, ‖q‖_G/ρ_K}`: the second term lost a factor √2 between its two displays.)
//! * NVN inseparable (Dantzig): `‖p_k‖²_G ≤ 1/k`, so `k ≥ 1/ε²`.
//! * ISNKPVN separable with `ε < ρ_K` (Theorem 4.1): at most
//!   `max(1, ⌈log(‖q₀‖_G/ρ_K)/log γ⌉)` phases of at most `2√(2n)/ρ_K + 1` iterations each.

use super::problem::PerceptronAlgorithm;
use crate::fmath;

/// `2√(2 log n)/ρ` (Theorem 1).
pub fn snkp_bound(n: usize, rho: f64) -> f64 {
    2.0 * (2.0 * fmath::ln(n as f64)).sqrt() / rho
}

/// `2√(2n)/ρ` (Lemma 8, Theorem 4).
pub fn snkpvn_bound(n: usize, rho: f64) -> f64 {
    2.0 * (2.0 * n as f64).sqrt() / rho
}

/// `1/ρ²` (Novikoff; NKP §4).
pub fn perceptron_bound(rho: f64) -> f64 {
    1.0 / (rho * rho)
}

/// Iterations after which SNKPVN(q, δ) must have returned a δ-certificate on inseparable data
/// (Lemma 9): `2√(2n)/δ · min{1, ‖q‖_G/|ρ_K|}`; pass `rho_abs = 0` when `|ρ_K|` is unknown.
pub fn snkpvn_certificate_bound(n: usize, delta: f64, q_norm_g: f64, rho_abs: f64) -> f64 {
    let factor = if rho_abs > 0.0 { (q_norm_g / rho_abs).min(1.0) } else { 1.0 };
    2.0 * (2.0 * n as f64).sqrt() / delta * factor
}

/// `1/ε²` (Dantzig's bound for NVN on inseparable data).
pub fn nvn_certificate_bound(epsilon: f64) -> f64 {
    1.0 / (epsilon * epsilon)
}

/// The bound on the iterations to a separator for separable data with margin at least
/// `rho > 0` (use the certified lower end of the margin bracket, which makes the bound safe).
/// `q0_norm_g = ‖1/n‖_G` is needed for ISNKPVN. None where the paper gives no such bound
/// (NVN; SNKPVN with `δ > ρ`; ISNKPVN with `ε ≥ ρ`).
pub fn separator_bound(
    algorithm: &PerceptronAlgorithm,
    n: usize,
    rho: f64,
    q0_norm_g: f64,
) -> Option<f64> {
    if rho.is_nan() || rho <= 0.0 {
        return None;
    }
    match *algorithm {
        PerceptronAlgorithm::Perceptron | PerceptronAlgorithm::Nkp => Some(perceptron_bound(rho)),
        PerceptronAlgorithm::Snkp => Some(snkp_bound(n, rho)),
        PerceptronAlgorithm::Snkpvn { delta } if delta <= rho => Some(snkpvn_bound(n, rho)),
        PerceptronAlgorithm::Isnkpvn { gamma, epsilon } if epsilon < rho => {
            let phases = (fmath::ln(q0_norm_g / rho) / fmath::ln(gamma)).ceil().max(1.0);
            Some(phases * (snkpvn_bound(n, rho) + 1.0))
        }
        _ => None,
    }
}

/// The bound on the iterations to an ε-certificate for inseparable data (NVN: `1/ε²`; SNKPVN
/// from q = 1/n: Lemma 9). `rho_abs` is a lower bound on `|ρ_K|` (0 if unknown). ISNKPVN's
/// bound is per phase ([`snkpvn_certificate_bound`] with `δ_t`, `‖q_t‖_G = γδ_t`).
pub fn certificate_bound(
    algorithm: &PerceptronAlgorithm,
    n: usize,
    q0_norm_g: f64,
    rho_abs: f64,
) -> Option<f64> {
    match *algorithm {
        PerceptronAlgorithm::Nvn { epsilon } => Some(nvn_certificate_bound(epsilon)),
        PerceptronAlgorithm::Snkpvn { delta } => {
            Some(snkpvn_certificate_bound(n, delta, q0_norm_g, rho_abs))
        }
        _ => None,
    }
}
