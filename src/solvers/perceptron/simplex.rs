//! The probability simplex `Δ_n = {p ∈ ℝⁿ : p ≥ 0, Σ p_i = 1}` and the exact Euclidean
//! projection onto it, used by paper D's SNKPVN (Ramdas–Peña, Algorithm 6: the smoothed
//! minimizer `p^q_μ(α) = Proj_Δ(q − Gα/μ)` "can easily be found by sorting").

use crate::error::{KpError, Result};

/// Euclidean projection of `v` onto the simplex, `argmin_{p ∈ Δ_n} ‖p − v‖₂`, by the exact
/// sort-based rule (Held–Wolfe–Crowder; Duchi et al. 2008): sort `v` decreasingly into `u`,
/// take the largest `r` with `u_r − (Σ_{i≤r} u_i − 1)/r > 0`, set `τ = (Σ_{i≤r} u_i − 1)/r`
/// and return `(v − τ)_+`. O(n log n). Fails on an empty or non-finite input.
pub fn project_onto_simplex(v: &[f64]) -> Result<Vec<f64>> {
    let mut out = vec![0.0; v.len()];
    let mut scratch = Vec::with_capacity(v.len());
    project_onto_simplex_into(v, &mut out, &mut scratch)?;
    Ok(out)
}

/// [`project_onto_simplex`] writing into `out` (same length as `v`), with `scratch` reused for
/// the sorted copy, so an iterative solver allocates nothing per iteration.
pub fn project_onto_simplex_into(v: &[f64], out: &mut [f64], scratch: &mut Vec<f64>) -> Result<()> {
    let tau = simplex_threshold(v, scratch)?;
    if out.len() != v.len() {
        return Err(KpError::Parameter {
            name: "simplex projection",
            reason: format!("output has length {} but the input has length {}", out.len(), v.len()),
        });
    }
    for (o, &vi) in out.iter_mut().zip(v) {
        *o = (vi - tau).max(0.0);
    }
    Ok(())
}

/// The threshold τ of the projection: the unique τ with `Σ_i (v_i − τ)_+ = 1`.
pub fn simplex_threshold(v: &[f64], scratch: &mut Vec<f64>) -> Result<f64> {
    if v.is_empty() {
        return Err(KpError::Parameter {
            name: "simplex projection",
            reason: "the vector is empty".into(),
        });
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(KpError::NonFinite(
            "simplex projection of a vector with a NaN or infinite entry".into(),
        ));
    }
    scratch.clear();
    scratch.extend_from_slice(v);
    scratch.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut cumsum = 0.0;
    let mut tau = scratch[0] - 1.0; // r = 1 always qualifies
    for (r, &u) in scratch.iter().enumerate() {
        cumsum += u;
        let t = (cumsum - 1.0) / (r as f64 + 1.0);
        if u - t > 0.0 {
            tau = t;
        } else {
            break; // the condition holds for a prefix of r only
        }
    }
    Ok(tau)
}

/// How far `p` is from the simplex: `(min_i p_i, Σ p_i − 1)`. `p ∈ Δ_n` iff the first is ≥ 0
/// and the second is 0 (to rounding).
pub fn simplex_residuals(p: &[f64]) -> (f64, f64) {
    let min = p.iter().copied().fold(f64::INFINITY, f64::min);
    let sum: f64 = p.iter().sum();
    (min, sum - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_of_a_simplex_point_is_itself() {
        let p = [0.2, 0.3, 0.5];
        let q = project_onto_simplex(&p).unwrap();
        for (a, b) in p.iter().zip(&q) {
            assert!((a - b).abs() < 1e-15);
        }
    }

    #[test]
    fn projection_closed_forms() {
        // (2, 0) projects to the vertex e_1; (0.5, 0.5) + c·1 projects to (0.5, 0.5).
        assert_eq!(project_onto_simplex(&[2.0, 0.0]).unwrap(), vec![1.0, 0.0]);
        let q = project_onto_simplex(&[3.5, 3.5]).unwrap();
        assert!((q[0] - 0.5).abs() < 1e-15 && (q[1] - 0.5).abs() < 1e-15);
        assert!(project_onto_simplex(&[]).is_err());
        assert!(project_onto_simplex(&[f64::NAN, 1.0]).is_err());
    }
}
