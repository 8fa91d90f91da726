//! What the page's lesson editor asks the core (`src/lesson/editor.rs`, issue 35 §1–2): the
//! readouts that show a measure, held against the catalogues and real reports; a claim
//! evaluated as it is written, against an earlier step too, agreeing with `kplay lesson check`'s
//! evaluation of the whole lesson and with the two runs compared directly.

use kernel_playground::lesson::{check, editor, elements, lookup, measures, Lesson, Page};
use kernel_playground::papers;
use serde_json::{json, Value};

const PAGES: [(Page, &str); 4] =
    [(Page::Lp, "a"), (Page::Mrlsr, "b"), (Page::Dinuzzo, "c"), (Page::Perceptron, "d")];

fn lesson(id: &str) -> Value {
    let path = format!("{}/www/lessons/{id}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("lesson")).expect("json")
}

#[test]
fn every_readout_measure_is_a_catalogued_readout_and_reads_a_real_report() {
    for (page, id) in PAGES {
        let pairs = measures::readout_measures(page);
        assert!(pairs.len() >= 5, "{}: {} readouts", page.file(), pairs.len());
        // The page's built-in lesson's steps, run as `kplay run` runs them, until one report
        // has the measure (page D's ‖p‖_G only where the algorithm keeps a p).
        let parsed = Lesson::parse(&lesson(id).to_string()).expect("lesson");
        let mut reports: Vec<Value> = Vec::new();
        for (readout, path) in pairs {
            let el = elements::elements(page).iter().find(|e| e.id == readout);
            assert!(
                el.is_some_and(|e| e.role == elements::Role::Readout),
                "{}: `{readout}` is not a catalogued readout",
                page.file()
            );
            measures::check(page, path).unwrap_or_else(|e| panic!("{}: {e}", page.file()));
            let mut found = None;
            for k in 0..parsed.specs.len() {
                if k == reports.len() {
                    reports.push(papers::run(&parsed.specs[k]).expect("run").to_json());
                }
                if let Ok(v) = lookup(&reports[k], path) {
                    found = Some(v);
                    break;
                }
            }
            let v = found.unwrap_or_else(|| panic!("{}: no report has {path}", page.file()));
            assert!(v.is_number() || v.is_string(), "{} {readout} → {path}: {v}", page.file());
        }
    }
}

#[test]
fn the_catalogue_lists_every_element_and_measure_of_the_page() {
    for (page, _) in PAGES {
        let c = editor::catalogue(page);
        let ids: Vec<&str> =
            c["elements"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
        for e in elements::elements(page) {
            assert!(ids.contains(&e.id), "{}: {}", page.file(), e.id);
        }
        for id in &ids {
            assert!(elements::known(page, id), "{}: {id} is not known", page.file());
        }
        for m in c["measures"].as_array().unwrap() {
            measures::check(page, m["path"].as_str().unwrap()).expect("a measure");
        }
    }
    assert!(editor::page_of("dinuzzo.htm").unwrap_err().contains("dinuzzo.htm"));
}

/// Lesson C's first two steps as a draft: no texts yet, step 2 without claims.
fn draft() -> Value {
    let mut l = lesson("c");
    let steps = l["steps"].as_array_mut().unwrap();
    steps.truncate(2);
    for s in steps.iter_mut() {
        for f in ["look", "predict", "explain", "title"] {
            s[f] = "".into();
        }
        s["claims"] = json!([]);
    }
    l
}

#[test]
fn a_claim_against_an_earlier_step_is_evaluated_as_lesson_check_does() {
    let l = draft();
    let claim = json!({ "id": "fewer", "says": "fewer sweeps than step 1", "lhs": { "run": "iterations" },
        "rel": "<", "rhs": { "step": [1, "iterations"] }, "reference": "ours" });
    let out = editor::evaluate_claim(&l.to_string(), 1, &claim.to_string());
    assert!(out.get("error").is_none(), "{out}");
    // The two runs compared directly.
    let parsed = Lesson::parse(&lesson("c").to_string()).expect("lesson c");
    let it = |k: usize| {
        papers::run(&parsed.specs[k]).expect("run").to_json()["iterations"].as_u64().unwrap()
    };
    let (a, b) = (it(0), it(1));
    assert_eq!(out["pass"], json!(b < a), "{out}");
    assert_eq!(out["measured"], json!(b.to_string()));
    assert_eq!(out["rhs"], json!(format!("< {a}")));
    // The whole lesson with that claim, evaluated by `kplay lesson check`'s check().
    let mut full = lesson("c");
    full["steps"].as_array_mut().unwrap().truncate(2);
    let mut c = claim.clone();
    c["answers"] = true.into();
    full["steps"][1]["claims"] = json!([c]);
    let p = Lesson::parse(&full.to_string()).expect("lesson");
    let r = check::check(&p);
    let last = r.last().unwrap();
    assert_eq!((last.pass, last.rhs.clone()), (out["pass"].as_bool().unwrap(), format!("< {a}")));
    // The same over the wasm's `checkLessonClaims` path.
    let all = editor::check_all(&full.to_string());
    assert_eq!(all["results"].as_array().unwrap().last().unwrap()["pass"], out["pass"]);
}

#[test]
fn a_bad_claim_is_refused_naming_the_field() {
    let l = draft().to_string();
    let bad = json!({ "id": "x", "says": "s", "lhs": { "run": "iteration" }, "rel": "<",
        "rhs": { "value": 3 }, "reference": "ours" });
    let out = editor::evaluate_claim(&l, 1, &bad.to_string());
    let e = out["error"].as_str().unwrap();
    assert!(
        e.contains("steps[1].claims[0].lhs.run") && e.contains("did you mean \"iterations\""),
        "{e}"
    );
    let later = json!({ "id": "x", "says": "s", "lhs": { "run": "iterations" }, "rel": "<",
        "rhs": { "step": [2, "iterations"] }, "reference": "ours" });
    let e =
        editor::evaluate_claim(&l, 1, &later.to_string())["error"].as_str().unwrap().to_string();
    assert!(e.contains("is not an earlier step"), "{e}");
    let e =
        editor::evaluate_claim(&l, 5, &later.to_string())["error"].as_str().unwrap().to_string();
    assert!(e.contains("step 6: the lesson has 2 steps"), "{e}");
    let e = editor::evaluate_claim(&l, 0, "{")["error"].as_str().unwrap().to_string();
    assert!(e.starts_with("claim:"), "{e}");
    let within = json!({ "id": "x", "says": "s", "lhs": { "run": "gap" }, "rel": "within",
        "rhs": { "value": 1 }, "tol": 2, "reference": "ours" });
    let e =
        editor::evaluate_claim(&l, 0, &within.to_string())["error"].as_str().unwrap().to_string();
    assert!(e.contains("steps[0].claims[0].tol"), "{e}");
}
