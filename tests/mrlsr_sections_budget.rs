//! Paper B's spec sections under a small memory budget (its own test binary: the budget is
//! process-wide): the CV table of a `selection` and the parts' eigendecompositions of an
//! `equivalence` are checked against the budget before anything is allocated, the message naming
//! the field and what it needs.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::budget::{self, Budget};
use kernel_playground::papers::{self, Spec};
use serde_json::json;

#[test]
fn sections_beyond_the_memory_budget_are_refused_before_allocating() {
    budget::set_active(Budget::cli_with_gib(0.05).expect("budget"));
    let base = |sections: serde_json::Value| {
        let mut v = json!({
            "paper": "mrlsr", "data": {"kind": "sine", "n": 2000, "sigma": 0.2, "seed": 1},
            "kernel": {"kind": "gaussian", "bandwidth": "heuristic"}, "m": 1.5, "lambda": 1e-3,
        });
        if let (Some(o), Some(s)) = (v.as_object_mut(), sections.as_object()) {
            o.extend(s.clone());
        }
        let spec = Spec::from_json(&v.to_string()).expect("parses");
        papers::run(&spec).err().map(|e| e.to_string()).unwrap_or_default()
    };
    // 991 m × 10 000 λ cells: 79 MB of sums, above 50 MiB.
    let msg = base(json!({"selection": {"ms": {"from": 1, "to": 100, "step": 0.1},
        "lambdas": {"from": 1e-6, "to": 1, "count": 10000}}}));
    assert!(msg.contains("selection.ms") && msg.contains("cross-validation table"), "{msg}");
    // One part of 2 000 samples: K and its eigenvectors, 64 MB.
    let msg = base(json!({"equivalence": {"parts": 1, "folds": 2}}));
    assert!(msg.contains("equivalence.parts") && msg.contains("MiB"), "{msg}");
}
