//! Every plot, written against plotters' `DrawingBackend` so the same code draws into the pages'
//! canvases (plotters-canvas) and into native SVG files (`kplay plot`, [`svg`]): one file per paper
//! ([`lp`] A, [`mrlsr`] and [`nscan`] B, [`dinuzzo`] C, [`perceptron`] D), their shared look
//! ([`style`], with the text and number format of [`text`]), and, in tests, a recording
//! backend that checks every plot's labels and legend for overlaps (`check`, `check_plots`).

#[cfg(all(test, not(target_arch = "wasm32")))]
mod check;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod check_plots;
pub mod dinuzzo;
pub mod lp;
pub mod mrlsr;
pub mod nscan;
pub mod perceptron;
pub mod style;
pub mod svg;
pub mod text;
