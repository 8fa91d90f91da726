//! Each paper's page schema (`specSchema(paper)`, `kplay schema`) agrees with the paper's own
//! check (issue 34 §3): for every numeric field, in a spec where it applies, its default passes
//! the check, and a value just outside its range (each end it declares) is refused with a
//! message naming the field's path. The spec around a field is built from the paper's default
//! spec and the schema alone, as `www/state.js` builds one from a page's controls: a choice the
//! field depends on is set to a value it applies under, its object rebuilt from the schema's
//! defaults.

use kernel_playground::papers::dinuzzo;
use kernel_playground::papers::mrlsr::{MrlsrChecked, PAGE_MAX_N};
use kernel_playground::papers::perceptron::PerceptronChecked;
use kernel_playground::papers::spec_schema;
use kernel_playground::papers::Spec;
use kernel_playground::schema::{check_fields, get, Default, Field, FieldType, Schema};
use kernel_playground::spec_json::Paper;
use serde_json::{json, Map, Value};

/// The paper's check of a spec (its `Checked` check; for papers A and C with the data built,
/// which checks the generator's fields too).
fn check(paper: Paper, spec: &Value) -> Result<(), String> {
    let mut tagged = spec.clone();
    tagged["paper"] = json!(paper.tag());
    let parsed = Spec::from_json(&tagged.to_string()).map_err(|e| e.to_string())?;
    let result = match parsed {
        Spec::Lp(e) => e.check().and_then(|_| e.build_data()).map(|_| ()),
        Spec::Mrlsr(s) => MrlsrChecked::check(&s, PAGE_MAX_N).map(|_| ()),
        Spec::Dinuzzo(s) => s.check().and_then(|c| dinuzzo::build(&c)).map(|_| ()),
        Spec::Perceptron(s) => PerceptronChecked::check(s).map(|_| ()),
    };
    result.map_err(|e| e.to_string())
}

fn default_value(f: &Field) -> Value {
    match &f.default {
        Default::Number(v) if f.kind == FieldType::Integer => json!(*v as i64),
        Default::Number(v) => json!(v),
        Default::Text(t) => json!(t),
        Default::Bool(b) => json!(b),
    }
}

/// Put `value` at the dotted `path`, making objects on the way (a string there, such as a
/// bandwidth `"heuristic"`, becomes an object).
fn set(spec: &mut Value, path: &str, value: Value) {
    let mut at = spec;
    let keys: Vec<&str> = path.split('.').collect();
    for key in &keys[..keys.len() - 1] {
        if !at.get(*key).is_some_and(Value::is_object) {
            at[*key] = Value::Object(Map::new());
        }
        at = &mut at[*key];
    }
    at[keys[keys.len() - 1]] = value;
}

/// Make every `when` of `f` hold: a choice holding another value is set to the first one the
/// field applies under, the object it tags started afresh (`{"kind": …}`).
fn satisfy(schema: &Schema, spec: &mut Value, f: &Field) {
    for w in &f.when {
        let holds = get(spec, &w.path)
            .and_then(Value::as_str)
            .is_some_and(|v| w.values.iter().any(|x| x == v));
        if holds {
            continue;
        }
        if let Some(choice) = schema.field(&w.path) {
            satisfy(schema, spec, choice);
        }
        match w.path.rsplit_once('.') {
            Some((parent, key)) => set(spec, parent, json!({ key: w.values[0] })),
            None => set(spec, &w.path, json!(w.values[0])),
        }
    }
}

/// Fill every field that applies and is absent with its default (the schema in table order:
/// a choice before the fields under it).
fn fill(schema: &Schema, spec: &mut Value) {
    for f in &schema.fields {
        if f.applies(spec) && get(spec, &f.path).is_none() {
            set(spec, &f.path, default_value(f));
        }
    }
}

/// The paper's default spec with `f` applying and every field it needs present.
fn context(schema: &Schema, base: &Value, f: &Field) -> Value {
    let mut spec = base.clone();
    satisfy(schema, &mut spec, f);
    fill(schema, &mut spec);
    spec
}

/// Values at the edge of the field's declared range, just inside: each bound itself when
/// closed, else one step within it.
fn inside(f: &Field) -> Vec<f64> {
    let within = |b: f64| if f.kind == FieldType::Integer { 1.0 } else { 1e-6 * b.abs().max(1.0) };
    let mut out = Vec::new();
    if let Some(m) = f.min {
        out.push(if f.min_open { m + within(m) } else { m });
    }
    if let Some(m) = f.max {
        out.push(if f.max_open { m - within(m) } else { m });
    }
    out
}

/// Values just outside the field's declared range: each bound itself when open, else one
/// step (1 for a whole number, a millionth of the bound's size otherwise) beyond it.
fn outside(f: &Field) -> Vec<f64> {
    let beyond = |b: f64| if f.kind == FieldType::Integer { 1.0 } else { 1e-6 * b.abs().max(1.0) };
    let mut out = Vec::new();
    if let Some(m) = f.min {
        out.push(if f.min_open { m } else { m - beyond(m) });
    }
    if let Some(m) = f.max {
        out.push(if f.max_open { m } else { m + beyond(m) });
    }
    out
}

fn as_json(f: &Field, v: f64) -> Value {
    if f.kind == FieldType::Integer {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// Paper A's check refuses a loss the default algorithm (Algorithm 2.1, square loss only)
/// cannot run: a spec around a loss parameter runs Algorithm 3.3, which takes every loss.
/// Paper C's hinge loss (its default) needs ±1 labels: a spec around 1-D regression data uses
/// the square loss (RLS).
fn adjust(paper: Paper, spec: &mut Value) {
    if paper == Paper::Dinuzzo && get(spec, "data.kind").is_some_and(|k| k == "regression") {
        let loss = get(spec, "loss").cloned().unwrap_or(Value::Null);
        if get(&loss, "kind").is_some_and(|k| k == "hinge") {
            set(spec, "loss", json!({"kind": "square"}));
        }
    }
    if paper == Paper::Lp && get(spec, "model.loss.kind").is_some_and(|k| k != "square") {
        set(spec, "solver.algorithm", json!("prox_dual"));
    }
}

/// A refusal of a value inside a field's own range that a rule between two fields explains:
/// paper A's k ≤ d (d = 1 with the default k = 10).
fn dependent(path: &str, message: &str) -> bool {
    path == "data.d" && message.contains("at most d")
}

fn agrees(paper: Paper) -> usize {
    let schema = spec_schema(paper.tag()).unwrap();
    assert_eq!(schema.paper, paper.tag());
    let mut base = Spec::default_for(paper).to_value();
    base.as_object_mut().unwrap().remove("paper");
    check(paper, &base)
        .unwrap_or_else(|e| panic!("{}: the default spec is refused: {e}", paper.tag()));
    let mut bounds = 0;
    for f in &schema.fields {
        if f.kind == FieldType::Choice {
            let Default::Text(d) = &f.default else {
                panic!("{}: a choice's default is text", f.path)
            };
            assert!(
                f.options.iter().any(|o| &o.value == d),
                "{}: default {d} not among its options",
                f.path
            );
        }
        if !matches!(f.kind, FieldType::Number | FieldType::Integer) {
            continue;
        }
        let Default::Number(d) = f.default else {
            panic!("{}: a number's default is a number", f.path)
        };
        assert!(f.accepts(d), "{}: the default {d} is outside the field's own range", f.path);
        let mut spec = context(&schema, &base, f);
        adjust(paper, &mut spec);
        // A NaN or an infinity set in Rust reaches the check as JSON `null`: refused by name.
        let mut lost = spec.clone();
        set(&mut lost, &f.path, Value::Null);
        let e = check_fields(&schema.fields, &lost).expect_err("a null number").to_string();
        assert!(e.contains(&f.path) && e.contains("NaN or an infinity"), "{}: {e}", f.path);
        set(&mut spec, &f.path, default_value(f));
        check(paper, &spec)
            .unwrap_or_else(|e| panic!("{}: the default {d} is refused: {e}\n{spec}", f.path));
        for v in inside(f) {
            let mut spec = spec.clone();
            set(&mut spec, &f.path, as_json(f, v));
            if let Err(e) = check(paper, &spec) {
                assert!(
                    dependent(&f.path, &e),
                    "{}: {v} is inside the schema's range {} but the check refuses it: {e}",
                    f.path,
                    f.range_text()
                );
            }
        }
        for v in outside(f) {
            assert!(!f.accepts(v), "{}: {v} is inside", f.path);
            set(&mut spec, &f.path, as_json(f, v));
            match check(paper, &spec) {
                Ok(()) => panic!(
                    "{}: {v} is outside the schema's range {} but the check accepts it",
                    f.path,
                    f.range_text()
                ),
                Err(e) => assert!(
                    e.contains(&f.path),
                    "{}: the refusal of {v} does not name the field: {e}",
                    f.path
                ),
            }
            bounds += 1;
        }
    }
    bounds
}

#[test]
fn paper_a_schema_and_check_agree() {
    assert!(agrees(Paper::Lp) >= 15);
}

#[test]
fn paper_b_schema_and_check_agree() {
    assert!(agrees(Paper::Mrlsr) >= 8);
}

#[test]
fn paper_c_schema_and_check_agree() {
    assert!(agrees(Paper::Dinuzzo) >= 15);
}

#[test]
fn paper_d_schema_and_check_agree() {
    assert!(agrees(Paper::Perceptron) >= 10);
}

#[test]
fn every_path_is_declared_once_and_an_unknown_paper_is_refused() {
    for paper in Paper::ALL {
        let schema = spec_schema(paper.tag()).unwrap();
        let mut seen = std::collections::HashSet::new();
        for f in &schema.fields {
            assert!(seen.insert(f.path.clone()), "{}: {} declared twice", paper.tag(), f.path);
            for w in &f.when {
                let choice = schema.field(&w.path).unwrap_or_else(|| {
                    panic!("{}: {} depends on an undeclared {}", paper.tag(), f.path, w.path)
                });
                assert_eq!(choice.kind, FieldType::Choice);
                for v in &w.values {
                    assert!(
                        choice.options.iter().any(|o| &o.value == v),
                        "{}: {v} is not an option of {}",
                        f.path,
                        w.path
                    );
                }
            }
        }
    }
    let e = spec_schema("nope").unwrap_err().to_string();
    assert!(e.contains("paper") && e.contains("nope"), "{e}");
}

/// A spec built in Rust (not parsed from a link) with a number that is not finite is refused by
/// the schema's rule, naming the field, in every paper: here paper C's λ, which no other check
/// restates, and paper A's tolerance.
#[test]
fn a_number_that_is_not_finite_in_a_rust_built_spec_is_refused_by_name() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let Spec::Dinuzzo(mut c) = Spec::default_for(Paper::Dinuzzo) else { unreachable!() };
        c.lambda = bad;
        let e = c.check().map(|_| ()).expect_err("λ not finite").to_string();
        assert!(e.contains("lambda") && e.contains("NaN or an infinity"), "{e}");
        let Spec::Lp(mut a) = Spec::default_for(Paper::Lp) else { unreachable!() };
        a.solver.tol = bad;
        let e = a.check().map(|_| ()).expect_err("tol not finite").to_string();
        assert!(e.contains("solver.tol"), "{e}");
    }
}
