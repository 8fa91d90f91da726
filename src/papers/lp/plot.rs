//! Paper A's plots for `kplay plot`: the spec run to its end, its convergence (gap and
//! objectives) and its spikes (w against w*), drawn by [`crate::plots::lp`].

use crate::error::{KpError, Result};
use crate::papers::lp::{LpSession, LpSpec};

/// `convergence` and `spikes`, as SVG text.
pub fn svg_plots(e: &LpSpec) -> Result<Vec<(&'static str, String)>> {
    let mut lp = LpSession::start(e)?;
    lp.run.run();
    let w_true = lp.valid.data.w_true.as_ref().map(|v| v.as_slice());
    let w = lp.valid.weights(&lp.run).map(|w| w.as_slice().to_vec()).unwrap_or_default();
    let (conv, spikes) = crate::plots::lp::svg_pair(lp.run.kept(), &w, w_true)
        .map_err(|e| KpError::Parameter { name: "plot", reason: e })?;
    Ok(vec![("convergence", conv), ("spikes", spikes)])
}
