//! The look every plot shares (margins, fonts, grid, legend box), in one place so the four
//! papers' plots agree. Sizes are given in CSS pixels and multiplied by the device-pixel ratio
//! `s`, so a high-DPI canvas (backing store = CSS size × devicePixelRatio) stays sharp.

use std::ops::Range;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub use crate::plots::text::*;

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

    /// How many tick labels, at most `max`, fit side by side on a horizontal axis `len`
    /// backing-store pixels long when the widest reads `widest` (with a 2-em gap between).
    pub fn labels_fit(&self, len: u32, max: usize, widest: &str) -> usize {
        let each = text_width(widest, 12.0 * self.s) + 24.0 * self.s;
        ((len as f64 / each) as usize).clamp(2, max.max(2))
    }

    /// How many tick labels, at most `max`, a vertical axis in a plot `len` backing-store pixels
    /// high takes: about one per 28 CSS pixels of the plots' text scale (the labels never touch).
    pub fn labels_down(&self, len: u32, max: usize) -> usize {
        ((len as f64 / (28.0 * self.s)) as usize).clamp(2, max.max(2))
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
        self.chart_in(root, x_area, Room::default(), x, y)
    }

    /// [`Look::chart`] with `room` added to the margins (a legend outside the plotting area,
    /// [`fit_legend`]). The right margin leaves room for half of the last x tick label.
    pub fn chart_in<'a, DB: DrawingBackend>(
        &self,
        root: &'a DrawingArea<DB, Shift>,
        x_area: f64,
        room: Room,
        x: Range<f64>,
        y: Range<f64>,
    ) -> DrawResult<Chart2d<'a, DB>, DB> {
        ChartBuilder::on(root)
            .margin(self.px(8.0))
            .margin_right(self.right_margin() + room.right)
            .margin_top(self.px(8.0) + room.top)
            .x_label_area_size(self.px(x_area))
            .y_label_area_size(self.px(48.0))
            .build_cartesian_2d(x, y)
    }

    /// The right margin of a chart: room for half of a 5-character tick label ("10000"), so the
    /// last x tick label is never clipped.
    pub fn right_margin(&self) -> i32 {
        (self.px(8.0)).max((text_width("00000", 12.0 * self.s) / 2.0).ceil() as i32 + self.px(2.0))
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
        mesh.label_style(self.font())
            .axis_desc_style(self.font())
            .light_line_style(GRID_COLOR)
            .bold_line_style(GRID_BOLD);
        mesh
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

/// Tick label of a log₁₀ axis: `10ᵏ` (Unicode superscript) at the integer k, empty between.
pub fn pow10_label(v: &f64) -> String {
    let e = v.round() as i32;
    if (v - e as f64).abs() < 1e-6 {
        format!("10{}", superscript(&e.to_string()).unwrap_or_default())
    } else {
        String::new()
    }
}

/// The mesh's bold grid lines (the light ones are [`GRID_COLOR`]): one colour, so tests can tell
/// the grid from the data.
pub const GRID_BOLD: RGBColor = RGBColor(215, 215, 215);

// ---------------------------------------------------------------------------------------------
// What a legend or a label must not cover, and where they go.

/// Pixel-space points and boxes (backend pixels) that a legend or a label must not cover: the
/// drawn points and curve samples of a plot, and the labels already placed.
#[derive(Debug, Clone, Default)]
pub struct Obstacles {
    points: Vec<(i32, i32)>,
    boxes: Vec<[i32; 4]>,
}

impl Obstacles {
    /// A drawn point.
    pub fn point(&mut self, p: (i32, i32)) {
        self.points.push(p);
    }

    /// A marker of radius `r` about `c`: its centre and eight points of its rim.
    pub fn disc(&mut self, c: (i32, i32), r: i32) {
        self.points.push(c);
        let d = (r as f64 * std::f64::consts::FRAC_1_SQRT_2).round() as i32;
        for (dx, dy) in [(r, 0), (-r, 0), (0, r), (0, -r), (d, d), (d, -d), (-d, d), (-d, -d)] {
            self.points.push((c.0 + dx, c.1 + dy));
        }
    }

    /// A polyline, sampled every 2 pixels along its segments (at most 4000 samples a segment).
    pub fn polyline(&mut self, pts: impl IntoIterator<Item = (i32, i32)>) {
        let mut prev: Option<(i32, i32)> = None;
        for p in pts {
            if let Some(q) = prev {
                let (dx, dy) = ((p.0 - q.0) as f64, (p.1 - q.1) as f64);
                let k = ((dx.abs().max(dy.abs()) / 2.0).ceil() as usize).clamp(1, 4000);
                for j in 1..=k {
                    let t = j as f64 / k as f64;
                    self.points.push((
                        (q.0 as f64 + t * dx).round() as i32,
                        (q.1 as f64 + t * dy).round() as i32,
                    ));
                }
            } else {
                self.points.push(p);
            }
            prev = Some(p);
        }
    }

    /// A placed label or legend: anything placed later must not overlap it.
    pub fn add_box(&mut self, b: [i32; 4]) {
        self.boxes.push(b);
    }

    /// How much a box `b` covers: the points inside it, plus 1000 for each box it overlaps.
    pub fn cost(&self, b: [i32; 4]) -> usize {
        let inside = |p: &&(i32, i32)| p.0 >= b[0] && p.0 <= b[2] && p.1 >= b[1] && p.1 <= b[3];
        let pts = self.points.iter().filter(inside).count();
        let boxes = self.boxes.iter().filter(|o| overlap(**o, b)).count();
        pts + 1000 * boxes
    }
}

/// Whether two boxes `[left, top, right, bottom]` overlap (touching is not overlapping).
pub fn overlap(a: [i32; 4], b: [i32; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// The candidate box among `boxes` that covers the least of `obs` (the first on a tie), with its
/// cost.
pub fn least_covering(boxes: &[[i32; 4]], obs: &Obstacles) -> Option<([i32; 4], usize)> {
    let mut best: Option<([i32; 4], usize)> = None;
    for &b in boxes {
        let c = obs.cost(b);
        if best.is_none_or(|(_, bc)| c < bc) {
            best = Some((b, c));
        }
    }
    best
}

/// Place a label of `size` (w, h) near an anchor: the candidate top-left corners `corners` are
/// tried in order and the least-covering box is taken (and added to `obs`).
pub fn place_label(obs: &mut Obstacles, size: (i32, i32), corners: &[(i32, i32)]) -> [i32; 4] {
    let boxes: Vec<[i32; 4]> =
        corners.iter().map(|&(x, y)| [x, y, x + size.0, y + size.1]).collect();
    let (b, _) = least_covering(&boxes, obs).unwrap_or(([0, 0, size.0, size.1], 0));
    obs.add_box(b);
    b
}

/// The pixel rectangle `[left, top, right, bottom]` (backend pixels) of a chart's plotting area.
pub fn plot_rect<DB: DrawingBackend, CT: CoordTranslate>(
    chart: &ChartContext<'_, DB, CT>,
) -> [i32; 4] {
    let (x, y) = chart.plotting_area().get_pixel_range();
    [x.start, y.start, x.end, y.end]
}

/// What a legend row shows left of its text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swatch {
    /// A line of the colour and stroke width (CSS pixels).
    Line(RGBColor, f64),
    /// A dashed line.
    Dashed(RGBColor, f64),
    /// A filled dot.
    Dot(RGBColor),
    /// A ring.
    Ring(RGBColor),
    /// A filled square.
    Block(RGBColor),
}

/// A legend: rows of a swatch and a rich-text label, drawn in a translucent white box with a
/// [`LEGEND_BORDER`] border where it covers no data ([`fit_legend`]).
#[derive(Debug, Clone)]
pub struct Legend {
    rows: Vec<(String, Swatch)>,
    look: Look,
    font: f64,
    droppable: Vec<usize>,
}

/// The smallest legend text (CSS pixels at scale 1) [`fit_legend`] shrinks to: 11 px, 18.3 px in
/// classroom mode (scale 5/3), still above the classroom's 18 px floor.
pub const LEGEND_MIN_FONT: f64 = 11.0;

/// The share of the plotting area's height (legend above) or width (legend at the right) a
/// legend outside the plotting area must leave it: below this the plot is a strip under its
/// legend, and [`fit_legend`] tries a smaller or shorter legend first.
pub const LEGEND_KEEP: f64 = 0.6;

/// Where [`fit_legend`] put a legend: its box (backend pixels), and the text size and rows it
/// has there (a smaller text or fewer rows when the whole legend fitted nowhere).
#[derive(Debug, Clone, PartialEq)]
pub struct Spot {
    /// The legend's box `[left, top, right, bottom]`, backend pixels.
    pub rect: [i32; 4],
    /// The text size, CSS pixels.
    pub font: f64,
    /// How many of the legend's droppable rows were dropped ([`Legend::droppable`]).
    pub dropped: usize,
}

impl Legend {
    /// A legend of `rows` (label, swatch) in the plots' text size.
    pub fn new(look: &Look, rows: Vec<(String, Swatch)>) -> Self {
        Self { rows, look: *look, font: 12.0, droppable: vec![] }
    }

    /// A legend in a smaller text (`font` CSS pixels).
    pub fn with_font(mut self, font: f64) -> Self {
        self.font = font;
        self
    }

    /// The rows (indices into the rows given to [`Legend::new`]) [`fit_legend`] may leave out,
    /// first to last, when the whole legend fits nowhere even at [`LEGEND_MIN_FONT`]: rows whose
    /// marks the plot labels otherwise (a value at its line) or its caption names.
    pub fn droppable(mut self, order: Vec<usize>) -> Self {
        self.droppable = order.into_iter().filter(|&k| k < self.rows.len()).collect();
        self
    }

    /// The rows shown (label and swatch) with the first `dropped` droppable rows left out.
    pub fn shown_rows(&self, dropped: usize) -> Vec<&(String, Swatch)> {
        let gone = &self.droppable[..dropped.min(self.droppable.len())];
        self.rows.iter().enumerate().filter(|(k, _)| !gone.contains(k)).map(|(_, r)| r).collect()
    }

    /// This legend at text size `font` with the first `dropped` droppable rows left out.
    fn variant(&self, font: f64, dropped: usize) -> Legend {
        let rows = self.shown_rows(dropped).into_iter().cloned().collect();
        Legend { rows, look: self.look, font, droppable: vec![] }
    }

    /// The legends [`fit_legend`] tries, in order: as given; at [`LEGEND_MIN_FONT`]; then with
    /// one more droppable row left out each time. `(font, dropped)`.
    fn variants(&self) -> Vec<(f64, usize)> {
        let small = LEGEND_MIN_FONT.min(self.font);
        let mut v = vec![(self.font, 0)];
        if small < self.font {
            v.push((small, 0));
        }
        v.extend((1..=self.droppable.len()).map(|k| (small, k)));
        v
    }

    fn size_px(&self) -> f64 {
        self.font * self.look.s
    }

    fn pad(&self) -> i32 {
        self.look.px(5.0)
    }

    fn swatch_w(&self) -> i32 {
        self.look.px(20.0)
    }

    fn row_h(&self) -> i32 {
        (1.35 * self.size_px()).ceil() as i32
    }

    /// Whether the legend has any row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Width and height of the box in backend pixels (one entry a row).
    pub fn dims(&self) -> (i32, i32) {
        let text = self.rows.iter().map(|r| rich_size(&r.0, self.size_px()).0).max().unwrap_or(0);
        let w = 2 * self.pad() + self.swatch_w() + self.look.px(6.0) + text;
        let h = 2 * self.pad() + self.row_h() * self.rows.len() as i32;
        (w, h)
    }

    fn entry_w(&self, k: usize) -> i32 {
        self.swatch_w() + self.look.px(6.0) + rich_size(&self.rows[k].0, self.size_px()).0
    }

    /// The entries' offsets from the box's top left when they flow in lines at most `max_w`
    /// wide (the legend above a plot), and the box's size.
    pub fn flow(&self, max_w: i32) -> (Vec<(i32, i32)>, (i32, i32)) {
        let gap = self.look.px(14.0);
        let (mut x, mut line, mut w) = (0, 0, 0);
        let mut out = vec![];
        for k in 0..self.rows.len() {
            let ew = self.entry_w(k);
            if x > 0 && self.pad() + x + ew + self.pad() > max_w {
                x = 0;
                line += 1;
            }
            out.push((self.pad() + x, self.pad() + line * self.row_h()));
            w = w.max(x + ew);
            x += ew + gap;
        }
        let h = 2 * self.pad() + (line + 1) * self.row_h();
        (out, (w + 2 * self.pad(), h))
    }

    /// The gap between the legend and the plotting area's edge.
    pub fn inset(&self) -> i32 {
        self.look.px(6.0)
    }

    /// The candidate boxes inside the plotting area `area`: the four corners first (upper right,
    /// upper left, lower left, lower right), then the middles of the edges.
    pub fn candidates(&self, area: [i32; 4]) -> Vec<[i32; 4]> {
        let (w, h) = self.dims();
        let g = self.inset();
        let (l, t, r, b) = (area[0] + g, area[1] + g, area[2] - g - w, area[3] - g - h);
        let (cx, cy) = ((area[0] + area[2] - w) / 2, (area[1] + area[3] - h) / 2);
        [(r, t), (l, t), (l, b), (r, b), (cx, t), (cx, b), (l, cy), (r, cy)]
            .iter()
            .filter(|&&(x, y)| x >= area[0] && y >= area[1] && x + w <= area[2] && y + h <= area[3])
            .map(|&(x, y)| [x, y, x + w, y + h])
            .collect()
    }

    /// Draw the legend where [`fit_legend`] put it (`spot`: its box, text size and rows) on
    /// `root`.
    pub fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spot: Spot,
    ) -> DrawResult<(), DB> {
        self.variant(spot.font, spot.dropped).draw_in(root, spot.rect)
    }

    /// Draw the legend in the box `at` (backend pixels) on `root`.
    fn draw_in<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        at: [i32; 4],
    ) -> DrawResult<(), DB> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let (bx, by) = root.get_base_pixel();
        let [l, t, r, b] = [at[0] - bx, at[1] - by, at[2] - bx, at[3] - by];
        root.draw(&Rectangle::new([(l, t), (r, b)], WHITE.mix(0.85).filled()))?;
        root.draw(&Rectangle::new([(l, t), (r, b)], LEGEND_BORDER.stroke_width(1)))?;
        let s = self.look.s;
        // One entry a row in a box of the column's width, else flowing in lines.
        let offsets: Vec<(i32, i32)> = if at[2] - at[0] == self.dims().0 {
            (0..self.rows.len())
                .map(|k| (self.pad(), self.pad() + self.row_h() * k as i32))
                .collect()
        } else {
            self.flow(at[2] - at[0]).0
        };
        for (k, (label, sw)) in self.rows.iter().enumerate() {
            let yc = t + offsets[k].1 + self.row_h() / 2;
            let x0 = l + offsets[k].0;
            let x1 = x0 + self.swatch_w();
            let stroke = |v: f64| (v * s).round().max(1.0) as u32;
            match *sw {
                Swatch::Line(c, w) => root
                    .draw(&PathElement::new(vec![(x0, yc), (x1, yc)], c.stroke_width(stroke(w))))?,
                Swatch::Dashed(c, w) => {
                    let d = (x1 - x0) / 5;
                    for j in [0, 2, 4] {
                        root.draw(&PathElement::new(
                            vec![(x0 + j * d, yc), (x0 + (j + 1) * d, yc)],
                            c.stroke_width(stroke(w)),
                        ))?;
                    }
                }
                Swatch::Dot(c) => {
                    root.draw(&Circle::new(((x0 + x1) / 2, yc), self.look.px(3.5), c.filled()))?
                }
                Swatch::Ring(c) => root.draw(&Circle::new(
                    ((x0 + x1) / 2, yc),
                    self.look.px(4.0),
                    c.stroke_width(stroke(1.2)),
                ))?,
                Swatch::Block(c) => {
                    let q = self.look.px(5.0);
                    let m = (x0 + x1) / 2;
                    root.draw(&Rectangle::new([(m - q, yc - q), (m + q, yc + q)], c.filled()))?
                }
            }
            draw_rich_text(
                root,
                label,
                (x1 + self.look.px(6.0), yc),
                Pos::new(HPos::Left, VPos::Center),
                self.size_px(),
                &RGBColor(30, 30, 30),
            )?;
        }
        Ok(())
    }
}

/// Extra room a chart is built with when its legend goes outside the plotting area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Room {
    /// Extra right margin, backend pixels.
    pub right: i32,
    /// Extra top margin, backend pixels.
    pub top: i32,
}

/// matplotlib's `loc="best"` computed from what is drawn: build the chart (`build`), collect the
/// plotting area and the pixels its data will cover, with the plot's labels placed (`scan`,
/// which returns the area, the obstacles and whatever the plot needs later), then put the
/// legend in the first candidate box of [`Legend::candidates`] that covers none of them (with
/// 3 px to spare). When every candidate covers something the chart is built again with room
/// for the legend outside the plotting area — at the right or above (its entries flowing in
/// lines), whichever takes the smaller share of the plotting area (the right at most half the
/// `width`) — if that leaves the plotting area [`LEGEND_KEEP`] of its size. Otherwise the same
/// is tried with the legend's text at [`LEGEND_MIN_FONT`], then with its droppable rows left
/// out one by one ([`Legend::droppable`]); when nothing fits, the shortest legend goes outside.
/// Returns the chart, where the legend goes ([`Spot`]) and `scan`'s value.
pub fn fit_legend<C, T, E>(
    width: u32,
    legend: &Legend,
    build: impl Fn(Room) -> Result<C, E>,
    scan: impl Fn(&C) -> ([i32; 4], Obstacles, T),
) -> Result<(C, Spot, T), E> {
    let chart = build(Room::default())?;
    let (area, obs, t) = scan(&chart);
    let none = Spot { rect: [0; 4], font: legend.font, dropped: 0 };
    if legend.is_empty() {
        return Ok((chart, none, t));
    }
    let m = legend.look.px(3.0);
    let variants = legend.variants();
    let mut first = Some((chart, t));
    for (k, &(font, dropped)) in variants.iter().enumerate() {
        let v = legend.variant(font, dropped);
        if v.is_empty() {
            let (chart, t) = match first.take() {
                Some(c) => c,
                None => {
                    let c = build(Room::default())?;
                    let (_, _, t) = scan(&c);
                    (c, t)
                }
            };
            return Ok((chart, Spot { rect: [0; 4], font, dropped }, t));
        }
        let spot = |rect| Spot { rect, font, dropped };
        for b in v.candidates(area) {
            if obs.cost([b[0] - m, b[1] - m, b[2] + m, b[3] + m]) == 0 {
                let (chart, t) = match first.take() {
                    Some(c) => c,
                    None => {
                        let c = build(Room::default())?;
                        let (_, _, t) = scan(&c);
                        (c, t)
                    }
                };
                return Ok((chart, spot(b), t));
            }
        }
        let last = k + 1 == variants.len();
        let (chart, rect, t, keeps) = outside(width, &v, area, &build, &scan)?;
        if keeps || last {
            return Ok((chart, spot(rect), t));
        }
    }
    // Unreachable: the last variant returns above. Keep the first chart without a legend.
    match first {
        Some((chart, t)) => Ok((chart, none, t)),
        None => {
            let c = build(Room::default())?;
            let (_, _, t) = scan(&c);
            Ok((c, none, t))
        }
    }
}

/// The legend `v` outside the plotting area `area` (see [`fit_legend`]): the chart built with
/// room for it, its box, `scan`'s value, and whether the plotting area keeps [`LEGEND_KEEP`].
#[allow(clippy::type_complexity)]
fn outside<C, T, E>(
    width: u32,
    v: &Legend,
    area: [i32; 4],
    build: &impl Fn(Room) -> Result<C, E>,
    scan: &impl Fn(&C) -> ([i32; 4], Obstacles, T),
) -> Result<(C, [i32; 4], T, bool), E> {
    let (w, h) = v.dims();
    let gap = v.inset();
    let above = v.flow(area[2] - area[0]).1;
    // The side that takes the smaller share of the plotting area.
    let (pw, ph) = ((area[2] - area[0]).max(1) as f64, (area[3] - area[1]).max(1) as f64);
    let right_share = (w + gap) as f64 / pw;
    let top_share = (above.1 + gap) as f64 / ph;
    let room = if right_share <= top_share && w + gap <= width as i32 / 2 {
        Room { right: w + gap, top: 0 }
    } else {
        Room { right: 0, top: above.1 + gap }
    };
    let chart = build(room)?;
    let (a, _, t) = scan(&chart);
    let b = if room.right > 0 {
        [a[2] + gap, a[1], a[2] + gap + w, a[1] + h]
    } else {
        let (fw, fh) = v.flow(a[2] - a[0]).1;
        // Never the column's width, so the drawing flows (see [`Legend::draw`]).
        let fw = if fw == w { fw + 1 } else { fw };
        let left = (a[2] - fw).max(0);
        [left, a[1] - gap - fh, left + fw, a[1] - gap]
    };
    // A legend at the right must also fit beside the plotting area, not run below it.
    let keeps = (a[2] - a[0]) as f64 >= LEGEND_KEEP * pw
        && (a[3] - a[1]) as f64 >= LEGEND_KEEP * ph
        && (room.right == 0 || b[3] <= a[3])
        && b[2] - b[0] <= width as i32;
    Ok((chart, b, t, keeps))
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
        assert_eq!(pow10_label(&-3.0), "10⁻³");
        assert_eq!(pow10_label(&2.0), "10²");
        assert_eq!(pow10_label(&2.5), "");
    }

    #[test]
    fn the_legend_goes_where_nothing_is_drawn() {
        let look = Look::new(1.0);
        let legend = Legend::new(&look, vec![("a curve".into(), Swatch::Line(BLACK, 2.0))]);
        let area = [50, 10, 650, 310];
        let (w, h) = legend.dims();
        // A curve along the top edge: the upper corners are taken, the lower left is free.
        let mut obs = Obstacles::default();
        obs.polyline([(50, 30), (650, 30)]);
        let (chart, spot, ()) = fit_legend::<_, _, ()>(
            720,
            &legend,
            |room| Ok((area, room)),
            |c| (c.0, obs.clone(), ()),
        )
        .unwrap();
        assert_eq!(chart.1, Room::default());
        let b = spot.rect;
        assert_eq!(b, [56, 310 - 6 - h, 56 + w, 304]);
        // Every candidate covered on a low plot: room is made on the right (a smaller share of
        // the area than a line above) and the legend goes there.
        let mut full = Obstacles::default();
        for y in (10..=610).step_by(4) {
            full.polyline([(50, y), (650, y)]);
        }
        let (chart, spot, ()) = fit_legend::<_, _, ()>(
            720,
            &legend,
            |room| Ok(([50, 10 + room.top, 650 - room.right, 110], room)),
            |c| (c.0, full.clone(), ()),
        )
        .unwrap();
        let b = spot.rect;
        assert_eq!(chart.1, Room { right: w + 6, top: 0 });
        assert!(b[0] > 650 - chart.1.right && b[2] <= 650);
        // On a tall plot a line above takes the smaller share: the legend goes above it.
        let (chart, spot, ()) = fit_legend::<_, _, ()>(
            720,
            &legend,
            |room| Ok(([50, 10 + room.top, 650 - room.right, 610], room)),
            |c| (c.0, full.clone(), ()),
        )
        .unwrap();
        let b = spot.rect;
        assert_eq!(chart.1.right, 0);
        assert!(chart.1.top > 0 && b[3] <= 10 + chart.1.top);
    }

    #[test]
    fn a_legend_too_large_for_a_low_plot_shrinks_then_drops_rows() {
        // A classroom plot (scale 5/3) 200 px high, its data everywhere, and a legend of five
        // rows: above the plot it would leave a strip; at the small text it still would; with
        // the droppable rows left out it keeps the plot LEGEND_KEEP of its height.
        let look = Look::new(5.0 / 3.0);
        let rows: Vec<(String, Swatch)> =
            (0..5).map(|k| (format!("curve number {k}"), Swatch::Line(BLACK, 2.0))).collect();
        let legend = Legend::new(&look, rows).droppable(vec![4, 3, 2]);
        let mut full = Obstacles::default();
        for y in (0..=400).step_by(4) {
            full.polyline([(0, y), (800, y)]);
        }
        let build = |room: Room| Ok::<_, ()>(([80, 10 + room.top, 360 - room.right, 210], room));
        let (chart, spot, ()) =
            fit_legend(381, &legend, build, |c| (c.0, full.clone(), ())).unwrap();
        let a = chart.0;
        assert!((a[3] - a[1]) as f64 >= LEGEND_KEEP * 200.0, "the plot keeps its height: {a:?}");
        assert_eq!(spot.font, LEGEND_MIN_FONT);
        // Three rows above would leave half the height; two leave more than LEGEND_KEEP.
        assert_eq!(spot.dropped, 3, "{spot:?}");
        // The whole legend at 12 px above the plot would have left it less than half its height.
        let (_, h) = legend.dims();
        assert!(((200 - h - legend.inset()) as f64) < 0.5 * 200.0);
        // The rows kept are the ones not droppable, in order, then the droppable ones not dropped.
        let kept: Vec<String> =
            legend.shown_rows(spot.dropped).iter().map(|r| r.0.clone()).collect();
        assert_eq!(&kept[..2], ["curve number 0", "curve number 1"]);
        assert!(spot.rect[3] <= a[1] && spot.rect[1] >= 0, "above the plot, on the canvas");
    }
}
