//! Paper C's page fields, declared once ([`crate::schema`]): the generated data (shape, n,
//! noise, seed), the loss and kernel (their parameters from the catalogues), λ, the method
//! (δ, the step rule, the index rule, the sweep cap) and the race. [`super::DinuzzoSpec::check`]
//! reads the same table.

use crate::datasets::plane::{self, ShapeForm};
use crate::losses::Loss;
use crate::schema::{Field, Schema};

const GENERATED: &[&str] = &["classification", "regression"];
const CLASSIFICATION: &[&str] = &["classification"];
const REGRESSION: &[&str] = &["regression"];
const FIXED_POINT: &[&str] = &["fixed_point"];
const COORDINATE: &[&str] = &["coordinate"];

/// Paper C's defaults, steps and controls of the 2-D shape knobs ([`plane::shape_fields`]).
const SHAPE: ShapeForm = ShapeForm {
    margin: 0.5,
    margin_step: 0.1,
    margin_control: Some("margin"),
    spread: 0.5,
    noise: 0.15,
    noise_step: 0.05,
    noise_control: Some("noise"),
    factor: 0.5,
};

/// λ > 0 (problem (2): the loss is divided by λ).
pub fn lambda() -> Field {
    Field::number("lambda", "λ", 0.1).above(0.0).control("lambda")
}

/// The tolerance δ > 0 of either method.
pub fn tol() -> Field {
    Field::number("method.tol", "δ", 1e-8).above(0.0).control("tol")
}

/// The sweep cap, ≥ 1 (the executor's).
pub fn max_sweeps() -> Field {
    Field::integer("method.max_sweeps", "the sweep cap", 20_000.0).min(1.0)
}

/// Paper C's fields, a choice before the fields that depend on it.
pub fn schema() -> Schema {
    let mut fields = vec![
        Field::choice(
            "data.kind",
            "data",
            "classification",
            &[
                ("classification", "2-D classification"),
                ("regression", "1-D regression"),
                ("points", "my points (click the map)"),
                ("csv", "CSV file"),
            ],
        )
        .control("data-kind"),
        Field::choice(
            "data.shape.kind",
            "shape",
            "moons",
            &[("blobs", "blobs"), ("moons", "moons"), ("circles", "circles"), ("xor", "XOR")],
        )
        .control("shape")
        .when("data.kind", CLASSIFICATION),
    ];
    fields.extend(plane::shape_fields("data.shape", ("data.kind", CLASSIFICATION), &SHAPE));
    fields.extend([
        plane::n_field("data.n", 200.0).control("n").when("data.kind", GENERATED),
        plane::label_noise_field("data.label_noise", 0.05)
            .step(0.01)
            .control("label-noise")
            .when("data.kind", CLASSIFICATION),
        plane::regression_noise_field("data.noise", 0.2)
            .step(0.05)
            .control("rnoise")
            .when("data.kind", REGRESSION),
        plane::outliers_field("data.outliers", 0.1)
            .step(0.05)
            .control("outliers")
            .when("data.kind", REGRESSION),
        Field::integer("data.seed", "seed", 1.0)
            .min(0.0)
            .control("seed")
            .when("data.kind", GENERATED),
    ]);
    let losses: Vec<_> = Loss::ALL.iter().map(|l| l.capabilities()).collect();
    let options: Vec<(&str, &str)> =
        losses.iter().map(|c| (c.kind, c.paper_c.unwrap_or(c.label))).collect();
    fields.push(Field::choice("loss.kind", "loss", "hinge", &options).control("loss"));
    for c in &losses {
        for p in c.parameters {
            fields.push(Field::param("loss", p).when("loss.kind", &[c.kind]));
        }
    }
    fields.push(lambda());
    fields.extend(crate::kernels::schema::fields("kernel", "gaussian", ("μ", 0.5)));
    fields.extend([
        Field::choice(
            "method.kind",
            "algorithm",
            "coordinate",
            &[("coordinate", "coordinate descent"), ("fixed_point", "fixed point")],
        )
        .control("algorithm"),
        tol(),
        max_sweeps(),
        Field::choice(
            "method.step.kind",
            "α",
            "inverse_norm",
            &[("inverse_norm", "1/‖K‖₂"), ("inverse_trace", "1/tr(K)"), ("fixed", "typed value")],
        )
        .control("alpha-rule")
        .when("method.kind", FIXED_POINT),
        Field::number("method.step.value", "α", 0.05)
            .above(0.0)
            .control("alpha")
            .when("method.kind", FIXED_POINT)
            .when("method.step.kind", &["fixed"]),
        Field::choice(
            "method.rule",
            "rule",
            "cyclic",
            &[
                ("cyclic", "cyclic"),
                ("aitken_double_sweep", "Aitken double sweep"),
                ("randomized_cyclic", "randomized cyclic"),
                ("greedy", "greedy (largest step |h|)"),
                ("greedy_pairs", "greedy pairs (two at once)"),
            ],
        )
        .control("rule")
        .when("method.kind", COORDINATE),
        Field::integer("method.seed", "the random rule's seed", 1.0)
            .min(0.0)
            .when("method.kind", COORDINATE),
        Field::boolean("method.shrinking", "shrinking", false)
            .control("shrinking")
            .when("method.kind", COORDINATE),
        Field::boolean("race", "race all five", false).control("race"),
    ]);
    Schema { paper: "dinuzzo", fields }
}
