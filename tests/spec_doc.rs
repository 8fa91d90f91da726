//! docs/spec.md matches what `kplay` accepts: every fenced JSON example in it parses strictly as
//! a spec of the paper it names and builds its data (issue 20 item 7).

use kernel_playground::engine::{self, Spec};

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
        engine::data(&spec).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

#[test]
fn a_bare_string_algorithm_is_refused_as_the_doc_says() {
    let bad = r#"{"paper": "perceptron", "data": {"kind": "generated", "set": {"shape": {"kind": "blobs", "margin": 0.3, "spread": 0.5}, "n": 60, "label_noise": 0, "seed": 1}}, "kernel": {"kind": "linear"}, "algorithm": "nkp"}"#;
    assert!(Spec::from_json(bad).is_err());
}
