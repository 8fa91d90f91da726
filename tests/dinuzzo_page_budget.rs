//! Paper C's greedy rule under the page's budget (its own test binary: the budget in force is
//! process-wide). A greedy sweep scans every coordinate after each update; with the logistic
//! loss every scan element is a Newton solve, so on the page (one sweep per animation frame)
//! greedy is refused past a few hundred points, and the race leaves its greedy lane out with a
//! notice, while the CLI runs both.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::budget::{self, Budget};
use kernel_playground::losses::Loss;
use kernel_playground::papers::dinuzzo::run::{self as dinuzzo, GREEDY_LANE, RACER_NAMES};
use kernel_playground::papers::dinuzzo::{DataSpec, DinuzzoChecked, DinuzzoSpec, MethodSpec};
use kernel_playground::solvers::coordinate::IndexRule;

fn spec(loss: Loss, n: usize, race: bool) -> DinuzzoChecked {
    let mut s = DinuzzoSpec { loss, race, ..DinuzzoSpec::default() };
    if let DataSpec::Classification { n: m, .. } = &mut s.data {
        *m = n;
    }
    if let MethodSpec::Coordinate(c) = &mut s.method {
        c.rule = IndexRule::Greedy;
        c.shrinking = true;
        c.max_sweeps = 3;
    }
    s.check().expect("a valid spec")
}

#[test]
fn the_page_keeps_greedy_sweeps_within_a_frame() {
    let logistic = kernel_playground::papers::dinuzzo::build(&spec(Loss::Logistic, 400, false))
        .unwrap()
        .unwrap();
    let hinge = kernel_playground::papers::dinuzzo::build(&spec(Loss::Hinge, 2500, false))
        .unwrap()
        .unwrap();
    // The CLI accepts both; the page the hinge loss at its largest n, not logistic at n = 400.
    assert!(dinuzzo::greedy_over(&logistic.problem, &Budget::CLI).is_none());
    assert!(dinuzzo::greedy_over(&hinge.problem, &Budget::PAGE).is_none());
    let why =
        dinuzzo::greedy_over(&logistic.problem, &Budget::PAGE).expect("over the page's budget");
    assert!(why.contains("logistic") && why.contains("in the page"), "{why}");

    budget::set_active(Budget::PAGE);
    let e = dinuzzo::start(&logistic, &spec(Loss::Logistic, 400, false))
        .err()
        .expect("refused on the page")
        .to_string();
    assert!(e.contains("method.rule"), "{e}");
    // The race runs the paper's four and says why the fifth is missing.
    let race = spec(Loss::Logistic, 400, true);
    let lanes: Vec<usize> = dinuzzo::start(&logistic, &race)
        .expect("race starts")
        .lanes()
        .iter()
        .map(|l| l.key)
        .collect();
    assert_eq!(lanes, vec![0, 1, 2, 3]);
    let note = dinuzzo::race_note(&logistic, &race).expect("a notice");
    // The logistic loss has no box-quadratic dual: the fifth lane is greedy + shrinking, not pairs.
    assert!(
        note.contains(dinuzzo::GREEDY_RACER) && RACER_NAMES[GREEDY_LANE] != dinuzzo::GREEDY_RACER,
        "{note}"
    );
    // A small logistic problem keeps all five.
    let small = kernel_playground::papers::dinuzzo::build(&spec(Loss::Logistic, 200, true))
        .unwrap()
        .unwrap();
    assert_eq!(dinuzzo::start(&small, &spec(Loss::Logistic, 200, true)).unwrap().lanes().len(), 5);
    assert!(dinuzzo::race_note(&small, &spec(Loss::Logistic, 200, true)).is_none());
}
