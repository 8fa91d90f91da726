//! The kernel fields of the pages' schemas (pages B, C and D), declared once from the catalogue.
//! Imports its parent (the generated [`Kernel`]) without being used by it, as `kernels::expr`.

use super::Kernel;
use crate::schema::Field;

/// A page's kernel fields for its schema, declared once from the catalogue for pages B, C and D:
/// `kernel.kind` (every kernel; `kind_label`, `default_kind`), the Gaussian's fixed width
/// `kernel.bandwidth.fixed` (> 0, control `mu`; `width` = its label and default) and each
/// kernel's parameters with their ranges, each applying when its kernel is chosen.
pub fn fields(kind_label: &str, default_kind: &str, width: (&str, f64)) -> Vec<Field> {
    let kernels: Vec<_> = Kernel::ALL.iter().map(|k| k.info()).collect();
    let options: Vec<(&str, &str)> = kernels.iter().map(|k| (k.kind, k.label)).collect();
    let mut fields = vec![
        Field::choice("kernel.kind", kind_label, default_kind, &options).control("kernel"),
        Field::number("kernel.bandwidth.fixed", width.0, width.1)
            .above(0.0)
            .control("mu")
            .when("kernel.kind", &["gaussian"]),
    ];
    for k in &kernels {
        for p in k.parameters {
            fields.push(Field::param("kernel", p).when("kernel.kind", &[k.kind]));
        }
    }
    fields
}
