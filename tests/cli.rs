//! The `kplay` command line (issue 2, item 5), run as a separate process: `run` prints one JSON
//! object whose numbers are recomputed here from the printed solution and the data regenerated
//! by the library; `gen` writes CSV the importer reads back bit for bit; `digest` matches the
//! library; every bad input exits non-zero with a message on stderr and nothing on stdout.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use std::process::{Command, Output};

use kernel_playground::data::{parse_csv, Dataset, SparseRegression};
use kernel_playground::papers::lp::LpSpec;
use nalgebra::DVector;
use serde_json::Value;

mod common;
use common::{assert_fails, kplay, stderr, stdout, TempDir, KPLAY};

const GEN: SparseRegression = SparseRegression { n: 25, d: 40, k: 4, sigma: 0.05, seed: 5 };

fn generator_spec(g: &SparseRegression, p: f64, gamma: f64) -> String {
    format!(
        r#"{{"data": {{"kind": "sparse_regression", "n": {}, "d": {}, "k": {}, "sigma": {:?}, "seed": {}}},
            "model": {{"problem": "lp_regression", "p": {p:?}, "gamma": {gamma:?}}},
            "solver": {{"tol": 1e-10, "max_iter": 5000}}}}"#,
        g.n, g.d, g.k, g.sigma, g.seed
    )
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array().expect("array").iter().map(|t| t.as_f64().expect("number")).collect()
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("`{key}` is not a number in {v}"))
}

fn j(t: f64, r: f64) -> f64 {
    if t == 0.0 {
        0.0
    } else {
        t.signum() * t.abs().powf(r - 1.0)
    }
}

/// Checks one `kplay run` output against the data it was run on: returns the parsed object.
fn check_run_output(o: &Output, data: &Dataset, p: f64, gamma: f64) -> Value {
    assert!(o.status.success(), "kplay run failed: {}", stderr(o));
    let text = stdout(o);
    // one JSON object on one line
    assert_eq!(text.trim_end().lines().count(), 1, "{text}");
    let v: Value = serde_json::from_str(&text).expect("stdout is JSON");
    assert!(v.is_object());
    assert_eq!(v["status"], "converged");
    let iterations = v["iterations"].as_u64().expect("iterations") as usize;
    let (primal, dual, gap) = (num(&v, "primal"), num(&v, "dual"), num(&v, "gap"));
    let scale = primal.abs() + dual.abs();
    assert!(
        (gap - (primal - dual)).abs() <= 1e-11 * scale,
        "gap {gap} vs primal − dual {}",
        primal - dual
    );
    assert!(gap >= 0.0 && gap <= 1e-10 * primal * (1.0 + 1e-12), "relative gap {}", gap / primal);

    let (n, d) = (data.n(), data.d());
    let w = f64s(&v["solution"]["w"]);
    let alpha = f64s(&v["solution"]["alpha"]);
    assert_eq!(w.len(), d);
    assert_eq!(alpha.len(), n);

    // F(w) recomputed from the printed w and the regenerated data
    let wv = DVector::from_column_slice(&w);
    let r = &data.x * &wv - &data.y;
    let f = 0.5 * gamma * r.norm_squared() + w.iter().map(|t| t.abs().powf(p)).sum::<f64>() / p;
    assert!((primal - f).abs() <= 1e-11 * f, "primal {primal} vs F(w) = {f}");
    // the printed w is J_q(Xᵀα) of the printed α
    let q = p / (p - 1.0);
    let u = data.x.tr_mul(&DVector::from_column_slice(&alpha));
    for jdx in 0..d {
        let want = j(u[jdx], q);
        assert!(
            (w[jdx] - want).abs() <= 1e-10 * (1.0 + want.abs()),
            "w[{jdx}] = {} vs J_q(Xᵀα) = {want}",
            w[jdx]
        );
    }
    // −Λ(α) recomputed from the printed α
    let a = DVector::from_column_slice(&alpha);
    let lam = u.iter().map(|t| t.abs().powf(q)).sum::<f64>() / q + a.norm_squared() / (2.0 * gamma)
        - data.y.dot(&a);
    assert!((dual + lam).abs() <= 1e-10 * scale, "dual {dual} vs −Λ(α) = {}", -lam);
    // optimality: γXᵀ(Xw − y) + J_p(w) ≈ 0 relative to its terms
    let fit = gamma * data.x.tr_mul(&r);
    let reg = DVector::from_iterator(d, w.iter().map(|&t| j(t, p)));
    let res = (&fit + &reg).norm();
    assert!(res <= 1e-4 * (fit.norm() + reg.norm()), "optimality residual {res}");

    // the trace: iterations + 1 records with every field, ending at the reported values
    let trace = v["trace"].as_array().expect("trace");
    assert_eq!(trace.len(), iterations + 1);
    for (i, rec) in trace.iter().enumerate() {
        for key in ["primal", "dual", "gap", "step", "time_ms"] {
            assert!(rec[key].is_number(), "trace[{i}].{key} missing: {rec}");
        }
        assert_eq!(rec["iter"].as_u64(), Some(i as u64));
        assert!(rec["backtracks"].is_u64(), "trace[{i}].backtracks: {rec}");
        let (pr, du, ga) = (num(rec, "primal"), num(rec, "dual"), num(rec, "gap"));
        assert!((ga - (pr - du)).abs() <= 1e-11 * (pr.abs() + du.abs()), "trace[{i}] gap");
    }
    let last = trace.last().unwrap();
    assert_eq!(num(last, "primal"), primal);
    assert_eq!(num(last, "dual"), dual);
    assert_eq!(num(last, "gap"), gap);
    // at α = 0 the primal value is (γ/2)‖y‖²
    let f0 = 0.5 * gamma * data.y.norm_squared();
    assert!((num(&trace[0], "primal") - f0).abs() <= 1e-12 * f0);
    v
}

#[test]
fn run_prints_a_checked_solution() {
    let dir = TempDir::new("run");
    let (p, gamma) = (1.5, 10.0);
    let spec = dir.write("spec.json", &generator_spec(&GEN, p, gamma));
    let o = kplay(&["run".as_ref(), spec.as_os_str()], dir.path());
    let data = GEN.generate().unwrap();
    let v = check_run_output(&o, &data, p, gamma);
    assert_eq!(v["data_digest"], data.digest());
}

#[test]
fn run_at_p_four_thirds_and_small_gamma() {
    let dir = TempDir::new("run43");
    let g = SparseRegression { n: 12, d: 30, k: 2, sigma: 0.1, seed: 9 };
    for (p, gamma) in [(4.0 / 3.0, 10.0), (1.8, 0.5)] {
        let spec = dir.write("spec.json", &generator_spec(&g, p, gamma));
        let o = kplay(&["run".as_ref(), spec.as_os_str()], dir.path());
        check_run_output(&o, &g.generate().unwrap(), p, gamma);
    }
}

#[test]
fn gen_writes_csv_that_reads_back_equal() {
    let dir = TempDir::new("gen");
    let spec = dir.write("spec.json", &generator_spec(&GEN, 1.5, 10.0));
    let out = dir.path().join("data.csv");
    let o = kplay(&["gen".as_ref(), spec.as_os_str(), "-o".as_ref(), out.as_os_str()], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let data = GEN.generate().unwrap();
    let back = parse_csv(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(back.x.shape(), data.x.shape());
    assert!(back.x.iter().zip(data.x.iter()).all(|(a, b)| a.to_bits() == b.to_bits()));
    assert!(back.y.iter().zip(data.y.iter()).all(|(a, b)| a.to_bits() == b.to_bits()));
    assert_eq!(back.feature_names, data.feature_names);
    // without -o the same CSV goes to stdout
    let o = kplay(&["gen".as_ref(), spec.as_os_str()], dir.path());
    assert!(o.status.success());
    assert_eq!(stdout(&o), std::fs::read_to_string(&out).unwrap());
}

#[test]
fn csv_spec_runs_with_a_path_relative_to_the_spec() {
    let dir = TempDir::new("csv");
    let sub = dir.path().join("specs");
    std::fs::create_dir_all(&sub).unwrap();
    let data = SparseRegression { n: 15, d: 8, k: 3, sigma: 0.1, seed: 21 }.generate().unwrap();
    std::fs::write(sub.join("data.csv"), data.to_csv()).unwrap();
    let spec = sub.join("spec.json");
    std::fs::write(
        &spec,
        r#"{"data": {"kind": "csv", "path": "data.csv"},
            "model": {"problem": "lp_regression", "p": 1.25, "gamma": 3},
            "solver": {"tol": 1e-10, "max_iter": 20000}}"#,
    )
    .unwrap();
    // run from another directory: the path is resolved against the spec's directory
    let o = kplay(&["run".as_ref(), spec.as_os_str()], dir.path());
    let csv_data = parse_csv(&data.to_csv()).unwrap();
    let v = check_run_output(&o, &csv_data, 1.25, 3.0);
    assert_eq!(v["data_digest"], csv_data.digest());
    // the digest command agrees
    let o = kplay(&["digest".as_ref(), spec.as_os_str()], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim_end(), csv_data.digest());
}

#[test]
fn digest_matches_the_library() {
    let dir = TempDir::new("digest");
    for g in [GEN, SparseRegression { n: 3, d: 2, k: 0, sigma: 0.0, seed: u64::MAX }] {
        let spec = dir.write("spec.json", &generator_spec(&g, 1.5, 10.0));
        let o = kplay(&["digest".as_ref(), spec.as_os_str()], dir.path());
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(out.ends_with('\n'));
        let hex = out.trim_end();
        assert_eq!(hex.len(), 16, "{out:?}");
        assert!(hex.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_eq!(hex, g.generate().unwrap().digest());
    }
}

#[test]
fn spec_prints_the_default_experiment() {
    let o = kplay(&["spec"], Path::new("."));
    assert!(o.status.success());
    assert_eq!(LpSpec::from_json(&stdout(&o)).unwrap(), LpSpec::default());
}

#[test]
fn bad_input_exits_non_zero_with_a_message() {
    let dir = TempDir::new("bad");
    let d = dir.path();
    let malformed = dir.write("malformed.json", "{\"data\": ");
    assert_fails(&kplay(&["run".as_ref(), malformed.as_os_str()], d), &["malformed.json"]);
    let unknown =
        dir.write("unknown.json", &generator_spec(&GEN, 1.5, 10.0).replacen('{', "{\"x\": 1, ", 1));
    assert_fails(&kplay(&["run".as_ref(), unknown.as_os_str()], d), &["unknown field"]);
    // A field a loss or a tensor kernel does not have, even one with no parameter, is refused
    // with the path of the object that holds it.
    for (inner, path) in [
        (r#""loss": {"kind": "square", "rho": 1}"#, "model.loss: unknown field `rho`"),
        (r#""kernel": {"kind": "linear", "degree": 2}"#, "model.kernel: unknown field `degree`"),
        (
            r#""kernel": {"kind": "polynomial", "degree": 2, "s": 2}"#,
            "model.kernel: unknown field `s`",
        ),
    ] {
        let text = generator_spec(&GEN, 1.5, 10.0).replacen(
            "\"model\": {",
            &format!("\"model\": {{{inner}, "),
            1,
        );
        let spec = dir.write("nested.json", &text);
        assert_fails(&kplay(&["run".as_ref(), spec.as_os_str()], d), &[path]);
    }
    assert_fails(&kplay(&["run", "no-such-spec.json"], d), &["no-such-spec.json"]);
    for p in [1.0, 2.0, 0.5] {
        let spec = dir.write("p.json", &generator_spec(&GEN, p, 10.0));
        assert_fails(
            &kplay(&["run".as_ref(), spec.as_os_str()], d),
            &["p must lie strictly between 1 and 2"],
        );
    }
    let spec = dir.write("gamma.json", &generator_spec(&GEN, 1.5, -1.0));
    assert_fails(&kplay(&["run".as_ref(), spec.as_os_str()], d), &["γ (gamma)"]);
    let big_k = SparseRegression { k: 41, ..GEN };
    let spec = dir.write("k.json", &generator_spec(&big_k, 1.5, 10.0));
    for cmd in ["run", "gen", "digest"] {
        assert_fails(
            &kplay(&[cmd.as_ref(), spec.as_os_str()], d),
            &["k (number of non-zero spikes)"],
        );
    }
    // bad CSV files behind a CSV spec
    let csv_spec = |csv: &str| {
        format!(
            r#"{{"data": {{"kind": "csv", "path": "{csv}"}}, "model": {{"problem": "lp_regression", "p": 1.5, "gamma": 1}}}}"#
        )
    };
    for (name, body, needle) in [
        ("nan.csv", "a,y\n1,2\nNaN,1\n", "finite"),
        ("ragged.csv", "a,b,y\n1,2,3\n1,2\n", "cells"),
        ("noy.csv", "a,b\n1,2\n", "`y`"),
        ("text.csv", "a,y\n1,two\n", "not a number"),
    ] {
        dir.write(name, body);
        let spec = dir.write("csvspec.json", &csv_spec(name));
        for cmd in ["run", "gen", "digest"] {
            assert_fails(&kplay(&[cmd.as_ref(), spec.as_os_str()], d), &["CSV", needle]);
        }
    }
    let spec = dir.write("missingcsv.json", &csv_spec("absent.csv"));
    assert_fails(&kplay(&["run".as_ref(), spec.as_os_str()], d), &["absent.csv"]);
    // usage errors
    assert_fails(&kplay::<&str>(&[], d), &["usage"]);
    assert_fails(&kplay(&["frobnicate"], d), &["frobnicate"]);
    assert_fails(&kplay(&["run"], d), &["usage"]);
    let good = dir.write("good.json", &generator_spec(&GEN, 1.5, 10.0));
    assert_fails(&kplay(&["gen".as_ref(), good.as_os_str(), "--out".as_ref()], d), &["--out"]);
    assert_fails(&kplay(&["gen".as_ref(), good.as_os_str(), "-o".as_ref()], d), &["-o"]);
    // an unwritable output file
    let o = kplay(
        &["gen".as_ref(), good.as_os_str(), "-o".as_ref(), d.join("no/such/dir.csv").as_os_str()],
        d,
    );
    assert_fails(&o, &["cannot write"]);
}

/// `kplay gen … | head -c 16`: a reader that closes the pipe early ends the output quietly
/// (exit 0, no panic message), as Unix tools do.
#[test]
fn closed_stdout_pipe_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = TempDir::new("pipe");
    // Large enough that the CSV does not fit in the pipe's buffer before the reader closes it.
    let spec = dir.write(
        "spec.json",
        r#"{"data":{"kind":"sparse_regression","n":200,"d":2000,"k":5,"sigma":0.05,"seed":3},"model":{"problem":"lp_regression","p":1.5,"gamma":10}}"#,
    );
    let mut child = Command::new(KPLAY)
        .args(["gen", spec.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // The read end is dropped here, so kplay's next write meets a closed pipe.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "kplay panicked on a closed pipe: {stderr}");
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    assert!(String::from_utf8_lossy(&head).contains(','), "CSV header expected, got {head:?}");
}

/// `kplay --time-limit` cuts paper B's sections where they stand (issue 34): a cut section says
/// so — `{"status": "time_limit", "done", "total"}`, the units of its task done of all — in place
/// of its table, and exit 0. Nothing here depends on the machine's speed: a deadline of 1 ns has
/// passed before the first unit, and a selection of 3 folds × 10 000 m rows × 1 000 λ (3·10⁷
/// root solves, minutes of work on any machine) cannot end within 0.3 s; once a section is cut,
/// the deadline has passed, so the equivalence after it runs no unit. The totals are the tasks'
/// own counts: per fold one eigendecomposition, one unit per m row and one for kernel ridge;
/// one unit per fold of the CV on Z₁ and one per part.
#[test]
fn time_limit_cuts_paper_b_sections_where_they_stand() {
    let dir = TempDir::new("mrlsr-cut");
    let d = dir.path();
    let spec = |ms: &str, count: usize| {
        format!(
            r#"{{"paper": "mrlsr", "data": {{"kind": "sine", "n": 60, "sigma": 0.2, "seed": 1}},
                "kernel": {{"kind": "gaussian", "bandwidth": "heuristic"}}, "m": 1.5, "lambda": 1e-3,
                "selection": {{"folds": 3, "ms": {ms}, "lambdas": {{"from": 1e-6, "to": 100, "count": {count}}}}},
                "equivalence": {{"parts": 4, "folds": 3}}}}"#
        )
    };
    let run = |name: &str, text: &str, limit: Option<&str>| -> Value {
        let path = dir.write(name, text);
        let mut args: Vec<&std::ffi::OsStr> = vec!["run".as_ref(), path.as_os_str()];
        if let Some(l) = limit {
            args.push("--time-limit".as_ref());
            args.push(l.as_ref());
        }
        let o = kplay(&args, d);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        serde_json::from_str(&stdout(&o)).expect("one JSON object")
    };
    let cut = |v: &Value, done: Option<u64>, total: u64| {
        assert_eq!(v["status"], "time_limit", "{v}");
        assert_eq!(v["total"].as_u64(), Some(total), "{v}");
        let k = v["done"].as_u64().expect("done");
        assert!(k < total, "{v}");
        if let Some(want) = done {
            assert_eq!(k, want, "{v}");
        }
        assert!(
            v.get("mrlsr_cv").is_none() && v.get("parts").is_none(),
            "a cut section has no table: {v}"
        );
    };
    // Without a limit, the small spec's sections end with their tables.
    let small = spec(r#"{"from": 0.5, "to": 1.5, "step": 0.5}"#, 2);
    let whole = run("small.json", &small, None);
    assert_eq!(whole["status"], "converged");
    assert_eq!(whole["selection"]["mrlsr_cv"]["rmse"].as_array().map(Vec::len), Some(3));
    assert_eq!(whole["equivalence"]["parts"].as_array().map(Vec::len), Some(4));
    // 1 ns: the fit stands at iteration 0 and neither section runs a unit.
    let v = run("small.json", &small, Some("1e-9"));
    assert_eq!((v["status"].as_str(), v["iterations"].as_u64()), (Some("time_limit"), Some(0)));
    cut(&v["selection"], Some(0), 3 * (1 + 3 + 1));
    cut(&v["equivalence"], Some(0), 3 + 4);
    // 0.3 s: the selection of 3·10⁷ root solves is cut partway, the equivalence before its first unit.
    let huge = spec(r#"{"from": 0.01, "to": 100, "step": 0.01}"#, 1000);
    let v = run("huge.json", &huge, Some("0.3"));
    cut(&v["selection"], None, 3 * (1 + 10_000 + 1));
    cut(&v["equivalence"], Some(0), 3 + 4);
}
