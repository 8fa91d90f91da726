//! Paper B's page fields, declared once ([`crate::schema`]): the generated data (n, σ, seed),
//! the kernel (μ and the catalogue's parameters), m, λ and the model-selection form's n and
//! folds. [`super::sections::MrlsrChecked::check`] reads the same table.

use crate::data::sigma_field;
use crate::datasets::regression;
use crate::schema::{Field, Schema};

/// Largest n the page builds an eigendecomposition for (the core's own budget is
/// [`crate::solvers::mrlsr::MAX_EIGEN_N`]).
pub const PAGE_MAX_N: usize = 2000;

const GENERATED: &[&str] = &["sine", "friedman"];

/// Paper B's fields, a choice before the fields that depend on it.
pub fn schema() -> Schema {
    let mut fields = vec![
        Field::choice(
            "data.kind",
            "set",
            "sine",
            &[("sine", "sine (1-D)"), ("friedman", "Friedman #1 (10-D)"), ("csv", "CSV file")],
        )
        .control("data-kind"),
        regression::n_field("data.n", 100.0).control("n").when("data.kind", GENERATED),
        sigma_field("data.sigma", 0.2).step(0.05).control("sigma").when("data.kind", GENERATED),
        Field::integer("data.seed", "seed", 1.0)
            .min(0.0)
            .control("seed")
            .when("data.kind", GENERATED),
    ];
    fields.extend(crate::kernels::schema::fields("kernel", "gaussian", ("μ", 0.1)));
    let page_max = PAGE_MAX_N as f64;
    fields.extend([
        Field::number("m", "m", 1.5).above(0.0).max(100.0).step(0.01).control("m"),
        Field::number("lambda", "λ", 1e-3).above(0.0).control("lambda"),
        Field::integer("sel.n", "the model-selection n", 300.0)
            .min(20.0)
            .max(page_max)
            .control("sel-n"),
        Field::integer("sel.folds", "the model-selection folds", 5.0)
            .min(2.0)
            .max(10.0)
            .control("sel-folds"),
    ]);
    Schema { paper: "mrlsr", fields }
}
