//! Paper D's plot for `kplay plot`: the run's min(Gα) and ‖p‖_G with the paper's iteration
//! bounds, drawn by [`crate::plots::perceptron`].

use crate::error::Result;
use crate::papers::perceptron::{PerceptronChecked, PerceptronSession, PerceptronSpec};
use crate::plots::svg::svg;

/// `trace`, as SVG text.
pub fn svg_plots(s: &PerceptronSpec) -> Result<Vec<(&'static str, String)>> {
    let mut session = PerceptronSession::new(PerceptronChecked::check(s.clone())?)?;
    session.run_to_end();
    let trace = crate::plots::perceptron::trace_points(&session.trace());
    let bounds: Vec<(String, f64, bool)> =
        session.bounds().into_iter().map(|b| (b.label, b.iterations, b.current)).collect();
    let t = svg(|root| {
        crate::plots::perceptron::draw_trace(root, &trace, &bounds, 1.0).map_err(|e| e.to_string())
    })?;
    Ok(vec![("trace", t)])
}
