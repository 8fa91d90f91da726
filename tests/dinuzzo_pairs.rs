//! Paper C beyond the paper: the `greedy_pairs` index rule (block coordinate descent on two
//! coordinates, solved exactly). Checked against brute-force minimization of the 2-D
//! subproblem, against the crate's own dual objective, and against the paper's rules' optimum;
//! with shrinking and with kernel rows from a cache; bad combinations are refused with the field
//! named. No test depends on time.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::sweeps::{Measures, Ran};
use common::{assert_fails, kplay, TempDir};
use kernel_playground::datasets::plane::{Classification2d, Regression1d, Shape2d};
use kernel_playground::exec::Stop;
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::losses::Loss;
use kernel_playground::papers::dinuzzo::run as dinuzzo;
use kernel_playground::papers::dinuzzo::MethodSpec;
use kernel_playground::papers::{self, Spec};
use kernel_playground::rng::Rng;
use kernel_playground::solvers::coordinate::{
    exact_pair_step, CoordinateConfig, CoordinateDescent, IndexRule, PairBox,
};
use kernel_playground::solvers::fixed_point::{RegularizationProblem, Representation};
use kernel_playground::KpError;
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

/// The losses whose dual is a box-constrained quadratic (the pair rule's domain).
const PAIR_LOSSES: [Loss; 6] = [
    Loss::Square,
    Loss::Absolute,
    Loss::EpsInsensitive { eps: 0.0 },
    Loss::Huber { rho: 0.5 },
    Loss::Hinge,
    Loss::SquaredHinge,
];

fn gaussian(mu: f64) -> Kernel {
    Kernel::gaussian(Bandwidth::Fixed(mu))
}

fn data(loss: Loss, n: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
    if loss.is_classification() {
        let d = Classification2d {
            shape: Shape2d::Blobs { margin: 0.2, spread: 0.6 },
            n,
            label_noise: 0.1,
            seed,
        }
        .generate()
        .unwrap();
        (d.x, d.y)
    } else {
        let d = Regression1d { n, noise: 0.2, outliers: 0.1, seed }.generate().unwrap();
        (d.x, d.y)
    }
}

fn problem(loss: Loss, n: usize, lambda: f64, repr: Representation) -> RegularizationProblem {
    let (x, y) = data(loss, n, 7);
    let kernel = if repr == Representation::Features { Kernel::linear() } else { gaussian(0.5) };
    RegularizationProblem::new(&x, &y, &kernel, loss, lambda, repr).unwrap()
}

fn run_cfg(p: &RegularizationProblem, cfg: CoordinateConfig) -> Ran<CoordinateDescent> {
    run_capped(p, cfg, 200_000)
}

fn run_capped(
    p: &RegularizationProblem,
    cfg: CoordinateConfig,
    cap: usize,
) -> Ran<CoordinateDescent> {
    Ran::new(CoordinateDescent::new(p.clone(), cfg).unwrap(), cap)
}

fn cfg(rule: IndexRule, shrinking: bool, tol: f64) -> CoordinateConfig {
    CoordinateConfig { rule, seed: 4, tol, shrinking, ..Default::default() }
}

fn param_name(e: KpError) -> String {
    match e {
        KpError::Parameter { name, .. } => name.to_string(),
        other => format!("{other:?}"),
    }
}

/// The 2-D subproblem's minimum by nested golden sections over the box (infinite sides cut at
/// `c ± r`): independent of [`exact_pair_step`]'s case analysis.
fn brute_pair(
    c: [f64; 2],
    g: [f64; 2],
    a: [f64; 2],
    k: f64,
    lo: [f64; 2],
    hi: [f64; 2],
    r: f64,
) -> f64 {
    let phi = |t0: f64, t1: f64| {
        let (d0, d1) = (t0 - c[0], t1 - c[1]);
        g[0] * d0 + g[1] * d1 + 0.5 * (a[0] * d0 * d0 + 2.0 * k * d0 * d1 + a[1] * d1 * d1)
    };
    let cut = |l: f64, h: f64, m: f64| (l.max(m - r), h.min(m + r));
    let (l0, h0) = cut(lo[0], hi[0], c[0]);
    let (l1, h1) = cut(lo[1], hi[1], c[1]);
    common::golden_section(|t0| common::golden_section(|t1| phi(t0, t1), l1, h1).1, l0, h0).1
}

/// The box of a random coordinate for a loss family: (lo, hi) and a feasible c in it.
fn box_of(kind: usize, y: f64, lambda: f64, u: f64) -> (f64, f64, f64) {
    let b = match kind {
        0 => PairBox::of(Loss::Hinge, lambda),
        1 => PairBox::of(Loss::Square, lambda),
        2 => PairBox::of(Loss::SquaredHinge, lambda),
        _ => PairBox::of(Loss::Huber { rho: 0.7 }, lambda),
    }
    .unwrap();
    let (lo, hi) = b.bounds(y);
    // Somewhere in the box, or on a bound (u outside [0.1, 0.9]).
    let c = if u < 0.1 && lo.is_finite() {
        lo
    } else if u > 0.9 && hi.is_finite() {
        hi
    } else {
        let (l, h) =
            (if lo.is_finite() { lo } else { -3.0 }, if hi.is_finite() { hi } else { 3.0 });
        l + (h - l) * u
    };
    (lo, hi, c)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The 2-D step is the exact minimizer: feasible, and no point of the box found by brute
    /// force is lower (the brute force is the reference, within its precision); a clipped
    /// value is the bound itself.
    #[test]
    fn the_pair_step_is_the_brute_force_minimizer(
        kind in 0usize..4, y0 in proptest::bool::ANY, y1 in proptest::bool::ANY, lambda in 0.05..2.0f64,
        u0 in 0.0..1.0f64, u1 in 0.0..1.0f64, g0 in -3.0..3.0f64, g1 in -3.0..3.0f64,
        a0 in 0.1..3.0f64, a1 in 0.1..3.0f64, rho in -0.99..0.99f64,
    ) {
        let sgn = |b: bool| if b { 1.0 } else { -1.0 };
        let (lo0, hi0, c0) = box_of(kind, sgn(y0), lambda, u0);
        let (lo1, hi1, c1) = box_of(kind, sgn(y1), lambda, u1);
        let q = PairBox::of([Loss::Hinge, Loss::Square, Loss::SquaredHinge, Loss::Huber { rho: 0.7 }][kind], lambda).unwrap().q;
        let a = [a0 + q, a1 + q];
        let k = rho * (a[0] * a[1]).sqrt();
        let (c, g, lo, hi) = ([c0, c1], [g0, g1], [lo0, lo1], [hi0, hi1]);
        let t = exact_pair_step(c, g, a, k, lo, hi).expect("a regular block has a closed form");
        for m in 0..2 {
            prop_assert!(t[m] >= lo[m] && t[m] <= hi[m], "t {t:?} outside [{lo:?}, {hi:?}]");
        }
        let phi = |t: [f64; 2]| {
            let d = [t[0] - c[0], t[1] - c[1]];
            g[0] * d[0] + g[1] * d[1] + 0.5 * (a[0] * d[0] * d[0] + 2.0 * k * d[0] * d[1] + a[1] * d[1] * d[1])
        };
        let ours = phi(t);
        // |d| ≤ |g| / λ_min(H), λ_min ≥ min(a)(1 − |ρ|).
        let r = 2.0 * (g0.abs() + g1.abs()) / (a[0].min(a[1]) * (1.0 - rho.abs())) + 1.0;
        let brute = brute_pair(c, g, a, k, lo, hi, r);
        prop_assert!(ours <= brute + 1e-9 * (1.0 + brute.abs()), "ours {ours} > brute force {brute} (t {t:?}, c {c:?}, g {g:?}, a {a:?}, k {k}, box {lo:?} {hi:?})");
        prop_assert!(ours <= 0.0);
        // Optimality (KKT) of the 2-D problem: each coordinate's partial gradient is 0 inside
        // its box, and points outward at a bound.
        for m in 0..2 {
            let d = [t[0] - c[0], t[1] - c[1]];
            let gm = g[m] + a[m] * d[m] + k * d[1 - m];
            let scale = 1e-8 * (1.0 + g0.abs() + g1.abs() + a[m] * (d[0].abs() + d[1].abs()));
            if t[m] > lo[m] && t[m] < hi[m] {
                prop_assert!(gm.abs() <= scale, "interior coordinate {m} with gradient {gm}");
            } else if t[m] == lo[m] && t[m] != hi[m] {
                prop_assert!(gm >= -scale, "at its lower bound with gradient {gm}");
            } else if t[m] == hi[m] {
                prop_assert!(gm <= scale, "at its upper bound with gradient {gm}");
            }
        }
    }

    /// On random problems the pair rule (with or without shrinking) keeps a non-negative duality
    /// gap and a non-decreasing dual at every record, and a stop is certified on every coordinate.
    #[test]
    fn pairs_keep_a_valid_certificate(
        loss in 0usize..6, n in 1usize..30, seed in 0u64..1000, lambda in 0.05..3.0f64,
        mu in 0.2..3.0f64, shrinking in proptest::bool::ANY,
    ) {
        let loss = PAIR_LOSSES[loss];
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, 2, |_, _| rng.normal());
        let y = DVector::from_fn(n, |_, _| {
            let r = rng.normal();
            if loss.is_classification() { if r >= 0.0 { 1.0 } else { -1.0 } } else { r }
        });
        let p = RegularizationProblem::new(&x, &y, &gaussian(mu), loss, lambda, Representation::Gram).unwrap();
        let tol = 1e-9;
        let s = run_capped(&p, CoordinateConfig { seed, ..cfg(IndexRule::GreedyPairs, shrinking, tol) }, 50_000);
        let tr = s.trace();
        for (k, r) in tr.iter().enumerate() {
            prop_assert!(r.gap() >= -1e-9 * (1.0 + r.objective().abs()), "{loss:?}: gap {} at sweep {}", r.gap(), r.iter);
            if k > 0 {
                prop_assert!(r.dual() >= tr[k - 1].dual() - 1e-9 * (1.0 + r.dual().abs()), "{loss:?}: the dual fell at sweep {}", r.iter);
            }
        }
        prop_assert_eq!(s.status(), Stop::Converged);
        let step = common::fresh_max_step(&p, s.c());
        prop_assert!(step < tol + 1e-8, "{loss:?} shrinking {shrinking}: fresh step {step}");
    }
}

/// [`PairBox`] is the crate's own dual: `−D(c) − (cᵀKc/2 + Σ q c_i²/2 − y_i c_i)` is the same
/// constant at any two points of the box.
#[test]
fn the_pair_box_is_the_dual() {
    for loss in PAIR_LOSSES {
        let lambda = 0.4;
        let p = problem(loss, 12, lambda, Representation::Gram);
        let b = PairBox::of(loss, lambda).expect("a box quadratic");
        let mut rng = Rng::new(3);
        let mut consts = Vec::new();
        for _ in 0..4 {
            let c = DVector::from_fn(p.n(), |i, _| {
                let (lo, hi) = b.bounds(p.y()[i]);
                let (l, h) = (lo.max(-2.0), hi.min(2.0));
                l + (h - l) * rng.uniform()
            });
            let z = p.kc(&c);
            let quad = 0.5 * c.dot(&z)
                + (0..p.n()).map(|i| 0.5 * b.q * c[i] * c[i] - p.y()[i] * c[i]).sum::<f64>();
            consts.push(-p.dual_objective_at(&c, &z) - quad);
        }
        for v in &consts {
            assert!((v - consts[0]).abs() < 1e-9, "{loss:?}: {consts:?}");
        }
    }
    assert!(
        PairBox::of(Loss::Logistic, 0.4).is_none()
            && PairBox::of(Loss::EpsInsensitive { eps: 0.3 }, 0.4).is_none()
    );
}

/// A singular block (duplicate points): a bounded box still has its exact minimizer on an edge;
/// an unbounded one has no closed form (`None`: the solver takes the single step).
#[test]
fn a_singular_block_is_handled() {
    let (c, g, a) = ([0.2, 0.0], [-1.0, -0.5], [1.0, 1.0]);
    let t = exact_pair_step(c, g, a, 1.0, [0.0, 0.0], [2.5, 2.5]).expect("bounded box");
    let phi = |t: [f64; 2]| {
        let d = [t[0] - c[0], t[1] - c[1]];
        g[0] * d[0] + g[1] * d[1] + 0.5 * (d[0] + d[1]) * (d[0] + d[1])
    };
    let brute = brute_pair(c, g, a, 1.0, [0.0, 0.0], [2.5, 2.5], 10.0);
    assert!(phi(t) <= brute + 1e-9, "{t:?}: {} vs {brute}", phi(t));
    assert_eq!(exact_pair_step(c, g, a, 1.0, [0.0, 0.0], [f64::INFINITY, 2.5]), None);
    // Duplicated points in a run: no panic, the optimum of the paper's rules.
    let x = DMatrix::from_row_slice(
        6,
        2,
        &[0.0, 0.0, 0.0, 0.0, 1.0, 0.5, 1.0, 0.5, -0.3, 0.2, 0.4, -0.8],
    );
    let y = DVector::from_vec(vec![1.0, 1.0, -1.0, -1.0, 1.0, -1.0]);
    for loss in [Loss::Hinge, Loss::Absolute] {
        let p = RegularizationProblem::new(&x, &y, &gaussian(0.7), loss, 0.3, Representation::Gram)
            .unwrap();
        let r = run_cfg(&p, cfg(IndexRule::Cyclic, false, 1e-11));
        for shrinking in [false, true] {
            let s = run_cfg(&p, cfg(IndexRule::GreedyPairs, shrinking, 1e-10));
            assert_eq!(s.status(), Stop::Converged);
            let (f, f0) = (p.objective(s.c()), p.objective(r.c()));
            assert!((f - f0).abs() <= 1e-8 * f0.abs().max(1.0), "{loss:?}: {f} vs {f0}");
        }
    }
}

/// The pair rule reaches the paper's optimum for every loss it accepts — stored Gram matrix,
/// kernel rows through a cache too small to hold them, with and without shrinking — stops with
/// every fresh step below δ and a duality gap that certifies the objective, with `z = Kc` kept.
#[test]
fn pairs_reach_the_paper_optimum() {
    let lambda = 0.4;
    let tol = 1e-10;
    for loss in PAIR_LOSSES {
        let p = problem(loss, 40, lambda, Representation::Gram);
        let rows = problem(loss, 40, lambda, Representation::KernelRows);
        let reference = run_cfg(&p, cfg(IndexRule::Cyclic, false, 1e-11));
        assert_eq!(reference.status(), Stop::Converged, "{loss:?}");
        let f0 = p.objective(reference.c());
        let mut runs = Vec::new();
        for shrinking in [false, true] {
            runs.push((
                format!("pairs, shrinking {shrinking}"),
                run_cfg(&p, cfg(IndexRule::GreedyPairs, shrinking, tol)),
            ));
            // Three rows of 40 fit in 0.001 MiB: the cache evicts all the time (and row j may
            // evict row i within a step).
            for mib in [0.0, 0.001, 1.0] {
                let c = CoordinateConfig {
                    cache_mib: Some(mib),
                    ..cfg(IndexRule::GreedyPairs, shrinking, tol)
                };
                runs.push((
                    format!("pairs, shrinking {shrinking}, rows {mib} MiB"),
                    run_cfg(&rows, c),
                ));
            }
        }
        for (name, s) in &runs {
            assert_eq!(s.status(), Stop::Converged, "{loss:?} {name}");
            let f = s.problem().objective(s.c());
            assert!(
                (f - f0).abs() <= 1e-6 * f0.abs().max(1.0),
                "{loss:?} {name}: F {f} vs cyclic {f0}"
            );
            let rec = s.current();
            assert!(
                rec.gap() >= -1e-9 * (1.0 + rec.objective().abs()),
                "{loss:?} {name}: gap {}",
                rec.gap()
            );
            assert!(
                rec.gap() <= 1e-6 * rec.objective().abs().max(1.0),
                "{loss:?} {name}: gap {} at F {}",
                rec.gap(),
                rec.objective()
            );
            let step = common::fresh_max_step(s.problem(), s.c());
            assert!(
                step < tol + 1e-9,
                "{loss:?} {name}: a coordinate still moves by {step} at the stop"
            );
            assert!((s.z() - s.problem().kc(s.c())).amax() < 1e-9, "{loss:?} {name}: z = Kc");
            if name.contains("shrinking true") && loss == Loss::Hinge {
                assert!(s.set_aside() > 0, "{name}: nothing was set aside");
            }
        }
        // Kernel rows give the stored matrix's columns bit for bit (2-D Gaussian), so the same
        // steps whatever the cache holds.
        let bits = |s: &CoordinateDescent| s.c().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&runs[0].1), bits(&runs[1].1), "{loss:?}");
        assert_eq!(bits(&runs[0].1), bits(&runs[3].1), "{loss:?}");
    }
}

/// The linear kernel's features representation (`w = Xᵀc` kept, columns of K computed): the
/// Gram matrix's optimum, and `w = Xᵀc`.
#[test]
fn pairs_on_features_match_the_gram_matrix() {
    for loss in [Loss::Hinge, Loss::Square] {
        let (x, y) = data(loss, 60, 7);
        let pf = RegularizationProblem::new(
            &x,
            &y,
            &Kernel::linear(),
            loss,
            0.2,
            Representation::Features,
        )
        .unwrap();
        let pg =
            RegularizationProblem::new(&x, &y, &Kernel::linear(), loss, 0.2, Representation::Gram)
                .unwrap();
        let g = run_cfg(&pg, cfg(IndexRule::Cyclic, false, 1e-11));
        for cache_mib in [None, Some(1.0)] {
            let f = run_cfg(
                &pf,
                CoordinateConfig { cache_mib, ..cfg(IndexRule::GreedyPairs, true, 1e-10) },
            );
            assert_eq!(f.status(), Stop::Converged, "{loss:?}");
            let (ff, fg) = (pf.objective(f.c()), pg.objective(g.c()));
            assert!((ff - fg).abs() <= 1e-8 * fg.abs().max(1.0), "{loss:?}: {ff} vs {fg}");
            let w = f.w().expect("features keep w");
            assert!((w - x.transpose() * f.c()).amax() < 1e-9, "{loss:?}: w = Xᵀc");
        }
    }
}

/// What the rule is for: on an SVM problem with an ill-conditioned free block the pair steps
/// need far fewer coordinate updates than Greedy's single steps (counts, not time).
#[test]
fn pairs_need_fewer_updates_than_single_steps() {
    let (x, y) = data(Loss::Hinge, 300, 11);
    let p =
        RegularizationProblem::new(&x, &y, &gaussian(0.5), Loss::Hinge, 0.1, Representation::Gram)
            .unwrap();
    let single = run_cfg(&p, cfg(IndexRule::Greedy, true, 1e-8));
    let pairs = run_cfg(&p, cfg(IndexRule::GreedyPairs, true, 1e-8));
    assert_eq!((single.status(), pairs.status()), (Stop::Converged, Stop::Converged));
    assert!(
        2 * pairs.updates() < single.updates(),
        "pairs {} updates, single steps {}",
        pairs.updates(),
        single.updates()
    );
    let (f1, f2) = (p.objective(single.c()), p.objective(pairs.c()));
    assert!((f1 - f2).abs() <= 1e-6 * f1.abs(), "{f1} vs {f2}");
}

/// Losses without a box-quadratic dual are refused with `method.rule` named — by the solver,
/// the engine and `kplay` (exit status 2) — never a panic; the serde name is `greedy_pairs`.
#[test]
fn other_losses_are_refused_with_the_field_named() {
    let (x, y) = data(Loss::Logistic, 20, 1);
    for loss in [Loss::Logistic, Loss::EpsInsensitive { eps: 0.3 }] {
        let p = RegularizationProblem::new(&x, &y, &gaussian(1.0), loss, 1.0, Representation::Gram)
            .unwrap();
        let e = CoordinateDescent::new(p, cfg(IndexRule::GreedyPairs, true, 1e-8)).unwrap_err();
        assert_eq!(param_name(e), "method.rule", "{loss:?}");
    }
    let on = MethodSpec::Coordinate(kernel_playground::papers::dinuzzo::CoordinateSpec {
        rule: IndexRule::GreedyPairs,
        seed: 0,
        tol: 1e-8,
        max_sweeps: 100,
        gap_tol: None,
        shrinking: true,
        cache_mib: None,
    });
    let text = serde_json::to_string(&on).unwrap();
    assert!(text.contains("\"rule\":\"greedy_pairs\""), "{text}");
    assert_eq!(serde_json::from_str::<MethodSpec>(&text).unwrap(), on);

    let mut spec = kernel_playground::papers::dinuzzo::DinuzzoSpec {
        loss: Loss::Logistic,
        ..Default::default()
    };
    if let MethodSpec::Coordinate(c) = &mut spec.method {
        c.rule = IndexRule::GreedyPairs;
    }
    let e = papers::run(&Spec::Dinuzzo(spec.clone())).expect_err("logistic pairs").to_string();
    assert!(e.contains("method.rule") && e.contains("greedy_pairs"), "{e}");
    let dir = TempDir::new("pairs");
    let path = dir.write("spec.json", &Spec::Dinuzzo(spec.clone()).to_json());
    assert_fails(
        &kplay(&[std::ffi::OsStr::new("run"), path.as_os_str()], dir.path()),
        &["method.rule"],
    );
    // The hinge loss through the engine: converged, the cyclic rule's optimum, named in the report.
    spec.loss = Loss::Hinge;
    let r = papers::run(&Spec::Dinuzzo(spec.clone())).expect("runs");
    assert_eq!(r.status, Stop::Converged);
    let plain =
        papers::run(&Spec::Dinuzzo(kernel_playground::papers::dinuzzo::DinuzzoSpec::default()))
            .expect("runs");
    let (p, p0) = (r.last.primal.unwrap(), plain.last.primal.unwrap());
    assert!((p - p0).abs() <= 1e-6 * p0.abs(), "pairs {p} vs cyclic {p0}");
    assert_eq!(dinuzzo::method_name(&spec.method), "CD greedy pairs");
}
