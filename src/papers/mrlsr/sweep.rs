//! Paper B's watchable run (issue 32 §9): a move of (m, λ) from one fit to another in refits a
//! class watches, each on the cached eigendecomposition, ending on the target's own fit.

/// Refits of a page's sweep: about 1.3 s at 30 refits per second, each a root solve and
/// α = Qα′ on the cached eigendecomposition.
pub const SWEEP_FRAMES: usize = 40;

/// A move of (m, λ) from one fit to another in `frames` refits, so that a class can watch the
/// fit change: λ on a log scale (geometric steps), m in equal steps. Point 0 is the start and
/// point `frames` the target, both exactly as given (no rounding through a logarithm), so a
/// sweep ends on the same fit as a direct refit at the target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamSweep {
    from: (f64, f64),
    to: (f64, f64),
    frames: usize,
    done: usize,
}

impl ParamSweep {
    /// From (m, λ) `from` to `to` in `frames` refits (at least 1); nothing done yet.
    pub fn new(from: (f64, f64), to: (f64, f64), frames: usize) -> Self {
        Self { from, to, frames: frames.max(1), done: 0 }
    }

    /// The (m, λ) of point `k` (0 = start, `frames` = target; beyond it, the target).
    pub fn point(&self, k: usize) -> (f64, f64) {
        if k == 0 {
            return self.from;
        }
        if k >= self.frames {
            return self.to;
        }
        let t = k as f64 / self.frames as f64;
        let m = self.from.0 + t * (self.to.0 - self.from.0);
        let (l0, l1) = (self.from.1, self.to.1);
        let lambda =
            if l0 > 0.0 && l1 > 0.0 { (l0.ln() + t * (l1.ln() - l0.ln())).exp() } else { l1 };
        (m, lambda)
    }

    /// Refits in the whole sweep.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Refits done so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// Whether the target's fit has been made.
    pub fn ended(&self) -> bool {
        self.done >= self.frames
    }

    /// One refit further: the (m, λ) to fit next (the target once reached).
    pub fn advance(&mut self) -> (f64, f64) {
        self.done = (self.done + 1).min(self.frames);
        self.point(self.done)
    }

    /// Back to the start, nothing done: the (m, λ) to fit.
    pub fn rewind(&mut self) -> (f64, f64) {
        self.done = 0;
        self.point(0)
    }

    /// The start and the target, (m, λ) each.
    pub fn ends(&self) -> ((f64, f64), (f64, f64)) {
        (self.from, self.to)
    }
}
