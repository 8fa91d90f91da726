//! docs/spec.md matches what `kplay` accepts: every fenced JSON example in it parses strictly as
//! a spec of the paper it names and builds its data (issue 20 item 7).

use kernel_playground::papers::{self, Spec};

fn examples() -> Vec<String> {
    let doc = include_str!("../docs/spec.md");
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in doc.lines() {
        match (&mut cur, line.trim_start()) {
            (None, "```json") => cur = Some(String::new()),
            (Some(block), "```") => {
                out.push(std::mem::take(block));
                cur = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    out
}

#[test]
fn every_json_example_in_the_spec_doc_parses_and_builds_its_data() {
    let ex = examples();
    assert!(ex.len() >= 5, "found {} examples", ex.len());
    for text in ex {
        let spec = Spec::from_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        papers::data(&spec).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

#[test]
fn a_bare_string_algorithm_is_refused_as_the_doc_says() {
    let bad = r#"{"paper": "perceptron", "data": {"kind": "generated", "set": {"shape": {"kind": "blobs", "margin": 0.3, "spread": 0.5}, "n": 60, "label_noise": 0, "seed": 1}}, "kernel": {"kind": "linear"}, "algorithm": "nkp"}"#;
    assert!(Spec::from_json(bad).is_err());
}

/// `kplay spec PAPER` as a process: its stdout parsed strictly as that paper's spec.
fn printed_spec(paper: &str) -> (String, Spec) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_kplay"))
        .args(["spec", paper])
        .output()
        .expect("kplay runs");
    assert!(o.status.success(), "kplay spec {paper}: {}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).expect("UTF-8");
    let spec = Spec::from_json(&text).unwrap_or_else(|e| panic!("kplay spec {paper}: {e}\n{text}"));
    assert_eq!(spec.paper().tag(), paper, "{text}");
    (text, spec)
}

/// Every paper's printed spec parses as that paper's and builds its data; every field name it
/// prints (at any depth) is named in docs/spec.md, so the doc explains what `kplay spec` shows.
#[test]
fn kplay_spec_prints_a_spec_of_each_paper_whose_fields_the_doc_names() {
    fn keys(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    out.push(k.clone());
                    keys(x, out);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }
    let doc = include_str!("../docs/spec.md");
    for paper in ["lp", "mrlsr", "dinuzzo", "perceptron"] {
        let (text, spec) = printed_spec(paper);
        papers::data(&spec).unwrap_or_else(|e| panic!("kplay spec {paper}: {e}"));
        let mut names = Vec::new();
        keys(&serde_json::from_str(&text).expect("JSON"), &mut names);
        for k in names {
            assert!(
                doc.contains(&format!("`{k}`"))
                    || doc.contains(&format!(".{k}`"))
                    || doc.contains(&format!("\"{k}\"")),
                "kplay spec {paper}: `{k}` is not in docs/spec.md"
            );
        }
    }
}

/// Paper B's printed spec shows both sections with every field (issue 34: everything the page
/// can run is in the spec), and the values written out are exactly the defaults an absent field
/// takes: its checked grids equal, bit for bit, those of the same sections with only the page's
/// own fields (data, kernel, folds; m, parts, folds, seed). It runs: the fit, the selection's
/// CV table over the paper's 29 × 7 grid, and Fig. 1 on 4 parts.
#[test]
fn kplay_spec_mrlsr_shows_the_selection_and_equivalence_sections_at_their_defaults() {
    use kernel_playground::papers::mrlsr::MrlsrChecked;
    let (text, spec) = printed_spec("mrlsr");
    let Spec::Mrlsr(b) = &spec else { panic!("paper B") };
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let sel = v["selection"].as_object().expect("a selection section");
    let eq = v["equivalence"].as_object().expect("an equivalence section");
    for f in ["data", "kernel", "folds", "ms", "lambdas", "lambda2s", "train_fraction", "seed"] {
        assert!(sel.contains_key(f), "selection.{f} not shown: {text}");
    }
    for f in ["m", "parts", "folds", "seed", "lambdas"] {
        assert!(eq.contains_key(f), "equivalence.{f} not shown: {text}");
    }
    // The same sections with the grids, split and seeds left to their defaults.
    let mut bare = v.clone();
    for f in ["ms", "lambdas", "lambda2s", "train_fraction", "seed"] {
        bare["selection"].as_object_mut().expect("object").remove(f);
    }
    bare["equivalence"].as_object_mut().expect("object").remove("lambdas");
    let Spec::Mrlsr(bare) = Spec::from_json(&bare.to_string()).expect("parses") else {
        panic!("paper B")
    };
    let (a, z) = (
        MrlsrChecked::check(b, 3000).expect("checked"),
        MrlsrChecked::check(&bare, 3000).expect("checked"),
    );
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let (sa, sz) =
        (a.selection().expect("selection").config(), z.selection().expect("selection").config());
    assert_eq!(bits(&sa.ms), bits(&sz.ms));
    assert_eq!((sa.ms.len(), sa.lambdas.len(), sa.lambda2s.len()), (29, 7, 25));
    assert_eq!(bits(&sa.lambdas), bits(&sz.lambdas));
    assert_eq!(bits(&sa.lambda2s), bits(&sz.lambda2s));
    assert_eq!(
        (sa.folds, sa.train_fraction.to_bits(), sa.seed),
        (sz.folds, sz.train_fraction.to_bits(), sz.seed)
    );
    let (ea, ez) = (
        a.equivalence().expect("equivalence").config(),
        z.equivalence().expect("equivalence").config(),
    );
    assert_eq!(bits(&ea.lambdas), bits(&ez.lambdas));
    assert_eq!(
        (ea.m.to_bits(), ea.parts, ea.folds, ea.seed),
        (ez.m.to_bits(), ez.parts, ez.folds, ez.seed)
    );
    let report = papers::run(&spec).expect("runs").to_json();
    assert_eq!(report["status"], "converged");
    let rmse = report["selection"]["mrlsr_cv"]["rmse"].as_array().expect("the CV table");
    assert_eq!(rmse.len(), 29);
    assert_eq!(report["equivalence"]["parts"].as_array().map(Vec::len), Some(4));
}
