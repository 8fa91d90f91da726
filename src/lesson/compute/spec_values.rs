//! Values read from a lesson step's spec (JSON) that the computations of `compute.rs` and of
//! paper A's `paper_a.rs` share: a number at a path, paper A's p, q, γ and its tensor kernel. A
//! child of its own so that `paper_a.rs` imports its sibling, not `compute.rs` (issue 34: no
//! parent ⇄ child import cycle).

use serde_json::Value;

/// A number of the spec at `path` (dotted), or a message naming it.
pub(super) fn num(v: &Value, path: &str) -> Result<f64, String> {
    crate::lesson::format::lookup(v, path)?
        .as_f64()
        .ok_or_else(|| format!("`{path}` is not a number"))
}

/// p, q = p/(p − 1) and γ of a paper A spec.
pub(super) fn lp_params(spec_v: &Value) -> Result<(f64, f64, f64), String> {
    let p = num(spec_v, "model.p")?;
    let gamma = num(spec_v, "model.gamma")?;
    if !(p > 1.0 && p < 2.0) {
        return Err(format!("p = {p} is not in (1, 2)"));
    }
    Ok((p, p / (p - 1.0), gamma))
}

/// A paper A tensor kernel as a function of s = sum(x'_1 ⊙ ⋯ ⊙ x'_q) (Section 2.2): `s^degree`
/// (linear: degree 1; polynomial) or `exp(s)` (exponential).
#[derive(Clone, Copy)]
pub(super) enum TensorOf {
    Power(u32),
    Exp,
}

impl TensorOf {
    pub(super) fn apply(self, s: f64) -> f64 {
        match self {
            TensorOf::Power(d) => s.powi(d as i32),
            TensorOf::Exp => s.exp(),
        }
    }
}

/// The kernel of a paper A spec (linear, polynomial of degree s, exponential).
pub(super) fn lp_tensor_kernel(spec_v: &Value) -> Result<TensorOf, String> {
    let kind = match crate::lesson::format::lookup(spec_v, "model.kernel.kind") {
        Ok(k) => k.as_str().unwrap_or("").to_string(),
        Err(_) => "linear".to_string(),
    };
    match kind.as_str() {
        "linear" => Ok(TensorOf::Power(1)),
        "polynomial" => Ok(TensorOf::Power(num(spec_v, "model.kernel.degree")? as u32)),
        "exponential" => Ok(TensorOf::Exp),
        other => Err(format!("the `{other}` tensor kernel is not written here")),
    }
}
