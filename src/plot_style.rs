//! The look every plot shares (margins, fonts, grid, legend box), in one place so the four
//! papers' plots agree. Sizes are given in CSS pixels and multiplied by the device-pixel ratio
//! `s`, so a high-DPI canvas (backing store = CSS size × devicePixelRatio) stays sharp.

use std::ops::Range;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;

/// Light grid lines.
pub const GRID_COLOR: RGBColor = RGBColor(235, 235, 235);
/// Colour of class +1 and of positive decision values, on every page (C and D alike).
pub const CLASS_POS: RGBColor = RGBColor(67, 147, 195);
/// Colour of class −1 and of negative decision values, on every page.
pub const CLASS_NEG: RGBColor = RGBColor(214, 96, 77);
/// One colour per race lane, in lane order, on every page (the race tables' swatches read them
/// through the wasm export `raceColors`).
pub const RACE_COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
];

/// The colour of race lane `k`.
pub fn race_color(k: usize) -> RGBColor {
    RACE_COLORS[k % RACE_COLORS.len()]
}

/// The legend box's border.
pub const LEGEND_BORDER: RGBColor = RGBColor(200, 200, 200);

/// The result of a drawing call on backend `DB`.
pub type DrawResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A 2-D chart over `f64 × f64`.
pub type Chart2d<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Plot sizes at device-pixel ratio `s` (at least 0.5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    /// The device-pixel ratio.
    pub s: f64,
}

impl Look {
    /// The look at device-pixel ratio `scale` (clamped below at 0.5).
    pub fn new(scale: f64) -> Self {
        Self { s: if scale.is_finite() { scale.max(0.5) } else { 1.0 } }
    }

    /// `v` CSS pixels in backing-store pixels.
    pub fn px(&self, v: f64) -> i32 {
        (v * self.s) as i32
    }

    /// A stroke of `v` CSS pixels (at least one backing-store pixel).
    pub fn stroke(&self, v: f64) -> u32 {
        (v * self.s).round().max(1.0) as u32
    }

    /// Text at `size` CSS pixels, sans-serif.
    pub fn font_of(&self, size: f64) -> FontDesc<'static> {
        ("sans-serif", size * self.s).into_font()
    }

    /// How many tick labels, at most `max`, an axis `len` backing-store pixels long takes: about
    /// one per 50 CSS pixels of the plots' text scale, so large text (classroom mode) or a
    /// narrow plot never runs its labels into each other. At scale 1 an axis of 400 pixels or
    /// more keeps `max` up to 8 (the native SVG plots, 720 pixels wide, are unchanged).
    pub fn labels_along(&self, len: u32, max: usize) -> usize {
        ((len as f64 / (50.0 * self.s)) as usize).clamp(2, max.max(2))
    }

    /// The plots' text: 12 CSS pixels, sans-serif.
    pub fn font(&self) -> FontDesc<'static> {
        self.font_of(12.0)
    }

    /// A chart on `root` with the house margin (8 px), a left label area of 48 px and a bottom
    /// label area of `x_area` px, over `x × y`.
    pub fn chart<'a, DB: DrawingBackend>(
        &self,
        root: &'a DrawingArea<DB, Shift>,
        x_area: f64,
        x: Range<f64>,
        y: Range<f64>,
    ) -> DrawResult<Chart2d<'a, DB>, DB> {
        ChartBuilder::on(root)
            .margin(self.px(8.0))
            .x_label_area_size(self.px(x_area))
            .y_label_area_size(self.px(48.0))
            .build_cartesian_2d(x, y)
    }

    /// The mesh with the house fonts and light grid; chain the axis descriptions and `draw()`.
    pub fn mesh<'a, 'b, X, Y, XT, YT, DB>(
        &self,
        chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    ) -> MeshStyle<'a, 'b, X, Y, DB>
    where
        X: Ranged<ValueType = XT> + ValueFormatter<XT>,
        Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
        DB: DrawingBackend,
    {
        let mut mesh = chart.configure_mesh();
        mesh.label_style(self.font()).axis_desc_style(self.font()).light_line_style(GRID_COLOR);
        mesh
    }

    /// The legend of the labelled series, in a translucent white box at `position`.
    pub fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
        &self,
        chart: &mut ChartContext<'a, DB, CT>,
        position: SeriesLabelPosition,
    ) -> DrawResult<(), DB> {
        chart
            .configure_series_labels()
            .position(position)
            .background_style(WHITE.mix(0.85))
            .border_style(LEGEND_BORDER)
            .label_font(self.font())
            .draw()
    }

    /// A legend swatch: a short line of `color` from the legend anchor `(x, y)`.
    pub fn swatch(
        &self,
        color: RGBColor,
        width: u32,
    ) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
        let len = self.px(16.0);
        move |(x, y)| PathElement::new(vec![(x, y), (x + len, y)], color.stroke_width(width))
    }
}

/// `log10(v)` for positive finite `v` (points of a log axis; others are skipped).
pub fn lg(v: f64) -> Option<f64> {
    (v.is_finite() && v > 0.0).then(|| v.log10())
}

/// Tick label of an integer axis (iteration, sweep, index): the integer at an integer tick,
/// empty between, so a short or empty range (0 to 1 before the first iteration) reads "0 … 1",
/// never "0 0 0 1 1 1".
pub fn int_label(v: &f64) -> String {
    let k = v.round();
    if (v - k).abs() <= 1e-6 * k.abs().max(1.0) {
        format!("{}", k as i64)
    } else {
        String::new()
    }
}

/// Tick label of a log₁₀ axis: `1e{k}` at the integer k, empty between.
pub fn pow10_label(v: &f64) -> String {
    let e = v.round() as i32;
    if (v - e as f64).abs() < 1e-6 {
        format!("1e{e}")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_scale_with_the_device_pixel_ratio() {
        let one = Look::new(1.0);
        let two = Look::new(2.0);
        assert_eq!(two.px(8.0), 2 * one.px(8.0));
        assert_eq!(Look::new(0.1).s, 0.5);
        assert_eq!(Look::new(f64::NAN).s, 1.0);
        assert_eq!(one.stroke(0.2), 1);
        assert_eq!(two.stroke(1.5), 3);
        assert_eq!(one.labels_along(720, 8), 8);
        assert_eq!(Look::new(5.0 / 3.0).labels_along(390, 8), 4);
        assert_eq!(Look::new(5.0 / 3.0).labels_along(10, 8), 2);
    }

    #[test]
    fn integer_axis_labels_only_at_integers() {
        let ticks: Vec<String> = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0].iter().map(int_label).collect();
        assert_eq!(ticks, ["0", "", "", "", "", "1"]);
        assert_eq!(int_label(&3000.0), "3000");
        assert_eq!(int_label(&(0.1 + 0.2 + 2.7)), "3");
        assert_eq!(int_label(&-2.0), "-2");
    }

    #[test]
    fn log_axis_labels_only_at_integer_exponents() {
        assert_eq!(pow10_label(&-3.0), "1e-3");
        assert_eq!(pow10_label(&2.0), "1e2");
        assert_eq!(pow10_label(&2.5), "");
    }
}
