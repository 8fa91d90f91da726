//! Paper C (Dinuzzo), `kplay run` and `kplay race`: the spec, data and problem are
//! [`crate::papers::dinuzzo`]; here the fixed point (eq. 10) and coordinate descent
//! (Algorithms 1–2) run as [`Stepper`]s, and `race` runs the fixed point, the three coordinate
//! rules and, beyond the paper, greedy pair coordinate descent with shrinking side by side.

use crate::error::Result;
use crate::exec::Race;
use crate::exec::Record;
use crate::losses::Loss;
use crate::papers::dinuzzo::{
    bad, build, digest_of, race_on_rows, uses_kernel_rows, CoordinateSpec, DinuzzoChecked,
    DinuzzoSession, DinuzzoSpec, FixedPointSpec, MethodSpec, MAX_RACE_N,
};
use crate::papers::report::{run_started_capped, Report};
use crate::solvers::coordinate::{greedy_sweep_work, IndexRule, PairBox, SweepSolver};
use crate::solvers::fixed_point::{RegularizationProblem, StepRule};

/// A lane of paper C's race: either solver, read between its steps.
pub type Lane = crate::exec::Lane<Box<dyn SweepSolver>>;

/// The names of the race's five methods, in [`race_methods`] order: the paper's fixed point and
/// three coordinate rules, then (beyond the paper) greedy pair coordinate descent with shrinking —
/// the fastest option — or greedy + shrinking ([`GREEDY_RACER`], see [`fifth_rule`]).
pub const RACER_NAMES: [&str; 5] = [
    "fixed point",
    "CD cyclic",
    "CD Aitken double sweep",
    "CD randomized cyclic",
    "CD greedy pairs + shrinking",
];

/// The fifth lane's name when it runs the one-coordinate greedy rule ([`fifth_rule`]).
pub const GREEDY_RACER: &str = "CD greedy + shrinking";

/// The rule of the race's fifth lane (with shrinking): greedy pairs, unless the spec selects the
/// one-coordinate greedy rule or the loss has no box-quadratic dual (logistic, ε-insensitive with
/// ε > 0: [`PairBox::of`]), where it is greedy.
pub fn fifth_rule(m: &MethodSpec, loss: Loss) -> IndexRule {
    match m {
        MethodSpec::Coordinate(c) if c.rule == IndexRule::Greedy => IndexRule::Greedy,
        _ if PairBox::of(loss, 1.0).is_some() => IndexRule::GreedyPairs,
        _ => IndexRule::Greedy,
    }
}

/// A lane's name given the rule its fifth lane runs ([`fifth_rule`]).
pub fn racer_name(k: usize, fifth: IndexRule) -> &'static str {
    if k == GREEDY_LANE && fifth == IndexRule::Greedy {
        GREEDY_RACER
    } else {
        RACER_NAMES[k]
    }
}

/// A method's name as the page shows it (the racer's name, with the options it adds).
pub fn method_name(m: &MethodSpec) -> String {
    match m {
        MethodSpec::FixedPoint(_) => RACER_NAMES[0].to_string(),
        MethodSpec::Coordinate(c) => {
            let rule = match c.rule {
                IndexRule::Cyclic => RACER_NAMES[1],
                IndexRule::AitkenDoubleSweep => RACER_NAMES[2],
                IndexRule::RandomizedCyclic => RACER_NAMES[3],
                IndexRule::Greedy => "CD greedy",
                IndexRule::GreedyPairs => "CD greedy pairs",
            };
            let mut name = rule.to_string();
            if c.shrinking {
                name.push_str(" + shrinking");
            }
            if let Some(mib) = c.cache_mib {
                name.push_str(&format!(" (kernel rows, cache {} MiB)", crate::budget::num(mib)));
            }
            name
        }
    }
}

/// The five methods of the race with the spec's δ, cap and step rule; and which of them the
/// spec selects.
pub fn race_methods(m: &MethodSpec) -> ([MethodSpec; 5], usize) {
    race_methods_for(m, Loss::Hinge)
}

/// [`race_methods`] for a loss: the fifth lane runs [`fifth_rule`].
pub fn race_methods_for(m: &MethodSpec, loss: Loss) -> ([MethodSpec; 5], usize) {
    let (tol, max_sweeps, step, seed, sel, gap_tol) = match m {
        MethodSpec::FixedPoint(f) => (f.tol, f.max_sweeps, f.step, 1, 0, f.gap_tol),
        MethodSpec::Coordinate(c) => {
            let sel = match c.rule {
                IndexRule::Cyclic => 1,
                IndexRule::AitkenDoubleSweep => 2,
                IndexRule::RandomizedCyclic => 3,
                IndexRule::Greedy | IndexRule::GreedyPairs => 4,
            };
            (c.tol, c.max_sweeps, StepRule::InverseNorm, c.seed, sel, c.gap_tol)
        }
    };
    let cd = |rule, shrinking| {
        MethodSpec::Coordinate(CoordinateSpec {
            rule,
            seed,
            tol,
            max_sweeps,
            gap_tol,
            shrinking,
            cache_mib: None,
        })
    };
    (
        [
            MethodSpec::FixedPoint(FixedPointSpec { step, tol, max_sweeps, gap_tol }),
            cd(IndexRule::Cyclic, false),
            cd(IndexRule::AitkenDoubleSweep, false),
            cd(IndexRule::RandomizedCyclic, false),
            cd(fifth_rule(m, loss), true),
        ],
        sel,
    )
}

/// Which of the race's methods a spec's method is.
pub fn method_index(m: &MethodSpec) -> usize {
    race_methods(m).1
}

/// The solver(s) of a spec on built data as a [`Race`]: one lane (the spec's method, keyed by
/// its [`method_index`]), or the race's five (keyed by their place in [`race_methods`]; the
/// greedy lane left out when its sweep would not fit the budget, see [`race_note`]). One sweep
/// per lane per round, each lane to its own stopping test or the spec's sweep cap.
pub fn start(built: &DinuzzoSession, spec: &DinuzzoChecked) -> Result<Race<Box<dyn SweepSolver>>> {
    if spec.race {
        if uses_kernel_rows(&spec.method) {
            return Err(race_on_rows());
        }
        if built.problem.n() > MAX_RACE_N {
            return Err(bad("race", format!("the race runs five solvers on one n × n kernel matrix, so it is limited to n ≤ {MAX_RACE_N} (got {})", built.problem.n())));
        }
        racers(built, &spec.method)
    } else {
        check_greedy(&built.problem, &spec.method)?;
        let solver = crate::solvers::coordinate::start(built.problem.clone(), spec.method())?;
        Ok(Race::new([(method_index(&spec.method), method_name(&spec.method), solver)])
            .capped(spec.max_sweeps()))
    }
}

/// A race method's solver on built data, at c = 0 (the race's methods are the checked spec's
/// with another rule: [`race_methods_for`]).
fn solver_of(built: &DinuzzoSession, m: &MethodSpec) -> Result<Box<dyn SweepSolver>> {
    crate::solvers::coordinate::start(built.problem.clone(), m.solver())
}

/// The race's five methods ([`race_methods`]) on built data, keyed by their place there; the
/// greedy lane is left out when its sweep would not fit the budget ([`race_note`]).
fn racers(built: &DinuzzoSession, method: &MethodSpec) -> Result<Race<Box<dyn SweepSolver>>> {
    let loss = built.problem.loss();
    let (ms, _) = race_methods_for(method, loss);
    let fifth = fifth_rule(method, loss);
    let skip = greedy_over_budget(&built.problem).is_some();
    let lanes = ms
        .iter()
        .enumerate()
        .filter(|(k, _)| !(skip && *k == GREEDY_LANE))
        .map(|(k, m)| Ok((k, racer_name(k, fifth).to_string(), solver_of(built, m)?)))
        .collect::<Result<Vec<_>>>()?;
    Ok(Race::new(lanes).capped(method.max_sweeps()))
}

/// The race's lane of greedy coordinate descent with shrinking.
pub const GREEDY_LANE: usize = 4;

/// Why one greedy sweep on this problem does not fit the active budget's work per step (on the
/// page: one animation frame), or `None` when it does ([`greedy_sweep_work`]).
pub fn greedy_over_budget(problem: &RegularizationProblem) -> Option<String> {
    greedy_over(problem, &crate::budget::active())
}

/// [`greedy_over_budget`] for a given budget.
pub fn greedy_over(problem: &RegularizationProblem, b: &crate::budget::Budget) -> Option<String> {
    let n = problem.n();
    let work = greedy_sweep_work(problem.loss(), n);
    (work > b.step_flops).then(|| {
        format!(
            "greedy coordinate descent scans every coordinate after each update: n = {} on the {} loss → about {work:.1e} operations per sweep; the limit {} is {:.1e} (the paper's rules are not limited: randomized cyclic is the fast one on smooth losses)",
            crate::budget::group(n as f64),
            problem.loss().name(),
            b.scope,
            b.step_flops
        )
    })
}

fn check_greedy(problem: &RegularizationProblem, m: &MethodSpec) -> Result<()> {
    match m {
        MethodSpec::Coordinate(c) if c.rule.is_greedy() => match greedy_over_budget(problem) {
            Some(why) => Err(bad("method.rule", why)),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// In a race, the notice that the greedy lane was left out (its sweep would not fit the budget).
pub fn race_note(built: &DinuzzoSession, spec: &DinuzzoSpec) -> Option<String> {
    if !spec.race {
        return None;
    }
    let fifth = fifth_rule(&spec.method, built.problem.loss());
    greedy_over_budget(&built.problem)
        .map(|why| format!("the race leaves out {}: {why}", racer_name(GREEDY_LANE, fifth)))
}

/// Run the spec's selected method to the end (a race spec runs its selected method) and report
/// `c` (the coefficients of `f = Σ c_i k(x_i, ·)`) and the support size.
pub fn run(spec: &DinuzzoSpec) -> Result<Report> {
    let spec = spec.check()?;
    run_started_capped(crate::spec_json::Paper::Dinuzzo, Some(spec.max_sweeps()), || {
        let built = build(&spec)?.ok_or_else(|| bad("points", "no points: add at least one"))?;
        check_greedy(&built.problem, &spec.method)?;
        let solver = crate::solvers::coordinate::start(built.problem.clone(), spec.method())?;
        Ok((Box::new(solver), digest_of(&built)))
    })
}

/// The fixed point, the three coordinate rules and greedy coordinate descent with shrinking on
/// the spec's problem, each run to its end (see [`crate::exec::race`]).
pub fn race(spec: &DinuzzoSpec) -> Result<serde_json::Value> {
    if uses_kernel_rows(&spec.method) {
        return Err(race_on_rows());
    }
    let racing = DinuzzoSpec { race: true, ..spec.clone() }.check()?;
    let built = build(&racing)?.ok_or_else(|| bad("points", "no points: add at least one"))?;
    // The CLI races any n its budget allows (the page's n ≤ MAX_RACE_N is a frame-time limit).
    let mut race = racers(&built, &spec.method)?;
    race.run_parallel();
    let selected = method_index(&spec.method);
    let lanes: Vec<serde_json::Value> = race
        .standings()
        .iter()
        .map(|st| {
            let mut v = st.to_json();
            v["selected"] = (st.key == selected).into();
            v
        })
        .collect();
    let mut out = serde_json::json!({"paper": "dinuzzo", "lanes": lanes});
    if let Some(n) = race_note(&built, &racing) {
        out["note"] = serde_json::Value::String(n);
    }
    Ok(out)
}

/// The convergence picture's curves, as the page draws them: in a race each lane's duality
/// gap; otherwise the selected lane's gap, natural residual, `max|h|` and objective, against
/// the sweep (log scale), read from the lanes' traces (the executor's).
pub fn convergence_series<'a>(
    lanes: &[&'a Lane],
    race: bool,
) -> Vec<crate::plots::dinuzzo::Series<'a>> {
    use crate::plots::dinuzzo::{Series, RACE_COLORS};
    use plotters::style::RGBColor;
    let pts = |l: &Lane, f: fn(&Record) -> Option<f64>| -> Vec<(f64, f64)> {
        l.trace().iter().map(|r| (r.iter as f64, f(r).unwrap_or(f64::NAN))).collect()
    };
    if race {
        return lanes
            .iter()
            .map(|l| Series {
                name: l.name.as_str(),
                color: RACE_COLORS[l.key],
                points: pts(l, |r| r.gap),
                dashed: false,
            })
            .collect();
    }
    let Some(l) = lanes.first() else { return Vec::new() };
    vec![
        Series {
            name: "duality gap F − D",
            color: RGBColor(214, 39, 40),
            points: pts(l, |r| r.gap),
            dashed: false,
        },
        Series {
            name: "residual",
            color: RGBColor(255, 127, 14),
            points: pts(l, |r| r.residual),
            dashed: true,
        },
        Series {
            name: "max |h|",
            color: RGBColor(44, 160, 44),
            points: pts(l, |r| r.max_h),
            dashed: true,
        },
        Series {
            name: "objective F(c)",
            color: RGBColor(31, 119, 180),
            points: pts(l, |r| r.primal),
            dashed: false,
        },
    ]
}

/// The primal F(c) and the Fenchel dual D(c) of one run against the sweep (paper C: coordinate
/// descent is exact ascent on D, so D never falls while F may rise; Theorem 4's erratum).
pub fn primal_dual_series(lane: &Lane) -> Vec<crate::plots::dinuzzo::Series<'static>> {
    use crate::plots::dinuzzo::Series;
    use plotters::style::RGBColor;
    let pts = |f: fn(&Record) -> Option<f64>| -> Vec<(f64, f64)> {
        lane.trace().iter().map(|r| (r.iter as f64, f(r).unwrap_or(f64::NAN))).collect()
    };
    vec![
        Series {
            name: "primal F(c)",
            color: RGBColor(31, 119, 180),
            points: pts(|r| r.primal),
            dashed: false,
        },
        Series {
            name: "dual D(c)",
            color: RGBColor(214, 39, 40),
            points: pts(|r| r.dual),
            dashed: false,
        },
    ]
}

/// The tolerance δ of a method.
pub fn tolerance(m: &MethodSpec) -> f64 {
    m.tol()
}
