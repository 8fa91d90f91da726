//! The proof of the loss catalogue (issue 20, item 5): the smoothed hinge, added in
//! src/losses.rs alone, checked against brute force in every closed form papers A and C use
//! (value, conjugate, paper C's resolvent and Moreau envelope, paper A's dual prox, paper C's
//! box-constrained dual), then run through paper A's Algorithm 3.3 and paper C's solvers.

mod common;

use kernel_playground::exec::Stop;
use kernel_playground::losses::Loss;
use kernel_playground::papers::{self, Spec};

fn losses() -> Vec<Loss> {
    [0.05, 0.5, 2.0].into_iter().map(|smoothing| Loss::SmoothedHinge { smoothing }).collect()
}

/// A small deterministic grid of points in [lo, hi].
fn grid(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
    (0..n).map(move |i| lo + (hi - lo) * (i as f64 + 0.37) / n as f64)
}

fn mu(l: &Loss) -> f64 {
    match *l {
        Loss::SmoothedHinge { smoothing } => smoothing,
        _ => unreachable!(),
    }
}

/// The smoothed hinge is the Moreau envelope of the hinge with parameter μ:
/// `L(m) = min_u (1 − u)_+ + (u − m)²/(2μ)` — computed by golden section, independent of the
/// piecewise formula.
#[test]
fn value_is_the_moreau_envelope_of_the_hinge() {
    for l in losses() {
        let mu = mu(&l);
        for y in [1.0, -1.0] {
            for t in grid(-4.0, 4.0, 41) {
                let m = y * t;
                let (_, brute) = common::golden_section(
                    |u| (1.0 - u).max(0.0) + (u - m) * (u - m) / (2.0 * mu),
                    m - 10.0,
                    m + 10.0,
                );
                let ours = l.value(y, t);
                assert!((ours - brute).abs() <= 1e-9, "{l:?} y={y} t={t}: {ours} vs {brute}");
                // The subgradient is the derivative (central difference).
                let h = 1e-6;
                let fd = (l.value(y, t + h) - l.value(y, t - h)) / (2.0 * h);
                assert!((l.subgradient(y, t) - fd).abs() <= 1e-5, "{l:?}: L' at {t}");
            }
        }
    }
}

/// `L*(y, s) = sup_t s·t − L(y, t)` by golden section inside the domain `y·s ∈ [−1, 0]`; outside,
/// `s·t − L(y, t)` grows without bound along a ray.
#[test]
fn conjugate_matches_brute_force_sup() {
    for l in losses() {
        for y in [1.0, -1.0] {
            for s in grid(-1.5, 0.5, 40).map(|sig| y * sig) {
                let ours = l.conjugate(y, s);
                let sig = y * s;
                if (-1.0..=0.0).contains(&sig) {
                    let (_, neg) =
                        common::golden_section(|t| -(s * t - l.value(y, t)), -60.0, 60.0);
                    assert!((ours + neg).abs() <= 1e-8, "{l:?} y={y} s={s}: {ours} vs {}", -neg);
                } else {
                    assert!(ours.is_infinite());
                    let dir = if sig > 0.0 { y } else { -y };
                    let far = |r: f64| s * r * dir - l.value(y, r * dir);
                    assert!(far(1e4) > far(1e2) + 1.0, "{l:?} s={s}: not unbounded");
                }
            }
        }
    }
}

/// Paper C's `−J_α(v)`: the coefficient c with `−λc = L'(y, t)` at `t = (v + c)/α` (eq. 6–8),
/// checked as that equation's residual; and the Moreau–Yosida envelope of Theorem 5 against a
/// golden-section minimization of `L(y, t)/λ + (α/2)(t − x)²`.
#[test]
fn resolvent_and_envelope_match_their_definitions() {
    for l in losses() {
        for (alpha, lambda) in [(1.0, 1.0), (0.3, 2.0), (4.0, 0.1)] {
            for y in [1.0, -1.0] {
                for v in grid(-6.0, 6.0, 37) {
                    let c = l.neg_resolvent(y, v, alpha, lambda);
                    let t = (v + c) / alpha;
                    let res = lambda * c + l.subgradient(y, t);
                    assert!(res.abs() <= 1e-12 * (1.0 + lambda * c.abs()), "{l:?}: residual {res}");
                    let x = v / alpha;
                    let (_, brute) = common::golden_section(
                        |t| l.value(y, t) / lambda + 0.5 * alpha * (t - x) * (t - x),
                        x - 20.0,
                        x + 20.0,
                    );
                    let env = l.moreau_envelope(y, x, alpha, lambda);
                    assert!(
                        (env - brute).abs() <= 1e-9 * (1.0 + brute.abs()),
                        "{l:?}: {env} vs {brute}"
                    );
                }
            }
        }
    }
}

/// Paper A's Algorithm 3.3 prox `argmin_a step·γL*(y, −a/γ) + (a − v)²/2`, by golden section on
/// the conjugate's domain; and paper C's box-constrained dual: `q c²/2 − y c` equals
/// `L*(y, −λc)/λ` inside the box, and the conjugate is +∞ just outside it.
#[test]
fn dual_prox_and_box_quadratic_match_the_conjugate() {
    for l in losses() {
        for gamma in [0.3, 1.0, 5.0] {
            for step in [0.01, 1.0, 30.0] {
                for y in [1.0, -1.0] {
                    for v in grid(-8.0, 8.0, 33) {
                        let h = |a: f64| {
                            step * gamma * l.conjugate(y, -a / gamma) + 0.5 * (a - v) * (a - v)
                        };
                        let (lo, hi) = if y > 0.0 { (0.0, gamma) } else { (-gamma, 0.0) };
                        let (brute, _) = common::golden_section(h, lo, hi);
                        let ours = l.prox_dual(y, v, step, gamma);
                        assert!(
                            (ours - brute).abs() <= 1e-6 * (1.0 + v.abs()),
                            "{l:?}: {ours} vs {brute}"
                        );
                        let dt = l.dual_term(y, ours, gamma);
                        let direct = gamma * l.conjugate(y, -ours / gamma);
                        assert!((dt - direct).abs() <= 1e-10 * (1.0 + direct.abs()));
                    }
                }
            }
        }
        for lambda in [0.1, 1.0, 3.0] {
            let (q, pos, neg) = l.box_quadratic(lambda).expect("a box-constrained quadratic");
            for y in [1.0, -1.0] {
                let (lo, hi) = if y > 0.0 { pos } else { neg };
                for c in grid(lo, hi, 20) {
                    let quad = 0.5 * q * c * c - y * c;
                    let conj = l.conjugate(y, -lambda * c) / lambda;
                    assert!(
                        (quad - conj).abs() <= 1e-12 * (1.0 + conj.abs()),
                        "{l:?}: {quad} vs {conj}"
                    );
                }
                let out = if y > 0.0 { hi + 1e-6 } else { lo - 1e-6 };
                assert!(l.conjugate(y, -lambda * out).is_infinite());
            }
        }
    }
}

/// The catalogue declares it (parameter `smoothing` > 0) and both papers' specs refuse a bad
/// value with a message naming the field.
#[test]
fn catalogue_declares_it_and_specs_check_its_parameter() {
    let c = Loss::ALL
        .iter()
        .find(|l| l.name() == "smoothed_hinge")
        .expect("in Loss::ALL")
        .capabilities();
    assert!(c.classification && c.box_quadratic && !c.smooth_dual && !c.square);
    assert_eq!(c.parameters.len(), 1);
    assert_eq!(c.parameters[0].name, "smoothing");
    for bad in ["0", "-1", "-1e-300"] {
        let a = format!(
            r#"{{"data":{{"kind":"two_blobs","n":20,"separation":2,"spread":1,"flip":0,"seed":1}},"model":{{"problem":"lp_regression","p":1.5,"gamma":2,"loss":{{"kind":"smoothed_hinge","smoothing":{bad}}}}},"solver":{{"algorithm":"prox_dual"}}}}"#
        );
        let e = match Spec::from_json(&a) {
            Ok(s) => papers::run(&s).expect_err("bad smoothing").to_string(),
            Err(e) => e.to_string(),
        };
        assert!(e.contains("smoothing"), "{e}");
    }
}

/// Paper A: Algorithm 3.3 runs with it and closes its duality gap; dual Newton refuses it (its
/// dual has a box). Paper C: the fixed point, cyclic coordinate descent and the greedy pair rule
/// (its dual is a box-constrained quadratic) reach the same optimum with a closed gap.
#[test]
fn runs_in_papers_a_and_c() {
    let a = r#"{"data":{"kind":"two_blobs","n":60,"separation":2,"spread":1,"flip":0.05,"seed":3},"model":{"problem":"lp_regression","p":1.5,"gamma":2,"loss":{"kind":"smoothed_hinge","smoothing":0.5}},"solver":{"algorithm":"prox_dual","tol":1e-8,"max_iter":20000}}"#;
    let r = papers::run(&Spec::from_json(a).expect("A parses")).expect("A runs");
    assert_eq!(r.status, Stop::Converged, "{:?}", r.last);
    let (p, d, g) = (r.last.primal.unwrap(), r.last.dual.unwrap(), r.last.gap.unwrap());
    assert!(g >= 0.0 && g <= 1e-8 * p.abs() * 1.0001, "gap {g}");
    assert!((p - d - g).abs() <= 1e-7 * p.abs());
    let newton = a.replace("prox_dual", "dual_newton");
    let e = papers::run(&Spec::from_json(&newton).expect("parses")).expect_err("no smooth dual");
    assert!(e.to_string().contains("solver.algorithm"), "{e}");

    let mut objectives = Vec::new();
    for method in [
        r#"{"kind":"coordinate","rule":"cyclic","seed":1,"tol":1e-10,"max_sweeps":50000}"#,
        r#"{"kind":"coordinate","rule":"greedy_pairs","seed":1,"tol":1e-10,"max_sweeps":50000}"#,
        r#"{"kind":"fixed_point","step":{"kind":"inverse_norm"},"tol":1e-10,"max_sweeps":200000}"#,
    ] {
        let c = format!(
            r#"{{"paper":"dinuzzo","data":{{"kind":"classification","shape":{{"kind":"moons","noise":0.1}},"n":80,"label_noise":0,"seed":1}},"loss":{{"kind":"smoothed_hinge","smoothing":0.5}},"lambda":0.5,"kernel":{{"kind":"gaussian","bandwidth":{{"fixed":1.0}}}},"method":{method}}}"#
        );
        let r = papers::run(&Spec::from_json(&c).expect("C parses")).expect("C runs");
        assert_eq!(r.status, Stop::Converged, "{method}: {:?}", r.last);
        assert!(r.last.rel_gap.unwrap() < 1e-7, "{method}: {:?}", r.last);
        objectives.push(r.last.primal.unwrap());
    }
    for o in &objectives {
        assert!((o - objectives[0]).abs() <= 1e-7 * objectives[0].abs(), "{objectives:?}");
    }
}
