//! One plot as SVG text for `kplay plot`: a drawing function written against plotters'
//! `DrawingBackend` (the same one that draws into a page's canvas), here on plotters' SVG backend.

use plotters::prelude::*;

use crate::error::{KpError, Result};

/// Size of each SVG, pixels.
pub const SIZE: (u32, u32) = (720, 360);

/// The SVG text that `draw` draws on a [`SIZE`] area; its error is a message naming `plot`.
pub fn svg(
    draw: impl FnOnce(
        &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    ) -> std::result::Result<(), String>,
) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        draw(&root).map_err(|e| KpError::Parameter { name: "plot", reason: e })?;
    }
    Ok(out)
}
