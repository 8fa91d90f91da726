//! Input handling of the walking skeleton (issue 2, "Bad input"): CSV import and the validation
//! of experiment specs. Good input round-trips exactly; each kind of bad input is an `Err` whose
//! message names the problem; nothing panics on arbitrary text.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::data::{parse_csv, Dataset, SparseRegression, MAX_CELLS};
use kernel_playground::papers::lp::{DataSpec, LpSpec, ModelSpec};
use kernel_playground::KpError;
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

// ---------------------------------------------------------------- CSV: good files

fn assert_same_data(a: &Dataset, b: &Dataset) {
    assert_eq!(a.x.shape(), b.x.shape());
    assert_eq!(a.y.len(), b.y.len());
    for (u, v) in a.x.iter().zip(b.x.iter()) {
        assert_eq!(u.to_bits(), v.to_bits(), "x cell {u} vs {v}");
    }
    for (u, v) in a.y.iter().zip(b.y.iter()) {
        assert_eq!(u.to_bits(), v.to_bits(), "y cell {u} vs {v}");
    }
    assert_eq!(a.feature_names, b.feature_names);
}

#[test]
fn generated_data_round_trip_through_csv() {
    let data = SparseRegression { n: 17, d: 9, k: 4, sigma: 0.3, seed: 11 }.generate().unwrap();
    let text = data.to_csv();
    assert!(text.starts_with("x1,x2,x3,x4,x5,x6,x7,x8,x9,y\n"));
    assert_eq!(text.lines().count(), 1 + 17);
    let back = parse_csv(&text).unwrap();
    assert_same_data(&data, &back);
    assert_eq!(back.digest(), Dataset { w_true: None, ..data.clone() }.digest());
    assert!(back.w_true.is_none());
}

/// Finite f64 values of every kind: normal, subnormal, ±0, extremes.
fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO,
        Just(f64::MAX),
        Just(f64::MIN),
        Just(f64::MIN_POSITIVE),
        Just(-0.0),
        -10.0f64..10.0,
    ]
}

proptest! {
    /// Any finite data written by `Dataset::to_csv` is read back bit for bit.
    #[test]
    fn csv_round_trip_is_bit_exact(
        (n, d, cells) in (1usize..6, 1usize..6).prop_flat_map(|(n, d)| {
            (Just(n), Just(d), proptest::collection::vec(finite_f64(), n * (d + 1)))
        }),
        names in proptest::collection::vec("[a-zA-Z_][a-zA-Z0-9_]{0,6}", 6),
    ) {
        let x = DMatrix::from_row_slice(n, d, &cells[..n * d]);
        let y = DVector::from_column_slice(&cells[n * d..]);
        // feature names must not be `y` (that column is the target)
        let feature_names: Vec<String> = (0..d).map(|j| format!("{}_{j}", names[j])).collect();
        let data = Dataset { x, y, w_true: None, feature_names };
        let back = parse_csv(&data.to_csv()).unwrap();
        assert_same_data(&data, &back);
    }
}

#[test]
fn y_column_may_be_anywhere() {
    for (text, names) in [
        ("y,a,b\n1,2,3\n4,5,6\n", ["a", "b"]),
        ("a,y,b\n2,1,3\n5,4,6\n", ["a", "b"]),
        ("a,b,y\n2,3,1\n5,6,4\n", ["a", "b"]),
    ] {
        let data = parse_csv(text).unwrap();
        assert_eq!(data.feature_names, names);
        assert_eq!(data.y.as_slice(), &[1.0, 4.0]);
        assert_eq!(data.x, DMatrix::from_row_slice(2, 2, &[2.0, 3.0, 5.0, 6.0]));
    }
}

#[test]
fn csv_accepts_spaces_quotes_and_crlf() {
    let data = parse_csv("a , y\r\n 1.5 , -2e-3 \r\n\"3\",4\r\n").unwrap();
    assert_eq!(data.feature_names, ["a"]);
    assert_eq!(data.x.as_slice(), &[1.5, 3.0]);
    assert_eq!(data.y.as_slice(), &[-2e-3, 4.0]);
}

// ---------------------------------------------------------------- CSV: bad files

/// Parse `text`, expect an error, and check its message mentions every `needle`.
fn csv_error(text: &str, needles: &[&str]) -> String {
    let e = match parse_csv(text) {
        Ok(d) => panic!("accepted bad CSV {text:?} as {}×{} data", d.n(), d.d()),
        Err(e) => e,
    };
    let msg = e.to_string();
    for n in needles {
        assert!(msg.contains(n), "message for {text:?} lacks {n:?}: {msg}");
    }
    msg
}

#[test]
fn csv_non_finite_cells_are_rejected() {
    csv_error("a,y\n1,2\nNaN,3\n", &["line 3", "`a`", "NaN", "finite"]);
    csv_error("a,y\n1,nan\n", &["line 2", "`y`", "finite"]);
    csv_error("a,b,y\n1,inf,3\n", &["`b`", "inf", "finite"]);
    csv_error("a,y\n-inf,0\n", &["`a`", "finite"]);
    csv_error("a,y\n1,infinity\n", &["`y`", "finite"]);
    // overflow to infinity is not a finite number either
    csv_error("a,y\n1e999,0\n", &["`a`", "finite"]);
}

#[test]
fn csv_ragged_rows_are_rejected() {
    // too many cells
    csv_error("a,b,y\n1,2,3\n4,5,6,7\n", &["line 3", "4 cells", "3"]);
    // too few cells
    csv_error("a,b,y\n1,2,3\n4,5\n", &["line 3", "2 cells", "3"]);
    csv_error("a,b,y\n1\n", &["line 2", "1 cells"]);
}

#[test]
fn csv_missing_y_column_is_rejected() {
    csv_error("a,b,c\n1,2,3\n", &["`y`", "a, b, c"]);
    // the name must be exactly `y`
    csv_error("a,Y\n1,2\n", &["`y`"]);
}

#[test]
fn csv_non_numeric_cells_are_rejected() {
    csv_error("a,y\n1,2\nabc,3\n", &["line 3", "`a`", "`abc`", "not a number"]);
    csv_error("a,y\n1,\n", &["line 2", "`y`", "not a number"]);
    csv_error("a,y\n1,2,\n", &["line 2"]);
    csv_error("a,y\n0x10,2\n", &["`0x10`", "not a number"]);
}

#[test]
fn csv_without_rows_or_features_is_rejected() {
    csv_error("a,y\n", &["no data rows"]);
    csv_error("a,y", &["no data rows"]);
    let msg = csv_error("", &[]);
    assert!(msg.contains("`y`") || msg.contains("empty"), "{msg}");
    csv_error("y\n1\n2\n", &["feature column"]);
}

proptest! {
    /// parse_csv never panics on arbitrary text, nor on near-miss CSV.
    #[test]
    fn csv_never_panics(text in ".{0,200}") {
        let _ = parse_csv(&text);
    }

    #[test]
    fn csv_near_misses_never_panic(text in "[xy,\n\r \"0-9.eE+\\-naifNI]{0,80}") {
        if let Ok(d) = parse_csv(&text) {
            prop_assert!(d.n() >= 1 && d.d() >= 1);
            prop_assert!(d.x.iter().chain(d.y.iter()).all(|v| v.is_finite()));
            prop_assert_eq!(d.feature_names.len(), d.d());
        }
    }
}

// ---------------------------------------------------------------- experiment specs

const GOOD: &str = r#"{
  "data": {"kind": "sparse_regression", "n": 20, "d": 30, "k": 3, "sigma": 0.05, "seed": 1},
  "model": {"problem": "lp_regression", "p": 1.5, "gamma": 10},
  "solver": {"algorithm": "dual_gradient", "tol": 1e-10, "max_iter": 100}
}"#;

fn spec_with(data: &str, model: &str) -> String {
    format!(r#"{{"data": {data}, "model": {model}}}"#)
}

fn data_json(n: i64, d: i64, k: i64) -> String {
    format!(
        r#"{{"kind": "sparse_regression", "n": {n}, "d": {d}, "k": {k}, "sigma": 0.05, "seed": 1}}"#
    )
}

fn model_json(p: &str, gamma: &str) -> String {
    format!(r#"{{"problem": "lp_regression", "p": {p}, "gamma": {gamma}}}"#)
}

/// `from_json(..)?.validate()` must fail, with a message that mentions each needle.
fn spec_error(text: &str, needles: &[&str]) -> KpError {
    let e = match LpSpec::from_json(text).and_then(|e| e.validate()) {
        Ok(_) => panic!("accepted bad spec {text}"),
        Err(e) => e,
    };
    let msg = e.to_string();
    for n in needles {
        assert!(msg.contains(n), "message for {text} lacks {n:?}: {msg}");
    }
    e
}

#[test]
fn good_spec_validates() {
    let v = LpSpec::from_json(GOOD).unwrap().validate().unwrap();
    assert_eq!((v.p, v.gamma), (1.5, 10.0));
    assert_eq!((v.data.n(), v.data.d()), (20, 30));
    // λ̄ defaults to the paper's cap γ/(2(1 − δ)) with δ = 1/2
    assert_eq!(v.linesearch.step0, 10.0);
    // the solver section is optional
    let v = LpSpec::from_json(&spec_with(&data_json(5, 4, 1), &model_json("1.2", "3"))).unwrap();
    assert_eq!(v.solver.max_iter, 1000);
    assert_eq!(v.solver.tol, 1e-10);
    v.validate().unwrap();
    // the spec survives its own JSON
    let e = LpSpec::from_json(GOOD).unwrap();
    assert_eq!(LpSpec::from_json(&e.to_json()).unwrap(), e);
    let d = LpSpec::default();
    assert_eq!(LpSpec::from_json(&d.to_json()).unwrap(), d);
}

#[test]
fn p_outside_the_open_interval_is_rejected() {
    let data = data_json(5, 4, 1);
    for p in ["1", "2", "0.5", "1.0", "2.5", "-1.5", "0"] {
        let e = spec_error(
            &spec_with(&data, &model_json(p, "10")),
            &["p must lie strictly between 1 and 2"],
        );
        assert!(matches!(e, KpError::POutOfRange(_)), "{e:?}");
    }
    // JSON has no NaN literal: the text is malformed and says where
    spec_error(&spec_with(&data, &model_json("NaN", "10")), &["line"]);
    // a NaN p built in code is rejected as out of range
    let mut e = LpSpec::from_json(GOOD).unwrap();
    set_model(&mut e, f64::NAN, 10.0);
    let err = e.validate().err().expect("NaN p accepted");
    assert!(err.to_string().contains("p must lie strictly between 1 and 2"), "{err}");
    set_model(&mut e, f64::INFINITY, 10.0);
    assert!(e.validate().is_err());
}

#[test]
fn gamma_not_positive_is_rejected() {
    let data = data_json(5, 4, 1);
    for g in ["0", "-1", "-0.0", "-1e-300"] {
        let e = spec_error(&spec_with(&data, &model_json("1.5", g)), &["γ (gamma)", "positive"]);
        assert!(matches!(e, KpError::GammaNotPositive(_)), "{e:?}");
    }
    let mut e = LpSpec::from_json(GOOD).unwrap();
    for g in [f64::NAN, f64::INFINITY] {
        set_model(&mut e, 1.5, g);
        assert!(e.validate().err().expect("bad γ accepted").to_string().contains("γ (gamma)"));
    }
}

#[test]
fn bad_sizes_are_rejected() {
    let m = model_json("1.5", "10");
    spec_error(&spec_with(&data_json(0, 4, 1), &m), &["n (number of samples)", "got 0"]);
    spec_error(&spec_with(&data_json(5, 0, 0), &m), &["d (number of features)", "got 0"]);
    spec_error(
        &spec_with(&data_json(5, 4, 5), &m),
        &["k (number of non-zero spikes)", "d = 4", "got 5"],
    );
    // negative sizes do not fit the unsigned fields: a parse error naming the value
    spec_error(&spec_with(&data_json(-3, 4, 1), &m), &["-3"]);
    // too much data is refused before anything is allocated
    let e = spec_error(
        &spec_with(&data_json(100_000, 100_000, 1), &m),
        &["n·d", &MAX_CELLS.to_string()],
    );
    assert!(matches!(e, KpError::DataTooLarge { .. }));
    // usize overflow of n·d is still "too large", not a panic
    let e = spec_error(&spec_with(&data_json(i64::MAX, i64::MAX, 1), &m), &["n·d"]);
    assert!(matches!(e, KpError::DataTooLarge { .. }));
    // σ must be a non-negative number
    let bad_sigma =
        r#"{"kind": "sparse_regression", "n": 5, "d": 4, "k": 1, "sigma": -0.1, "seed": 1}"#;
    spec_error(&spec_with(bad_sigma, &m), &["σ (noise level)"]);
}

#[test]
fn malformed_and_unknown_fields_are_rejected() {
    for text in ["", "{", "not json", "[]", "null", r#"{"data": 1}"#, &GOOD[..GOOD.len() - 3]] {
        let e = spec_error(text, &["spec"]);
        assert!(matches!(e, KpError::Spec(_)), "{e:?}");
    }
    // an unknown field anywhere is named in the message
    let top = GOOD.replacen('{', r#"{"colour": "red", "#, 1);
    spec_error(&top, &["unknown field", "colour"]);
    let in_model = GOOD.replace(r#""gamma": 10"#, r#""gamma": 10, "lambda": 2"#);
    spec_error(&in_model, &["unknown field", "lambda"]);
    let in_data = GOOD.replace(r#""seed": 1"#, r#""seed": 1, "noise": 2"#);
    spec_error(&in_data, &["unknown field", "noise"]);
    let in_solver = GOOD.replace(r#""max_iter": 100"#, r#""max_iter": 100, "maxiter": 2"#);
    spec_error(&in_solver, &["unknown field", "maxiter"]);
    // unknown kinds and problems are named too
    spec_error(&GOOD.replace("sparse_regression", "spiral"), &["spiral"]);
    spec_error(&GOOD.replace("lp_regression", "lasso"), &["lasso"]);
    // missing sections and fields
    spec_error(
        r#"{"data": {"kind": "sparse_regression", "n": 5, "d": 4, "k": 1, "sigma": 0, "seed": 1}}"#,
        &["model"],
    );
    spec_error(&GOOD.replace(r#", "gamma": 10"#, ""), &["gamma"]);
}

#[test]
fn bad_solver_settings_are_rejected() {
    let with = |from: &str, to: &str| GOOD.replace(from, to);
    spec_error(&with(r#""tol": 1e-10"#, r#""tol": 0"#), &["tolerance"]);
    spec_error(&with(r#""tol": 1e-10"#, r#""tol": -1"#), &["tolerance"]);
    spec_error(&with(r#""max_iter": 100"#, r#""max_iter": 0"#), &["iteration cap"]);
    spec_error(&with("\"dual_gradient\"", "\"newton\""), &["solver.algorithm", "newton"]);
    spec_error(&with(r#""max_iter": 100"#, r#""max_iter": 100, "delta": 1"#), &["delta"]);
    spec_error(&with(r#""max_iter": 100"#, r#""max_iter": 100, "theta": 0"#), &["theta"]);
    // λ̄ above γ/(2(1 − δ)) = 10
    spec_error(&with(r#""max_iter": 100"#, r#""max_iter": 100, "step0": 10.5"#), &["solver.step0"]);
    spec_error(&with(r#""max_iter": 100"#, r#""max_iter": 100, "step0": 0"#), &["solver.step0"]);
    let ok =
        LpSpec::from_json(&with(r#""max_iter": 100"#, r#""max_iter": 100, "step0": 2.5"#)).unwrap();
    assert_eq!(ok.validate().unwrap().linesearch.step0, 2.5);
}

#[test]
fn csv_specs() {
    let m = model_json("1.5", "10");
    // inline text is parsed; its errors come through validate
    let ok = spec_with(r#"{"kind": "csv", "text": "a,b,y\n1,2,3\n4,5,6\n"}"#, &m);
    let v = LpSpec::from_json(&ok).unwrap().validate().unwrap();
    assert_eq!((v.data.n(), v.data.d()), (2, 2));
    spec_error(&spec_with(r#"{"kind": "csv", "text": "a,b\n1,2\n"}"#, &m), &["CSV", "`y`"]);
    spec_error(&spec_with(r#"{"kind": "csv", "text": "a,y\nNaN,2\n"}"#, &m), &["CSV", "finite"]);
    // a path is only read by the CLI; the library says so instead of touching the disk
    spec_error(&spec_with(r#"{"kind": "csv", "path": "data.csv"}"#, &m), &["data.csv"]);
    spec_error(&spec_with(r#"{"kind": "csv"}"#, &m), &["text"]);
    // the data of a spec are only checked after its parameters, but both are checked
    let both_bad = spec_with(&data_json(0, 4, 1), &model_json("3", "10"));
    spec_error(&both_bad, &["p must lie"]);
    let mut e = LpSpec::from_json(&spec_with(&data_json(5, 4, 1), &m)).unwrap();
    e.data = DataSpec::Csv { text: Some("y\n1\n".into()), path: None };
    assert!(e.validate().is_err());
}

proptest! {
    /// `LpSpec::from_json` never panics on arbitrary strings.
    #[test]
    fn from_json_never_panics(text in ".{0,300}") {
        let _ = LpSpec::from_json(&text);
    }

    /// Nor on near-misses of a good spec (a cut, or one character replaced); whatever parses
    /// is checked without panicking (and validated fully when its data are small).
    #[test]
    fn mutated_specs_never_panic(cut in 0usize..400, at in 0usize..400, c in any::<char>(), trunc in any::<bool>()) {
        let chars: Vec<char> = GOOD.chars().collect();
        let text: String = if trunc {
            chars[..cut.min(chars.len())].iter().collect()
        } else {
            let i = at % chars.len();
            chars[..i].iter().chain(std::iter::once(&c)).chain(chars[i + 1..].iter()).collect()
        };
        if let Ok(e) = LpSpec::from_json(&text) {
            let _ = e.check_parameters();
            let small = match &e.data {
                DataSpec::SparseRegression(g) => g.n.saturating_mul(g.d) <= 100_000,
                DataSpec::Csv { .. } => true,
                DataSpec::TwoBlobs(g) => g.n <= 100_000,
            };
            if small {
                let _ = e.validate();
            }
        }
    }

    /// Numbers in every field: never a panic, and any spec that validates has p ∈ (1, 2), γ > 0.
    #[test]
    fn numeric_fields_never_panic(
        p in prop_oneof![-3f64..4.0, Just(1.0), Just(2.0)],
        gamma in prop_oneof![-5f64..100.0, Just(0.0)],
        n in 0i64..40, d in 0i64..40, k in 0i64..45,
    ) {
        let text = spec_with(&data_json(n, d, k), &model_json(&format!("{p:?}"), &format!("{gamma:?}")));
        match LpSpec::from_json(&text).unwrap().validate() {
            Ok(v) => {
                prop_assert!(v.p > 1.0 && v.p < 2.0 && v.gamma > 0.0);
                prop_assert!(n >= 1 && d >= 1 && k <= d);
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

#[test]
fn csv_duplicate_or_unnamed_columns_are_rejected() {
    for (text, needle) in [
        ("y,y\n1,2\n", "twice"),
        ("a,a,y\n1,2,3\n", "twice"),
        ("a,,y\n1,2,3\n", "no name"),
        ("", "empty"),
    ] {
        let err = kernel_playground::data::parse_csv(text).expect_err(text).to_string();
        assert!(err.contains(needle), "{text:?}: {err}");
    }
}

/// Set p and γ of the (only) model kind, keeping its other fields.
fn set_model(e: &mut LpSpec, p_new: f64, gamma_new: f64) {
    let ModelSpec::LpRegression { p, gamma, .. } = &mut e.model;
    *p = p_new;
    *gamma = gamma_new;
}

// ---------------------------------------------------------------- generators called directly

/// A generator called directly (tests, lessons, benches) refuses a bad knob with an error that
/// names it, never a panic; and at each bound it accepts exactly what the papers' schemas accept
/// (one declaration of each range): value by value at, just inside and just outside each bound,
/// NaN and infinity, the generator's verdict against the schema field's.
#[test]
fn generators_refuse_a_bad_knob_naming_it_at_the_schemas_bounds() {
    use kernel_playground::datasets::blobs::TwoBlobs;
    use kernel_playground::datasets::plane::{Classification2d, Regression1d, Shape2d};
    use kernel_playground::papers::spec_schema;
    use kernel_playground::Result;
    let (a, c, d) = (
        spec_schema("lp").unwrap(),
        spec_schema("dinuzzo").unwrap(),
        spec_schema("perceptron").unwrap(),
    );
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let up = |v: f64| v + v.abs().max(1.0) * 1e-9;
    let down = |v: f64| v - v.abs().max(1.0) * 1e-9;
    let mut checked = 0;
    let mut agree = |schema: &kernel_playground::schema::Schema,
                     path: &str,
                     name: &str,
                     values: &[f64],
                     generate: &dyn Fn(f64) -> Result<Dataset>| {
        let field = schema.field(path).unwrap_or_else(|| panic!("no field {path}"));
        for &v in values {
            let got = generate(v);
            assert_eq!(got.is_ok(), field.accepts(v), "{path} = {v}: generator vs schema");
            if let Err(e) = got {
                assert!(e.to_string().contains(name), "{path} = {v}: {e}");
            }
            checked += 1;
        }
    };
    let set = |shape: Shape2d, label_noise: f64| {
        Classification2d { shape, n: 20, label_noise, seed: 1 }.generate()
    };
    let blobs = |margin: f64, spread: f64| set(Shape2d::Blobs { margin, spread }, 0.0);
    let edges = |lo: f64, hi: f64| vec![down(lo), lo, up(lo), down(hi), hi, up(hi), nan, inf, -inf];
    agree(&c, "data.shape.margin", "margin", &edges(-1e4, 1e4), &|v| blobs(v, 0.5));
    agree(&d, "data.set.shape.margin", "margin", &edges(-1e4, 1e4), &|v| blobs(v, 0.5));
    agree(&c, "data.shape.spread", "spread", &edges(0.0, 1e4), &|v| blobs(0.5, v));
    agree(&c, "data.shape.noise", "noise", &edges(0.0, 1e4), &|v| {
        set(Shape2d::Moons { noise: v }, 0.0)
    });
    agree(&d, "data.set.shape.noise", "noise", &edges(0.0, 1e4), &|v| {
        set(Shape2d::Xor { noise: v }, 0.0)
    });
    let circles = |factor: f64| set(Shape2d::Circles { noise: 0.05, factor }, 0.0);
    agree(&c, "data.shape.factor", "factor", &edges(0.0, 1.0), &circles);
    agree(&d, "data.set.shape.factor", "factor", &edges(0.0, 1.0), &circles);
    let moons = |p: f64| set(Shape2d::Moons { noise: 0.1 }, p);
    agree(&c, "data.label_noise", "label_noise", &edges(0.0, 1.0), &moons);
    agree(&d, "data.set.label_noise", "label_noise", &edges(0.0, 1.0), &moons);
    let curve =
        |noise: f64, outliers: f64| Regression1d { n: 20, noise, outliers, seed: 1 }.generate();
    agree(&c, "data.noise", "noise", &edges(0.0, 1e4), &|v| curve(v, 0.1));
    agree(&c, "data.outliers", "outliers", &edges(0.0, 1.0), &|v| curve(0.2, v));
    let two = |separation: f64, spread: f64, flip: f64| {
        TwoBlobs { n: 20, separation, spread, flip, seed: 1 }.generate()
    };
    agree(&a, "data.separation", "separation", &[down(0.0), 0.0, 3.0, 1e6, nan, inf], &|v| {
        two(v, 1.0, 0.05)
    });
    agree(&a, "data.spread", "spread", &[down(0.0), 0.0, up(0.0), 5.0, nan, inf], &|v| {
        two(3.0, v, 0.05)
    });
    agree(&a, "data.flip", "flip", &edges(0.0, 0.5), &|v| two(3.0, 1.0, v));
    assert_eq!(checked, 12 * 9 + 2 * 6);
}
