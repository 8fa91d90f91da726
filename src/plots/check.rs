//! Test support for the plots (compiled for tests only): a plotters backend that records every
//! drawn primitive in pixel coordinates, and the checks the plots must pass on it — the legend's
//! box covers none of the drawn points or curve samples, no two texts overlap, no text covers
//! data, no text is clipped by the canvas.

use std::cell::RefCell;
use std::rc::Rc;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform,
};

use crate::plots::style::{text_box, GRID_BOLD, GRID_COLOR, LEGEND_BORDER};

/// One drawn primitive.
#[derive(Debug, Clone)]
pub enum Prim {
    /// A polyline (lines, paths).
    Path(Vec<(i32, i32)>, (u8, u8, u8)),
    /// A circle: centre, radius.
    Circle((i32, i32), i32, (u8, u8, u8)),
    /// A rectangle: box, filled.
    Rect([i32; 4], bool, (u8, u8, u8)),
    /// A filled polygon's vertices.
    Poly(Vec<(i32, i32)>, (u8, u8, u8)),
    /// A text and its box.
    Text(String, [i32; 4]),
}

/// The recording backend.
pub struct Rec {
    size: (u32, u32),
    /// What was drawn, in order.
    pub prims: Rc<RefCell<Vec<Prim>>>,
}

#[derive(Debug)]
pub struct NoError;
impl std::fmt::Display for NoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "recording")
    }
}
impl std::error::Error for NoError {}

type R = Result<(), DrawingErrorKind<NoError>>;

fn rgb(c: BackendColor) -> Option<(u8, u8, u8)> {
    (c.alpha > 0.0).then_some(c.rgb)
}

impl DrawingBackend for Rec {
    type ErrorType = NoError;
    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> R {
        Ok(())
    }
    fn present(&mut self) -> R {
        Ok(())
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> R {
        if let Some(c) = rgb(c) {
            self.prims.borrow_mut().push(Prim::Path(vec![p], c));
        }
        Ok(())
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> R {
        if let Some(c) = rgb(s.color()) {
            self.prims.borrow_mut().push(Prim::Path(vec![a, b], c));
        }
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> R {
        if let Some(c) = rgb(s.color()) {
            let r = [a.0.min(b.0), a.1.min(b.1), a.0.max(b.0), a.1.max(b.1)];
            self.prims.borrow_mut().push(Prim::Rect(r, fill, c));
        }
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> R {
        if let Some(c) = rgb(s.color()) {
            self.prims.borrow_mut().push(Prim::Path(path.into_iter().collect(), c));
        }
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(&mut self, p: BackendCoord, r: u32, s: &S, fill: bool) -> R {
        if let Some(c) = rgb(s.color()) {
            let _ = fill;
            self.prims.borrow_mut().push(Prim::Circle(p, r as i32, c));
        }
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        v: I,
        s: &S,
    ) -> R {
        if let Some(c) = rgb(s.color()) {
            self.prims.borrow_mut().push(Prim::Poly(v.into_iter().collect(), c));
        }
        Ok(())
    }
    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, s: &T, pos: BackendCoord) -> R {
        if s.color().alpha == 0.0 || text.trim().is_empty() {
            return Ok(());
        }
        let b = text_box(text, s.size(), pos, s.anchor());
        let b = match s.transform() {
            FontTransform::Rotate90 | FontTransform::Rotate270 => {
                // Rotated about `pos`: the box turns by a quarter about its anchor.
                let (w, h) = (b[2] - b[0], b[3] - b[1]);
                let (cx, cy) = (pos.0, pos.1);
                [cx - h / 2, cy - w / 2, cx + h - h / 2, cy + w - w / 2]
            }
            _ => b,
        };
        self.prims.borrow_mut().push(Prim::Text(text.to_string(), b));
        Ok(())
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        s: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<NoError>> {
        let b = text_box(text, s.size(), (0, 0), s.anchor());
        Ok(((b[2] - b[0]) as u32, (b[3] - b[1]) as u32))
    }
    fn blit_bitmap(&mut self, _: BackendCoord, _: (u32, u32), _: &[u8]) -> R {
        Ok(())
    }
}

/// Draw with `draw` on a `w × h` recording backend and return what was drawn.
pub fn record(
    w: u32,
    h: u32,
    draw: impl FnOnce(&DrawingArea<Rec, Shift>) -> Result<(), String>,
) -> Vec<Prim> {
    let prims = Rc::new(RefCell::new(Vec::new()));
    {
        let root = Rec { size: (w, h), prims: prims.clone() }.into_drawing_area();
        draw(&root).expect("draw");
    }
    let v = prims.borrow().clone();
    v
}

fn inside(b: [i32; 4], p: (i32, i32)) -> bool {
    // Strictly inside by more than a pixel (an edge shared with a line is not covering it).
    p.0 > b[0] + 1 && p.0 < b[2] - 1 && p.1 > b[1] + 1 && p.1 < b[3] - 1
}

fn samples(pts: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let mut out = vec![];
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let k = (a.0 - b.0).abs().max((a.1 - b.1).abs()).clamp(1, 5000);
        for j in 0..=k {
            let t = j as f64 / k as f64;
            out.push((
                (a.0 as f64 + t * (b.0 - a.0) as f64).round() as i32,
                (a.1 as f64 + t * (b.1 - a.1) as f64).round() as i32,
            ));
        }
    }
    if pts.len() == 1 {
        out.push(pts[0]);
    }
    out
}

const WHITE_RGB: (u8, u8, u8) = (255, 255, 255);

fn is_grid(c: (u8, u8, u8)) -> bool {
    c == (GRID_COLOR.0, GRID_COLOR.1, GRID_COLOR.2) || c == (GRID_BOLD.0, GRID_BOLD.1, GRID_BOLD.2)
}

/// The legend boxes drawn (rectangles in the legend border colour).
pub fn legends(prims: &[Prim]) -> Vec<(usize, [i32; 4])> {
    let border = (LEGEND_BORDER.0, LEGEND_BORDER.1, LEGEND_BORDER.2);
    prims
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Prim::Rect(b, false, c) if *c == border => Some((i, *b)),
            _ => None,
        })
        .collect()
}

/// The data's pixels: every sample of every drawn path, circle, stroked rectangle and polygon,
/// except the grid, white, filled rectangles (backgrounds, heat cells, bars), the legends and
/// what is drawn inside a legend after it.
pub fn data_points(prims: &[Prim]) -> Vec<(i32, i32)> {
    let legs = legends(prims);
    let in_legend = |i: usize, p: (i32, i32)| legs.iter().any(|&(k, b)| i >= k && inside(b, p));
    let mut out = vec![];
    for (i, p) in prims.iter().enumerate() {
        let pts: Vec<(i32, i32)> = match p {
            Prim::Path(v, c) if !is_grid(*c) && *c != WHITE_RGB => samples(v),
            Prim::Circle(c, r, col) if *col != WHITE_RGB => {
                let mut v = vec![*c];
                for k in 0..16 {
                    let t = k as f64 / 16.0 * std::f64::consts::TAU;
                    v.push((
                        c.0 + (*r as f64 * t.cos()).round() as i32,
                        c.1 + (*r as f64 * t.sin()).round() as i32,
                    ));
                }
                v
            }
            Prim::Rect(b, false, c) if !is_grid(*c) && *c != WHITE_RGB => {
                if legs.iter().any(|&(k, _)| k == i) {
                    continue;
                }
                samples(&[(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3]), (b[0], b[1])])
            }
            Prim::Poly(v, c) if *c != WHITE_RGB => v.clone(),
            _ => continue,
        };
        out.extend(pts.into_iter().filter(|&q| !in_legend(i, q)));
    }
    out
}

/// The texts drawn, with their boxes.
pub fn texts(prims: &[Prim]) -> Vec<(String, [i32; 4])> {
    prims
        .iter()
        .filter_map(|p| match p {
            Prim::Text(t, b) => Some((t.clone(), *b)),
            _ => None,
        })
        .collect()
}

/// Every defect of a recorded plot: legend boxes covering data, texts overlapping each other,
/// texts over data (apart from legend text inside its box), texts outside the canvas.
pub fn defects(prims: &[Prim], w: u32, h: u32) -> Vec<String> {
    let mut out = vec![];
    let data = data_points(prims);
    let legs = legends(prims);
    for (_, b) in &legs {
        let n = data.iter().filter(|&&p| inside(*b, p)).count();
        if n > 0 {
            out.push(format!("legend {b:?} covers {n} data pixels"));
        }
    }
    let ts = texts(prims);
    for (i, (ta, a)) in ts.iter().enumerate() {
        for (tb, b) in &ts[i + 1..] {
            let shrink = |r: [i32; 4]| [r[0] + 1, r[1] + 1, r[2] - 1, r[3] - 1];
            // The same text twice in the same place (plotters' log axis can repeat a tick) reads
            // as one.
            if crate::plots::style::overlap(shrink(*a), shrink(*b)) && !(ta == tb && a == b) {
                out.push(format!("texts overlap: {ta:?} {a:?} and {tb:?} {b:?}"));
            }
        }
        if a[0] < 0 || a[1] < 0 || a[2] > w as i32 || a[3] > h as i32 {
            out.push(format!("text clipped by the {w}×{h} canvas: {ta:?} {a:?}"));
        }
        let n = data.iter().filter(|&&p| inside(*a, p)).count();
        if n > 0 {
            out.push(format!("text {ta:?} {a:?} covers {n} data pixels"));
        }
    }
    out
}

/// The sizes every plot is checked at: the SVG of `kplay plot` (720 × 360 at scale 1) and a
/// classroom canvas (20 px text: scale 5/3) that is wide and low.
pub const SIZES: [(u32, u32, f64); 2] = [(720, 360, 1.0), (760, 300, 5.0 / 3.0)];

/// [`SIZES`] and a canvas as low as a classroom step leaves a plot at 1280 × 720 after its
/// explanation (the classroom walk measures 232–240 px: A9–A11's and C3's convergence, D7's,
/// D10's and D11's boundary, D14's trace), for the plots shown that low.
pub const LOW: [(u32, u32, f64); 3] =
    [(720, 360, 1.0), (760, 300, 5.0 / 3.0), (600, 236, 5.0 / 3.0)];

/// [`LOW`] and page D's trace at the sizes the classroom gives it (the walk's figures): beside
/// the boundary on D2, 381 × 232; beside a wide lesson column on D14, 590 × 236.
pub const TRACE_CLASSROOM: [(u32, u32, f64); 5] = [
    (720, 360, 1.0),
    (760, 300, 5.0 / 3.0),
    (600, 236, 5.0 / 3.0),
    (381, 232, 5.0 / 3.0),
    (590, 236, 5.0 / 3.0),
];

/// Assert that `draw` at every size of [`SIZES`] has no defect.
pub fn assert_clean(
    name: &str,
    draw: impl Fn(&DrawingArea<Rec, Shift>, f64) -> Result<(), String>,
) {
    assert_clean_at(name, &SIZES, draw)
}

/// Assert that `draw` at every size of `sizes` (width, height, scale) has no defect.
pub fn assert_clean_at(
    name: &str,
    sizes: &[(u32, u32, f64)],
    draw: impl Fn(&DrawingArea<Rec, Shift>, f64) -> Result<(), String>,
) {
    let mut all = vec![];
    for &(w, h, s) in sizes {
        let prims = record(w, h, |root| draw(root, s));
        for d in defects(&prims, w, h) {
            all.push(format!("{name} at {w}×{h}, scale {s:.2}: {d}"));
        }
    }
    assert!(all.is_empty(), "{} defect(s):\n{}", all.len(), all.join("\n"));
}
