//! Paper D's independent computations (Ramdas–Peña): ρ_K of a 2-D linear kernel by brute force
//! over directions (Lemma 3 / Theorem 3, without G, the min-norm solver or a hull), the least
//! ‖p_k‖_G over a run's trace (Lemma 3 along the run) and the weight of a certificate's three
//! heaviest points.

use serde_json::Value;

use crate::papers::{self, Spec};

/// The largest n for [`plane_rho`] (O(n³) arithmetic).
const MAX_PLANE_N: usize = 600;

/// ρ_K for the linear kernel on 2-D data, from the data alone. With vᵢ = yᵢxᵢ/‖xᵢ‖ (so that
/// ⟨vᵢ, vⱼ⟩ = G_ij) and w ranging over unit vectors of the plane (the data span it),
/// ρ_K = sup_w minᵢ ⟨w, vᵢ⟩ (eq. (5), its α-form Lemma 3) = −min_u h(u) with the support function
/// h(u) = maxᵢ ⟨u, vᵢ⟩ of the hull of the vᵢ. On the arc where one vᵢ is active h is
/// ‖vᵢ‖cos(θ − θᵢ), whose only interior minimum is at u = −vᵢ/‖vᵢ‖; elsewhere the minimum is at
/// a breakpoint, where two vᵢ tie: u ⟂ vᵢ − vⱼ. So min h over those candidates is exact. When
/// the origin is inside the hull, −ρ_K = min h is the distance from the origin to the nearest
/// edge line, the radius of the largest ball about 0 inside the hull (Theorem 3); when it is
/// outside, ρ_K is the distance from 0 to the hull (Lemma 3's minimax).
pub fn plane_rho(spec: &Spec, spec_v: &Value) -> Result<f64, String> {
    let data = linear_plane_points(spec, spec_v)?;
    let n = data.n();
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        let (a, b) = (data.x[(i, 0)], data.x[(i, 1)]);
        let r = a.hypot(b);
        if r.is_nan() || r <= 0.0 {
            return Err(format!("point {i} is the origin: K(x, x) = 0"));
        }
        v.push((data.y[i] * a / r, data.y[i] * b / r));
    }
    plane_rho_of(&v)
}

/// [`plane_rho`] on the vectors vᵢ themselves (unit or not).
pub fn plane_rho_of(v: &[(f64, f64)]) -> Result<f64, String> {
    let h =
        |u: (f64, f64)| v.iter().map(|p| u.0 * p.0 + u.1 * p.1).fold(f64::NEG_INFINITY, f64::max);
    // The data must span the plane (else the sup over the span is not a sup over the plane).
    let spans = v.iter().any(|a| v.iter().any(|b| (a.0 * b.1 - a.1 * b.0).abs() > 1e-12));
    if !spans {
        return Err("the points yᵢxᵢ/‖xᵢ‖ are collinear: rank 1".into());
    }
    let mut best = f64::INFINITY;
    for (i, a) in v.iter().enumerate() {
        let r = a.0.hypot(a.1);
        if r > 0.0 {
            best = best.min(h((-a.0 / r, -a.1 / r)));
        }
        for b in &v[..i] {
            let (dx, dy) = (a.0 - b.0, a.1 - b.1);
            let len = dx.hypot(dy);
            if len > 1e-15 {
                let u = (-dy / len, dx / len);
                best = best.min(h(u)).min(h((-u.0, -u.1)));
            }
        }
    }
    Ok(-best)
}

/// The least ‖p_k‖_G over the run's trace (every recorded iterate; Lemma 3 says each is ≥ ρ_K).
pub fn trace_min_norm_p(report: &Value) -> Result<f64, String> {
    let trace =
        crate::lesson::format::lookup(report, "trace")?.as_array().cloned().unwrap_or_default();
    let v: Vec<f64> = trace.iter().filter_map(|r| r.get("norm_p_g")?.as_f64()).collect();
    if v.is_empty() {
        return Err("the trace has no ‖p_k‖_G (the algorithm keeps no p)".into());
    }
    Ok(v.into_iter().fold(f64::INFINITY, f64::min))
}

/// The sum of the three largest pᵢ of the run's p, over Σ pᵢ.
pub fn p_top3_mass(report: &Value) -> Result<f64, String> {
    let mut p = crate::lesson::format::vector(report, "solution.p")?;
    let total: f64 = p.iter().sum();
    if total.is_nan() || total <= 0.0 || p.iter().any(|x| *x < 0.0) {
        return Err("solution.p is not a point of the simplex".into());
    }
    p.sort_by(|a, b| b.total_cmp(a));
    Ok(p.iter().take(3).sum::<f64>() / total)
}

/// ‖q‖_G for the uniform q = 1/n (Algorithm 7's q₀, Algorithm 6's q in SNKPVN(1/n, δ)) with the
/// linear kernel, from the data alone: ‖(1/n) Σᵢ yᵢxᵢ/‖xᵢ‖‖₂ (since G = VᵀV with the columns
/// vᵢ = yᵢxᵢ/‖xᵢ‖, ‖q‖_G = ‖Vq‖₂), without building G.
pub fn uniform_norm_g(spec: &Spec, spec_v: &Value) -> Result<f64, String> {
    let data = linear_data(spec, spec_v)?;
    let (n, d) = (data.n(), data.x.ncols());
    let mut mean = vec![0.0; d];
    for i in 0..n {
        let r = data.x.row(i).norm();
        if r.is_nan() || r <= 0.0 {
            return Err(format!("point {i} is the origin: K(x, x) = 0"));
        }
        for (t, m) in mean.iter_mut().enumerate() {
            *m += data.y[i] * data.x[(i, t)] / r / n as f64;
        }
    }
    Ok(mean.iter().map(|m| m * m).sum::<f64>().sqrt())
}

/// The data of a linear-kernel step (refused for any other kernel).
fn linear_data(spec: &Spec, spec_v: &Value) -> Result<crate::data::Dataset, String> {
    let kind = crate::lesson::format::lookup(spec_v, "kernel.kind")?;
    if kind.as_str() != Some("linear") {
        return Err(format!("needs the linear kernel (the spec's is `{kind}`)"));
    }
    papers::data(spec).map_err(|e| e.to_string())
}

/// The raw 2-D points of a linear-kernel step (refused otherwise).
fn linear_plane_points(spec: &Spec, spec_v: &Value) -> Result<crate::data::Dataset, String> {
    let data = linear_data(spec, spec_v)?;
    if data.x.ncols() != 2 {
        return Err(format!("needs 2-D data (d = {})", data.x.ncols()));
    }
    if data.n() > MAX_PLANE_N {
        return Err(format!("n = {} is above {MAX_PLANE_N} for the brute force", data.n()));
    }
    Ok(data)
}

/// §2.2's unnormalized margin ρ = sup over unit w of minᵢ yᵢ⟨w, xᵢ⟩ on the raw points (not
/// xᵢ/‖xᵢ‖), by the same exact brute force over directions as [`plane_rho`].
pub fn plane_rho_raw(spec: &Spec, spec_v: &Value) -> Result<f64, String> {
    let data = linear_plane_points(spec, spec_v)?;
    let v: Vec<(f64, f64)> =
        (0..data.n()).map(|i| (data.y[i] * data.x[(i, 0)], data.y[i] * data.x[(i, 1)])).collect();
    plane_rho_of(&v)
}

/// maxᵢ ‖xᵢ‖² over the raw points.
pub fn max_norm_sq(spec: &Spec) -> Result<f64, String> {
    let data = papers::data(spec).map_err(|e| e.to_string())?;
    if data.n() == 0 {
        return Err("no points".into());
    }
    Ok((0..data.n()).map(|i| data.x.row(i).norm_squared()).fold(0.0, f64::max))
}

/// The most updates [`raw_perceptron_updates`] makes before it gives up.
const RAW_PERCEPTRON_CAP: usize = 1_000_000;

/// Algorithm 1 on the raw points, written here: w₀ = 0; scan the points cyclically, resuming
/// after the last update, and on the first i with yᵢ⟨w, xᵢ⟩ ≤ 0 set w ← w + yᵢxᵢ; stop when a
/// whole scan finds no mistake. The number of updates (an error past 10⁶: not separated).
pub fn raw_perceptron_updates(spec: &Spec, spec_v: &Value) -> Result<f64, String> {
    let data = linear_data(spec, spec_v)?;
    let (n, d) = (data.n(), data.x.ncols());
    if n == 0 {
        return Err("no points".into());
    }
    let mut w = vec![0.0; d];
    let (mut cursor, mut updates) = (0usize, 0usize);
    loop {
        let mistake = (0..n).map(|o| (cursor + o) % n).find(|&i| {
            let s: f64 = (0..d).map(|t| w[t] * data.x[(i, t)]).sum();
            data.y[i] * s <= 0.0
        });
        let Some(i) = mistake else { return Ok(updates as f64) };
        for (t, wt) in w.iter_mut().enumerate() {
            *wt += data.y[i] * data.x[(i, t)];
        }
        cursor = (i + 1) % n;
        updates += 1;
        if updates >= RAW_PERCEPTRON_CAP {
            return Err(format!("no separator after {RAW_PERCEPTRON_CAP} updates"));
        }
    }
}

/// ISNKPVN's outer loops from the run's `solution.phases` (each call's iterations and δₜ):
/// their largest and summed iterations, and, on inseparable data, Lemma 9's bound per call
/// Bₜ = 2γ(2n)^{1/2}/max(‖qₜ‖_G, |ρ_K|) + 1 (from ‖p_k‖_G ≤ 2(2n)^{1/2}/(k + 1)·min{1, ‖qₜ‖_G/|ρ_K|},
/// its √2 restored, and δₜ = ‖qₜ‖_G/γ), with |ρ_K| from [`plane_rho`]: ΣBₜ, or maxₜ kₜ/Bₜ.
pub fn phases(
    what: crate::lesson::format::Compute,
    spec: &Spec,
    spec_v: &Value,
    report: &Value,
) -> Result<f64, String> {
    use crate::lesson::format::Compute as C;
    let list = crate::lesson::format::lookup(report, "solution.phases")?
        .as_array()
        .cloned()
        .ok_or("solution.phases is not a list (the algorithm is not ISNKPVN)")?;
    let mut calls = Vec::with_capacity(list.len());
    for (t, p) in list.iter().enumerate() {
        let k = p.get("iterations").and_then(Value::as_f64);
        let delta = p.get("delta").and_then(Value::as_f64);
        match (k, delta) {
            (Some(k), Some(delta)) if delta > 0.0 => calls.push((k, delta)),
            _ => return Err(format!("solution.phases[{t}] has no iterations and δ")),
        }
    }
    if calls.is_empty() {
        return Err("the run has no finished outer loop".into());
    }
    match what {
        C::PhaseMaxIterations => return Ok(calls.iter().map(|c| c.0).fold(0.0, f64::max)),
        C::PhaseSumIterations => return Ok(calls.iter().map(|c| c.0).sum()),
        _ => {}
    }
    let gamma = crate::lesson::format::lookup(spec_v, "algorithm.gamma")?
        .as_f64()
        .ok_or("algorithm.gamma is not a number")?;
    let rho = plane_rho(spec, spec_v)?;
    if rho >= 0.0 {
        return Err(format!("written for inseparable data (ρ_K = {rho} ≥ 0)"));
    }
    let n = papers::data(spec).map_err(|e| e.to_string())?.n() as f64;
    let bound = |delta: f64| 2.0 * gamma * (2.0 * n).sqrt() / (gamma * delta).max(rho.abs()) + 1.0;
    Ok(match what {
        C::PhaseBoundSum => calls.iter().map(|c| bound(c.1)).sum(),
        _ => calls.iter().map(|c| c.0 / bound(c.1)).fold(0.0, f64::max),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::perceptron::margin::{margin, MarginOptions};
    use nalgebra::DMatrix;
    use serde_json::json;

    fn spec(points: &[[f64; 3]]) -> (Spec, Value) {
        let v = json!({"paper": "perceptron", "data": {"kind": "points", "points": points},
            "kernel": {"kind": "linear"}, "algorithm": {"kind": "perceptron"}});
        (Spec::from_json(&v.to_string()).expect("spec"), v)
    }

    #[test]
    fn known_margins_of_a_square_and_a_segment() {
        // v = (1,0), (0,1), (−1,0), (0,−1): the origin at depth 1/√2 inside the square.
        let (s, v) = spec(&[[2.0, 0.0, 1.0], [0.0, 1.0, 1.0], [-3.0, 0.0, 1.0], [0.0, 5.0, -1.0]]);
        let r = plane_rho(&s, &v).unwrap();
        assert!((r + 0.5f64.sqrt()).abs() < 1e-12, "{r}");
        // v = (1,0), (0,1): the hull is a segment at distance 1/√2 from the origin.
        let (s, v) = spec(&[[1.0, 0.0, 1.0], [0.0, -1.0, -1.0]]);
        let r = plane_rho(&s, &v).unwrap();
        assert!((r - 0.5f64.sqrt()).abs() < 1e-12, "{r}");
        // Nearest hull point a vertex: v = (1,0), (0.6, ±0.8) gives ρ = cos(0) … = 0.6.
        let r = plane_rho_of(&[(1.0, 0.0), (0.6, 0.8), (0.6, -0.8)]).unwrap();
        assert!((r - 0.6).abs() < 1e-12, "{r}");
        // Collinear: refused.
        assert!(plane_rho_of(&[(1.0, 0.0), (-1.0, 0.0)]).is_err());
    }

    #[test]
    fn agrees_with_the_min_norm_solver_on_random_data() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for shift in [-0.3, 0.0, 0.4, 1.5] {
            let v: Vec<(f64, f64)> = (0..25)
                .map(|_| {
                    let (a, b) = (rnd() + shift, rnd());
                    let r = a.hypot(b);
                    (a / r, b / r)
                })
                .collect();
            let g = DMatrix::from_fn(25, 25, |i, j| v[i].0 * v[j].0 + v[i].1 * v[j].1);
            let m = margin(&g, &MarginOptions::default()).unwrap();
            let r = plane_rho_of(&v).unwrap();
            assert!(r >= m.lower - 1e-9 && r <= m.upper + 1e-9, "{r} vs {m:?}");
        }
    }

    #[test]
    fn the_papers_example_of_section_2_2() {
        // + points on 6x₂ = 8x₁, − points on 8x₂ = 6x₁, norms 1/3 … 3: ρ₂ = 0.2/√2, ρ = ρ₂/3.
        let mut pts = Vec::new();
        for s in [1.0 / 3.0, 1.0, 3.0] {
            pts.push([0.6 * s, 0.8 * s, 1.0]);
            pts.push([0.8 * s, 0.6 * s, -1.0]);
        }
        let (sp, v) = spec(&pts);
        let r2 = plane_rho(&sp, &v).unwrap();
        assert!((r2 - 0.2 / 2f64.sqrt()).abs() < 1e-12, "{r2}");
        let r = plane_rho_raw(&sp, &v).unwrap();
        assert!((r - r2 / 3.0).abs() < 1e-12, "{r}");
        assert!((max_norm_sq(&sp).unwrap() - 9.0).abs() < 1e-12);
        let k = raw_perceptron_updates(&sp, &v).unwrap();
        assert!(k >= 1.0 && k <= max_norm_sq(&sp).unwrap() / (r * r), "Novikoff: {k}");
        // Inseparable data: the raw perceptron gives up.
        let (sp, v) = spec(&[[1.0, 0.0, 1.0], [-1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.0, -1.0, 1.0]]);
        assert!(raw_perceptron_updates(&sp, &v).is_err());
    }

    #[test]
    fn phases_sum_and_bound_on_a_square() {
        use crate::lesson::format::Compute as C;
        // v = ±e₁, ±e₂ (all labels +1): ρ_K = −1/√2, n = 4, γ = 2.
        let pts = [[2.0, 0.0, 1.0], [0.0, 1.0, 1.0], [-3.0, 0.0, 1.0], [0.0, -5.0, 1.0]];
        let v = json!({"paper": "perceptron", "data": {"kind": "points", "points": pts},
            "kernel": {"kind": "linear"}, "algorithm": {"kind": "isnkpvn", "gamma": 2.0, "epsilon": 0.01}});
        let sp = Spec::from_json(&v.to_string()).expect("spec");
        let rep = json!({"solution": {"phases": [{"iterations": 3, "delta": 0.5}, {"iterations": 1, "delta": 0.1}]}});
        assert_eq!(phases(C::PhaseMaxIterations, &sp, &v, &rep).unwrap(), 3.0);
        assert_eq!(phases(C::PhaseSumIterations, &sp, &v, &rep).unwrap(), 4.0);
        let rho = 0.5f64.sqrt();
        let b = |d: f64| 2.0 * 2.0 * 8f64.sqrt() / (2.0 * d).max(rho) + 1.0;
        let sum = phases(C::PhaseBoundSum, &sp, &v, &rep).unwrap();
        assert!((sum - b(0.5) - b(0.1)).abs() < 1e-12, "{sum}");
        let ratio = phases(C::PhaseMaxRatio, &sp, &v, &rep).unwrap();
        assert!((ratio - (3.0 / b(0.5)).max(1.0 / b(0.1))).abs() < 1e-12, "{ratio}");
        assert!(phases(C::PhaseSumIterations, &sp, &v, &json!({"solution": {}})).is_err());
    }

    #[test]
    fn trace_and_weights() {
        let rep = json!({"trace": [{"norm_p_g": 0.5}, {"norm_p_g": 0.2}, {"min_g_alpha": 1.0}],
            "solution": {"p": [0.1, 0.5, 0.05, 0.3, 0.05]}});
        assert_eq!(trace_min_norm_p(&rep).unwrap(), 0.2);
        assert!((p_top3_mass(&rep).unwrap() - 0.9).abs() < 1e-12);
        assert!(trace_min_norm_p(&json!({"trace": []})).is_err());
    }
    #[test]
    fn uniform_norm_of_a_symmetric_and_a_one_sided_set() {
        // v = (1,0), (0,1), (−1,0), (0,−1): the mean is 0.
        let (s, v) = spec(&[[2.0, 0.0, 1.0], [0.0, 1.0, 1.0], [-3.0, 0.0, 1.0], [0.0, 5.0, -1.0]]);
        assert!(uniform_norm_g(&s, &v).unwrap() < 1e-15);
        // v = (1,0), (0,1): the mean (½, ½), of norm 1/√2; checked against G's quadratic form.
        let (s, v) = spec(&[[3.0, 0.0, 1.0], [0.0, -2.0, -1.0]]);
        let r = uniform_norm_g(&s, &v).unwrap();
        let g = DMatrix::<f64>::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 1.0]);
        let q = nalgebra::DVector::<f64>::from_vec(vec![0.5, 0.5]);
        assert!((r - q.dot(&(&g * &q)).sqrt()).abs() < 1e-14, "{r}");
    }
}
