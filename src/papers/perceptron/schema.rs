//! Paper D's page fields, declared once ([`crate::schema`]): the generated set (shape, margin,
//! noise, n, seed), the kernel's parameters (from the catalogue), the algorithm's ε, δ, γ, the
//! iteration cap and the race's ε, δ, γ. The session's preparation reads the same table.
//! Fields without a control are those page D shows through a control that is not one field
//! (www/perceptron.js: the data select and its margin sliders, the race's ε, δ, γ).

use crate::datasets::plane::{self, ShapeForm};
use crate::schema::{Field, Schema};

const GENERATED: &[&str] = &["generated"];
const NVN: &[&str] = &["nvn", "isnkpvn"];

/// Paper D's defaults, steps and controls of the 2-D shape knobs ([`plane::shape_fields`]).
const SHAPE: ShapeForm = ShapeForm {
    margin: 0.3,
    margin_step: 0.05,
    margin_control: None,
    spread: 0.5,
    noise: 0.05,
    noise_step: 0.01,
    noise_control: Some("noise"),
    factor: 0.45,
};

/// The iteration cap, ≥ 1: a safety net, never a reason to refuse a spec (tests/limits.rs).
pub fn max_iter() -> Field {
    Field::integer("max_iter", "iteration cap", 100_000.0).min(1.0).control("maxiter")
}

/// Paper D's fields, a choice before the fields that depend on it.
pub fn schema() -> Schema {
    let mut fields = vec![
        Field::choice(
            "data.kind",
            "set",
            "generated",
            &[
                ("generated", "a generated set"),
                ("points", "hand-made (clicked)"),
                ("csv", "CSV file"),
            ],
        ),
        Field::choice(
            "data.set.shape.kind",
            "shape",
            "blobs",
            &[
                ("blobs", "two blobs"),
                ("circles", "concentric circles"),
                ("xor", "XOR"),
                ("moons", "moons"),
            ],
        )
        .when("data.kind", GENERATED),
    ];
    fields.extend(plane::shape_fields("data.set.shape", ("data.kind", GENERATED), &SHAPE));
    fields.extend([
        plane::n_field("data.set.n", 60.0).control("n").when("data.kind", GENERATED),
        plane::label_noise_field("data.set.label_noise", 0.0).when("data.kind", GENERATED),
        Field::integer("data.set.seed", "seed", 1.0)
            .min(0.0)
            .control("seed")
            .when("data.kind", GENERATED),
    ]);
    fields.extend(crate::kernels::schema::fields("K", "linear", ("width", 0.5)));
    fields.extend([
        Field::choice(
            "algorithm.kind",
            "algorithm",
            "perceptron",
            &[
                ("perceptron", "Perceptron (Alg. 1)"),
                ("nkp", "NKP (Alg. 3)"),
                ("snkp", "SNKP (Alg. 4)"),
                ("nvn", "NVN(ε) (Alg. 5)"),
                ("snkpvn", "SNKPVN(δ) (Alg. 6)"),
                ("isnkpvn", "ISNKPVN(γ, ε) (Alg. 7)"),
            ],
        )
        .control("algo"),
        Field::number("algorithm.epsilon", "ε", 0.01)
            .above(0.0)
            .control("epsilon")
            .when("algorithm.kind", NVN),
        Field::number("algorithm.delta", "δ", 0.01)
            .above(0.0)
            .control("delta")
            .when("algorithm.kind", &["snkpvn"]),
        Field::number("algorithm.gamma", "γ", 2.0)
            .above(1.0)
            .control("gamma")
            .when("algorithm.kind", &["isnkpvn"]),
        max_iter(),
        Field::number("race.epsilon", "the race's ε", 0.01).above(0.0),
        Field::number("race.delta", "the race's δ", 0.01).above(0.0),
        Field::number("race.gamma", "the race's γ", 2.0).above(1.0),
    ]);
    Schema { paper: "perceptron", fields }
}
