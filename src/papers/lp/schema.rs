//! Paper A's page fields, declared once ([`crate::schema`]): the data generators' sizes and
//! knobs, p, γ, the loss and tensor kernel (their parameters from the catalogues), the path,
//! the algorithm and its tolerance. [`super::LpSpec::check`] reads the same table.

use crate::data;
use crate::datasets::blobs;
use crate::losses::Loss;
use crate::schema::{Field, Schema};
use crate::tensor::TensorKernel;

/// The algorithms a spec may name (paper A: Algorithms 2.1 and 3.3, the primal baselines of
/// Section 4, and a dual Newton method).
pub const ALGORITHMS: [&str; 5] =
    ["dual_gradient", "prox_dual", "dual_newton", "primal_gd", "fista"];

const GENERATED: &[&str] = &["sparse_regression", "two_blobs"];
const SPARSE: &[&str] = &["sparse_regression"];
const BLOBS: &[&str] = &["two_blobs"];

/// p ∈ (1, 2) (paper A: 1 < p < 2, so q = p/(p − 1) > 2).
pub fn p() -> Field {
    Field::number("model.p", "p", 4.0 / 3.0).above(1.0).below(2.0).step(1e-4).control("p")
}

/// γ > 0, the weight of the data term.
pub fn gamma() -> Field {
    Field::number("model.gamma", "γ (gamma)", 10.0).above(0.0).control("gamma")
}

/// The tolerance on the relative duality gap, > 0.
pub fn tol() -> Field {
    Field::number("solver.tol", "tolerance", 1e-10).above(0.0).control("tol")
}

/// Paper A's fields, a choice before the fields that depend on it.
pub fn schema() -> Schema {
    let mut fields = vec![
        Field::choice(
            "data.kind",
            "data",
            "sparse_regression",
            &[
                ("sparse_regression", "sparse regression"),
                ("two_blobs", "two blobs (±1 labels, 2-D)"),
                ("csv", "CSV file (column y)"),
            ],
        )
        .control("data-kind"),
        data::n_field("data.n", 100.0).control("n").when("data.kind", GENERATED),
        data::d_field("data.d", 1000.0).control("d").when("data.kind", SPARSE),
        Field::integer("data.k", "k (number of non-zero spikes)", 10.0)
            .min(0.0)
            .control("k")
            .when("data.kind", SPARSE),
        data::sigma_field("data.sigma", 0.05).step(0.01).control("sigma").when("data.kind", SPARSE),
        blobs::separation_field("data.separation", 3.0)
            .control("separation")
            .when("data.kind", BLOBS),
        blobs::spread_field("data.spread", 1.0).control("spread").when("data.kind", BLOBS),
        blobs::flip_field("data.flip", 0.05).control("flip").when("data.kind", BLOBS),
        Field::integer("data.seed", "seed", 1.0)
            .min(0.0)
            .control("seed")
            .when("data.kind", GENERATED),
        p(),
        gamma(),
    ];
    let losses: Vec<_> = Loss::ALL.iter().map(|l| l.capabilities()).collect();
    let options: Vec<(&str, &str)> = losses.iter().map(|c| (c.kind, c.label)).collect();
    fields.push(Field::choice("model.loss.kind", "loss", "square", &options).control("loss"));
    for c in &losses {
        for p in c.parameters {
            fields.push(Field::param("model.loss", p).when("model.loss.kind", &[c.kind]));
        }
    }
    fields.push(
        Field::choice(
            "model.path",
            "path",
            "features",
            &[("features", "features"), ("tensor", "Gram tensor")],
        )
        .control("path"),
    );
    let kernels: Vec<_> = TensorKernel::ALL.iter().map(|k| k.info()).collect();
    let options: Vec<(&str, &str)> = kernels.iter().map(|k| (k.kind, k.label)).collect();
    fields.push(Field::choice("model.kernel.kind", "kernel", "linear", &options).control("kernel"));
    for k in &kernels {
        for p in k.parameters {
            fields.push(Field::param("model.kernel", p).when("model.kernel.kind", &[k.kind]));
        }
    }
    let algorithms: Vec<(&str, &str)> = ALGORITHMS.iter().map(|a| (*a, *a)).collect();
    fields.push(
        Field::choice("solver.algorithm", "algorithm", "dual_gradient", &algorithms)
            .control("algorithm"),
    );
    fields.push(tol());
    fields.push(Field::integer("solver.max_iter", "the iteration cap", 1000.0).min(1.0));
    fields.push(
        Field::number("solver.delta", "linesearch parameter delta", 0.5).above(0.0).below(1.0),
    );
    fields.push(
        Field::number("solver.theta", "linesearch parameter theta", 0.5).above(0.0).below(1.0),
    );
    Schema { paper: "lp", fields }
}
