//! Every plot function drawn on representative data of its page and lesson (the lessons'
//! own specs, run by the engine) at [`SIZES`], checked by [`defects`].

use crate::papers::Spec;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::plots::check::*;
use serde_json::Value;

fn lesson_spec(lesson: char, step: usize) -> Value {
    let text = match lesson {
        'a' => include_str!("../../www/lessons/a.json"),
        'b' => include_str!("../../www/lessons/b.json"),
        'c' => include_str!("../../www/lessons/c.json"),
        _ => include_str!("../../www/lessons/d.json"),
    };
    let v: Value = serde_json::from_str(text).expect("lesson json");
    let st = &v["steps"][step - 1];
    let mut spec = st["spec"].clone();
    if let Some(to) = st.get("to").and_then(|t| t.as_object()) {
        for (k, val) in to {
            spec[k] = val.clone();
        }
    }
    let paper = match lesson {
        'a' => "lp",
        'b' => "mrlsr",
        'c' => "dinuzzo",
        _ => "perceptron",
    };
    spec["paper"] = Value::String(paper.into());
    spec
}

fn spec(lesson: char, step: usize) -> Spec {
    Spec::from_json(&lesson_spec(lesson, step).to_string()).expect("lesson spec")
}

type LpOut = (Vec<crate::exec::Record>, Vec<f64>, Option<Vec<f64>>);

fn lp(step: usize) -> LpOut {
    let Spec::Lp(e) = spec('a', step) else { panic!("paper A") };
    let mut lp = crate::papers::lp::LpSession::start(&e).expect("start");
    lp.run.run();
    let w_true = lp.valid.data.w_true.as_ref().map(|v| v.as_slice().to_vec());
    let w = lp.valid.weights(&lp.run).map(|w| w.as_slice().to_vec()).unwrap_or_default();
    (lp.run.trace(), w, w_true)
}

fn e(r: Result<(), impl std::fmt::Display>) -> Result<(), String> {
    r.map_err(|e| e.to_string())
}

#[test]
fn paper_a_convergence_and_spikes() {
    for step in [1, 2, 5, 6, 7, 8] {
        let (trace, w, wt) = lp(step);
        assert_clean_at(&format!("A{step} convergence"), &LOW, |root, s| {
            e(crate::plots::lp::draw_convergence(root, &trace, s))
        });
        assert_clean(&format!("A{step} spikes"), |root, s| {
            e(crate::plots::lp::draw_spikes_threshold(root, &w, wt.as_deref(), Some(0.1), s))
        });
    }
}

#[test]
fn paper_a_race_and_curve() {
    let runs: Vec<(String, LpOut)> =
        [1, 6, 7, 8].iter().map(|&k| (format!("algorithm {k}"), lp(k))).collect();
    let best =
        runs.iter().flat_map(|r| r.1 .0.iter().filter_map(|t| t.primal)).fold(f64::MAX, f64::min);
    let curves: Vec<crate::plots::lp::RaceCurve> = runs
        .iter()
        .map(|(name, (trace, _, _))| {
            let pts = trace
                .iter()
                .map(|t| {
                    let f = t.primal.unwrap_or(f64::NAN);
                    (t.iter as f64, 0.02 * t.iter as f64, (f - best) / best)
                })
                .collect();
            (name.clone(), pts)
        })
        .collect();
    assert_clean("A race", |root, s| e(crate::plots::lp::draw_race(root, &curves, s)));
    let xs: Vec<f64> = (0..200).map(|i| i as f64 / 199.0).collect();
    let fs: Vec<f64> = xs.iter().map(|x| (6.0 * x).sin()).collect();
    let px: Vec<f64> = (0..30).map(|i| i as f64 / 29.0).collect();
    let py: Vec<f64> = px.iter().map(|x| (6.0 * x).sin() + 0.1 * (17.0 * x).cos()).collect();
    assert_clean("A curve", |root, s| {
        e(crate::plots::lp::draw_curve_1d(root, &xs, &fs, &px, &py, s))
    });
}

fn mrlsr_session(spec_v: Value) -> crate::papers::mrlsr::MrlsrSession {
    let Spec::Mrlsr(s) = Spec::from_json(&spec_v.to_string()).expect("spec") else {
        panic!("paper B")
    };
    let checked = crate::papers::mrlsr::MrlsrChecked::for_page(&s).expect("checked");
    crate::papers::mrlsr::MrlsrSession::new(checked).expect("session")
}

fn draw_fit<DB: DrawingBackend>(
    session: &crate::papers::mrlsr::MrlsrSession,
    root: &DrawingArea<DB, Shift>,
    s: f64,
) -> Result<(), String> {
    use crate::papers::mrlsr::FitCurves;
    use crate::plots::mrlsr::{self as pm, Curve};
    let spec = session.spec();
    // The labels of src/web/mrlsr.rs's drawFit.
    let num = crate::plots::text::num;
    let mlabel = format!("M-RLSR (m = {}, λ = {})", num(spec.m), num(spec.lambda));
    let klabel = match session.krr() {
        Some(k) => format!("KRR (λ₂ = {})", num(k.lambda)),
        None => "KRR (no λ₂: f = 0)".to_string(),
    };
    let y = session.data().y.as_slice();
    match session.fit_curves(300).map_err(|e| e.to_string())? {
        FitCurves::OneD { xs, grid, truth, krr, mrlsr, removed } => {
            let mut curves = vec![];
            if let Some(t) = &truth {
                let label = "truth sin(2πx)".into();
                let color = pm::DATA_COLOR;
                curves.push(Curve { label, values: t, color, dashed: true, width: 1.5 });
            }
            if let Some(k) = &krr {
                let color = pm::KRR_WIDE_COLOR;
                let label = klabel;
                curves.push(Curve { label, values: k, color, dashed: false, width: 6.0 });
            }
            let color = pm::MRLSR_COLOR;
            let label = mlabel;
            curves.push(Curve { label, values: &mrlsr, color, dashed: false, width: 2.0 });
            e(pm::draw_fit_1d(root, &xs, y, &grid, &curves, removed, s))
        }
        FitCurves::Fitted { mrlsr, krr, removed } => e(pm::draw_pred_vs_true(
            root,
            y,
            &mrlsr,
            krr.as_deref(),
            removed,
            (&mlabel, &klabel),
            s,
        )),
    }
}

#[test]
fn paper_b_fit_and_f() {
    for step in [1, 3, 4, 6, 7, 10] {
        let session = mrlsr_session(lesson_spec('b', step));
        assert_clean(&format!("B{step} fit"), |root, s| draw_fit(&session, root, s));
        let (samples, minimizer) = session.f_samples(400).expect("F");
        assert_clean(&format!("B{step} F"), |root, s| {
            e(crate::plots::mrlsr::draw_f(root, &samples, minimizer, s))
        });
    }
    // The root search drawn on F(C) (B2 m = 1.5, B5 m = 1, B6 m = 0.5): at its start, every
    // few steps and at its end, the legend (with the step count) covers no iterate.
    for step in [2, 5, 6] {
        let session = mrlsr_session(lesson_spec('b', step));
        let (samples, minimizer) = session.f_samples(400).expect("F");
        let mut watch = session.root_watch().expect("search");
        let mut frame = 0;
        loop {
            if frame % 4 == 0 || watch.ended() {
                let view = watch.view();
                assert_clean(&format!("B{step} F, search frame {frame}"), |root, s| {
                    e(crate::plots::mrlsr::draw_f_search(root, &samples, minimizer, Some(&view), s))
                });
            }
            if watch.ended() {
                break;
            }
            watch.step();
            frame += 1;
        }
        assert!(frame >= 2, "B{step}: a search of {frame} frames");
    }
    // §4's n-scans (B10, B11), at the sizes a lesson step gives them.
    for (step, kind) in [
        (10, crate::papers::mrlsr::ScanKind::Stability),
        (11, crate::papers::mrlsr::ScanKind::Lambda2Move),
    ] {
        let session = mrlsr_session(lesson_spec('b', step));
        let checked = crate::papers::mrlsr::MrlsrChecked::for_page(session.spec()).expect("spec");
        let run = crate::papers::mrlsr::NScanRun::new(&checked, kind).expect("scan");
        let scan = run.run_to_end().expect("scan");
        assert_clean_at(&format!("B{step} n-scan"), &LOW, |root, s| {
            e(crate::plots::nscan::draw_nscan(root, &scan, s))
        });
    }
    // The front page's card B: sine, n = 40, λ swept from 10⁻⁵ to 1.
    for lambda in [1e-5, 1e-3, 0.1, 1.0] {
        let mut v = lesson_spec('b', 1);
        v["data"]["n"] = 40.into();
        v["m"] = 1.5.into();
        v["lambda"] = lambda.into();
        let session = mrlsr_session(v);
        assert_clean(&format!("card B λ = {lambda}"), |root, s| draw_fit(&session, root, s));
    }
}

#[test]
fn paper_b_equivalence_and_heatmap() {
    let session = mrlsr_session(lesson_spec('b', 8));
    let rep = session.equivalence(4, 10, 1).expect("equivalence");
    let values: Vec<f64> = rep.parts.iter().map(|p| p.diff_rkhs).collect();
    assert_clean("B8 bars", |root, s| {
        e(crate::plots::mrlsr::draw_equivalence_bars(root, &values, s))
    });
    assert_clean("B8 λ curves", |root, s| {
        e(crate::plots::mrlsr::draw_lambda_curves(
            root,
            &rep.lambdas,
            &rep.curves,
            (rep.lambda, rep.lambda2),
            s,
        ))
    });
    let ms: Vec<f64> = (1..=8).map(|k| 0.5 * k as f64).collect();
    let lambdas: Vec<f64> = (0..10).map(|k| 10f64.powi(k - 7)).collect();
    let rmse: Vec<Vec<f64>> = ms
        .iter()
        .map(|m| {
            lambdas.iter().map(|l| 0.3 + 0.1 * (m - 2.0).abs() + l.log10().abs() * 0.01).collect()
        })
        .collect();
    assert_clean("B heatmap", |root, s| {
        e(crate::plots::mrlsr::draw_heatmap(root, &ms, &lambdas, &rmse, Some((3, 4)), s))
    });
    let y: Vec<f64> = (0..60).map(|i| (i as f64 * 0.37).sin()).collect();
    let f: Vec<f64> = y.iter().map(|v| 0.9 * v + 0.05).collect();
    let k: Vec<f64> = y.iter().map(|v| 0.95 * v).collect();
    assert_clean("B predicted vs true", |root, s| {
        e(crate::plots::mrlsr::draw_pred_vs_true(
            root,
            &y,
            &f,
            Some(&k),
            Some((0.5, 0.8)),
            ("M-RLSR (m = 1.5, λ = 0.001)", "KRR (λ₂ = 0.0021)"),
            s,
        ))
    });
}

fn dinuzzo(
    step: usize,
) -> (crate::papers::dinuzzo::DinuzzoChecked, crate::papers::dinuzzo::DinuzzoSession) {
    let Spec::Dinuzzo(s) = spec('c', step) else { panic!("paper C") };
    let s = s.check().expect("checked");
    let built = crate::papers::dinuzzo::build(&s).expect("build").expect("points");
    (s, built)
}

#[test]
fn paper_c_convergence_primal_dual_theorem5() {
    use crate::papers::dinuzzo::run as ed;
    for step in [1, 2, 3, 4, 5, 6, 8, 9, 10, 11] {
        let (s, built) = dinuzzo(step);
        let mut race = ed::start(&built, &s).expect("start");
        race.run();
        let lanes: Vec<&ed::Lane> = race.lanes().iter().collect();
        let series = ed::convergence_series(&lanes, s.race);
        let tol = ed::tolerance(&s.method);
        assert_clean_at(&format!("C{step} convergence"), &LOW, |root, sc| {
            e(crate::plots::dinuzzo::draw_log_series(root, &series, "sweep", Some((tol, "δ")), sc))
        });
        let pd = ed::primal_dual_series(&race.lanes()[0]);
        assert_clean(&format!("C{step} primal and dual"), |root, sc| {
            e(crate::plots::dinuzzo::draw_primal_dual(root, &pd, sc))
        });
        if step == 11 || step == 1 {
            let env =
                crate::papers::dinuzzo::envelope_curve(s.loss, 1.0, 0.1, s.lambda, -2.0, 3.0, 241)
                    .expect("envelope");
            let ev = crate::papers::dinuzzo::k_alpha_eigenvalues_of_block(&built.problem, 300, 0.1)
                .expect("eigenvalues");
            let neg = ev.iter().filter(|v| **v < 0.0).count();
            let note = format!("index · {neg} of {} negative", ev.len());
            let name = s.loss.capabilities().label;
            assert_clean(&format!("C{step} Theorem 5"), |root, sc| {
                e(crate::plots::dinuzzo::draw_theorem5(root, &env, name, 0.1, &ev, &note, sc))
            });
        }
    }
}

#[test]
fn paper_c_map_and_regression() {
    use crate::plots::dinuzzo::{self as pdz, Field, Level, PointMark};
    let (_, built) = dinuzzo(5);
    let [a, b, c, d] = built.view;
    let (nx, ny) = (40, 30);
    let mut vals = vec![];
    for j in 0..ny {
        for i in 0..nx {
            let x = a + (b - a) * i as f64 / (nx - 1) as f64;
            let y = c + (d - c) * j as f64 / (ny - 1) as f64;
            vals.push((2.0 * x).sin() - y + 0.3);
        }
    }
    let f = Field { values: &vals, nx, ny, x_range: (a, b), y_range: (c, d) };
    let pts: Vec<PointMark> = (0..built.y.len())
        .map(|i| PointMark {
            ring: i % 3 == 0,
            ..PointMark::new(built.x[(i, 0)], built.x[(i, 1)], built.y[i])
        })
        .collect();
    let lv = [
        Level { value: 0.0, width: 2.0, color: BLACK },
        Level { value: 1.0, width: 1.0, color: RGBColor(90, 90, 90) },
    ];
    assert_clean("C map", |root, s| {
        pdz::draw_decision_map(root, Some(&f), (a, b), (c, d), 1.0, &lv, &pts, None, s)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    let data: Vec<(f64, f64, bool)> = (0..60)
        .map(|i| (i as f64 / 10.0 - 3.0, (i as f64 / 10.0 - 3.0).sin(), i % 4 == 0))
        .collect();
    let curve: Vec<(f64, f64)> =
        (0..200).map(|i| (i as f64 * 0.03 - 3.0, (i as f64 * 0.03 - 3.0).sin())).collect();
    assert_clean("C8 regression", |root, s| {
        pdz::draw_regression(root, &data, &curve, 0.2, Some(&curve), s)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
}

#[test]
fn paper_d_trace_and_boundary() {
    use crate::plots::perceptron as pp;
    for step in 1..=15 {
        let Spec::Perceptron(s) = spec('d', step) else { panic!("paper D") };
        let mut session = crate::papers::perceptron::PerceptronSession::new(
            crate::papers::perceptron::PerceptronChecked::check(s).expect("checked"),
        )
        .expect("session");
        while session.step() {}
        let trace: Vec<pp::TracePoint> = pp::trace_points(&session.trace());
        let bounds: Vec<(String, f64, bool)> =
            session.bounds().into_iter().map(|b| (b.label, b.iterations, b.current)).collect();
        assert_clean_at(&format!("D{step} trace"), &TRACE_CLASSROOM, |root, sc| {
            e(pp::draw_trace(root, &trace, &bounds, sc))
        });
        let xm = session.problem.x();
        let x: Vec<(f64, f64)> = (0..xm.nrows()).map(|i| (xm[(i, 0)], xm[(i, 1)])).collect();
        let y: Vec<f64> = session.problem.y().iter().copied().collect();
        let p = session.p();
        let arrow = session.combination();
        let hull = arrow.and_then(|_| session.feature_hull());
        let rho = session.margin.rho;
        let scene = pp::BoundaryScene {
            x: &x,
            y: &y,
            p: p.as_deref(),
            arrow,
            hull: hull.as_deref().map(|h| (h, rho)),
            heat: None,
        };
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(u, v) in &x {
            (x0, x1, y0, y1) = (x0.min(u), x1.max(u), y0.min(v), y1.max(v));
        }
        let (px, py) = (0.15 * (x1 - x0), 0.15 * (y1 - y0));
        let view = [x0 - px, x1 + px, y0 - py, y1 + py];
        assert_clean_at(&format!("D{step} boundary"), &LOW, |root, sc| {
            let (w, h) = root.dim_in_pixel();
            let v = pp::equal_aspect(view, pp::boundary_rect(w, h, sc));
            pp::draw_boundary(root, v, &scene, sc, true).map(|_| ()).map_err(|e| e.to_string())
        });
    }
}

#[test]
fn paper_d_race() {
    use crate::papers::perceptron::RaceEntry;
    let names = ["Perceptron", "NKP", "SNKP", "NVN", "SNKPVN", "ISNKPVN"];
    let entries: Vec<RaceEntry> = names
        .iter()
        .enumerate()
        .map(|(k, n)| RaceEntry {
            name: n.to_string(),
            iterations: [17, 40, 300, 2500, 90, 1200][k],
            outcome: if k == 3 { "certificate".into() } else { "separator".into() },
            verified: true,
            bound: Some([214.0, 214.0, 84.0, 1e4, 321.0, 5000.0][k]),
            ms: 1.0,
        })
        .collect();
    assert_clean("D race", |root, s| e(crate::plots::perceptron::draw_race(root, &entries, s)));
}

/// Not a check: writes the SVGs of the cases issue 32 names to `$PLOT_SVG_DIR` (default
/// /tmp/plot-svgs) at the sizes of [`TRACE_CLASSROOM`], to look at them (`cargo test --release --lib write_svgs
/// -- --ignored`).
#[test]
#[ignore]
fn write_svgs() {
    let dir = std::env::var("PLOT_SVG_DIR").unwrap_or_else(|_| "/tmp/plot-svgs".into());
    std::fs::create_dir_all(&dir).expect("dir");
    type Draw<'a> = dyn Fn(&DrawingArea<SVGBackend, Shift>, f64) -> Result<(), String> + 'a;
    let out = |name: &str, draw: &Draw| {
        for (w, h, s) in TRACE_CLASSROOM {
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, (w, h)).into_drawing_area();
                draw(&root, s).expect("draw");
            }
            std::fs::write(format!("{dir}/{name}-{w}x{h}.svg"), text).expect("write");
        }
    };
    let (s3, b3) = dinuzzo(3);
    let mut race = crate::papers::dinuzzo::run::start(&b3, &s3).expect("start");
    race.run();
    let lanes: Vec<&crate::papers::dinuzzo::run::Lane> = race.lanes().iter().collect();
    let series = crate::papers::dinuzzo::run::convergence_series(&lanes, false);
    let tol = crate::papers::dinuzzo::run::tolerance(&s3.method);
    out("c3-convergence", &|r, s| {
        e(crate::plots::dinuzzo::draw_log_series(r, &series, "sweep", Some((tol, "δ")), s))
    });
    let (trace, w, wt) = lp(5);
    out("a5-spikes", &|r, s| {
        e(crate::plots::lp::draw_spikes_threshold(r, &w, wt.as_deref(), Some(0.1), s))
    });
    out("a5-convergence", &|r, s| e(crate::plots::lp::draw_convergence(r, &trace, s)));
    let session = mrlsr_session(lesson_spec('b', 6));
    let (samples, minimizer) = session.f_samples(400).expect("F");
    out("b6-f", &|r, s| e(crate::plots::mrlsr::draw_f(r, &samples, minimizer, s)));
    out("b6-fit", &|r, s| draw_fit(&session, r, s));
    let mut card = lesson_spec('b', 1);
    card["data"]["n"] = 40.into();
    card["m"] = 1.5.into();
    card["lambda"] = 1e-3.into();
    let card = mrlsr_session(card);
    out("card-b-fit", &|r, s| draw_fit(&card, r, s));
    let s8 = mrlsr_session(lesson_spec('b', 8));
    let rep = s8.equivalence(4, 10, 1).expect("equivalence");
    let values: Vec<f64> = rep.parts.iter().map(|p| p.diff_rkhs).collect();
    out("b8-bars", &|r, s| e(crate::plots::mrlsr::draw_equivalence_bars(r, &values, s)));
    out("b8-curves", &|r, s| {
        e(crate::plots::mrlsr::draw_lambda_curves(
            r,
            &rep.lambdas,
            &rep.curves,
            (rep.lambda, rep.lambda2),
            s,
        ))
    });
    for step in [2, 5, 8, 13, 14] {
        let Spec::Perceptron(sp) = spec('d', step) else { panic!("paper D") };
        let mut session = crate::papers::perceptron::PerceptronSession::new(
            crate::papers::perceptron::PerceptronChecked::check(sp).expect("checked"),
        )
        .expect("session");
        while session.step() {}
        let trace = crate::plots::perceptron::trace_points(&session.trace());
        let bounds: Vec<(String, f64, bool)> =
            session.bounds().into_iter().map(|b| (b.label, b.iterations, b.current)).collect();
        out(&format!("d{step}-trace"), &|r, s| {
            e(crate::plots::perceptron::draw_trace(r, &trace, &bounds, s))
        });
    }
}
