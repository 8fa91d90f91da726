//! Beyond the paper (ours): greedy coordinate descent — the coordinate (or, for losses with a box
//! dual, the pair of coordinates, an exact two-variable step) of largest violation — with
//! shrinking of the coordinates at their bounds, and the incremental bookkeeping it needs.
//! Each pair step is exact ascent on the dual (paper C's Theorem 4 reading, see docs/errata.md).

use super::compact::Compact;
use super::*;

/// Shrinking looks for coordinates to set aside every this many updates (libsvm's
/// `min(ℓ, 1000)`), and the cyclic rules after every sweep.
pub(super) const SHRINK_EVERY: usize = 1000;

/// What a greedy scan found: the position of the coordinate with the largest step `|h_j|`
/// (the first among equals; `None` when every step is 0) and that largest `|h_j|` (NaN if a step
/// is NaN).
pub(super) struct Scan {
    pub(super) best: Option<usize>,
    pub(super) max_h: f64,
}

/// The greedy scan over coordinates stored side by side: fresh `h_k = S_k(v_k) − c_k`
/// (`v_k = z_k/k_kk − c_k`) into `h`, and the largest. Generic over the loss's resolvent so each
/// loss gets its own loop (which the compiler can vectorize for the closed-form resolvents).
#[inline(always)]
pub(super) fn scan_dense(
    y: &[f64],
    inv: &[f64],
    c: &[f64],
    z: &[f64],
    h: &mut [f64],
    resolvent: impl Fn(f64, f64, f64) -> f64,
) -> Scan {
    let m = h.len();
    let (y, inv, c, z) = (&y[..m], &inv[..m], &c[..m], &z[..m]);
    for k in 0..m {
        let v = z[k] * inv[k] - c[k];
        h[k] = resolvent(y[k], v, inv[k]) - c[k];
    }
    // The largest |h| in four independent lanes, then its first position.
    let mut lane = [0.0f64; 4];
    let mut nan = false;
    let chunks = h.chunks_exact(4);
    let rest = chunks.remainder();
    for q in chunks {
        for l in 0..4 {
            let a = q[l].abs();
            nan |= a.is_nan();
            lane[l] = fmath::max(a, lane[l]);
        }
    }
    for v in rest {
        nan |= v.is_nan();
        lane[0] = fmath::max(v.abs(), lane[0]);
    }
    if nan {
        return Scan { best: None, max_h: f64::NAN };
    }
    let max_h = fmath::max(fmath::max(lane[0], lane[1]), fmath::max(lane[2], lane[3]));
    let best = if max_h > 0.0 { h.iter().position(|v| v.abs() == max_h) } else { None };
    Scan { best, max_h }
}

/// The scanned arrays of [`IndexRule::GreedyPairs`]'s step: labels, `k_jj`, c, z, h on the
/// positions, and each position's index (`None`: position = index).
type Positions<'a> = (&'a [f64], &'a [f64], &'a [f64], &'a [f64], &'a [f64], Option<&'a [usize]>);

impl CoordinateDescent {
    /// The greedy rule's update of the coordinate at position `pos` of the scanned arrays: the
    /// exact step of eq. (13), with `z = Kc` (and for features also `w`) kept up to date — on
    /// every row, or on the active rows with the change recorded for the others.
    pub(super) fn greedy_update(&mut self, pos: usize) {
        let p = &self.problem;
        let (i, h, t) = match &mut self.compact {
            None => {
                let a = self.inv_diag[pos];
                let v = self.z[pos] * a - self.c[pos];
                let t = p.loss.neg_resolvent(p.y[pos], v, a, p.lambda);
                let h = t - self.c[pos];
                self.h[pos] = h;
                (pos, h, t)
            }
            Some(cp) => {
                let a = cp.inv[pos];
                let v = cp.z[pos] * a - cp.c[pos];
                let t = p.loss.neg_resolvent(cp.y[pos], v, a, p.lambda);
                let h = t - cp.c[pos];
                cp.h[pos] = h;
                if h != 0.0 {
                    cp.c[pos] = t;
                }
                (cp.idx[pos], h, t)
            }
        };
        if h == 0.0 {
            self.skipped += 1;
            return;
        }
        self.c[i] = t;
        if let Operator::Features { xt, .. } = &p.op {
            self.w.axpy(h, &xt.column(i), 1.0);
        }
        let col: &[f64] = match &p.op {
            Operator::Gram(k) => &k.as_slice()[i * k.nrows()..(i + 1) * k.nrows()],
            Operator::Features { .. } | Operator::Rows { .. } => self
                .rows
                .as_mut()
                .expect("computed rows have a cache")
                .get(i, |j, out| p.kernel_row_into(j, out))
                .as_slice(),
        };
        match &mut self.compact {
            None => self.z.axpy(h, &DVectorView::from_slice(col, col.len()), 1.0),
            Some(cp) => {
                for (zk, &j) in cp.z.iter_mut().zip(&cp.idx) {
                    *zk += h * col[j];
                }
                if !self.is_changed[i] {
                    self.is_changed[i] = true;
                    self.changed.push(i);
                }
                self.dc[i] += h;
            }
        }
    }

    /// [`IndexRule::GreedyPairs`]'s step from the coordinate at position `pos` of the scanned
    /// arrays (Greedy's choice): pick the second coordinate by its second-order gain, move both to
    /// the exact minimizer of the 2-D subproblem ([`exact_pair_step`]) and keep `z = Kc` (and `w`)
    /// up to date with the two rows. Falls back to Greedy's single step when no second coordinate
    /// gains or the block admits no closed form. Returns the coordinate updates done (2 or 1).
    pub(super) fn pair_update(&mut self, pos: usize, bx: PairBox) -> usize {
        let q = bx.q;
        let p = &self.problem;
        let i = match &self.compact {
            None => pos,
            Some(cp) => cp.idx[pos],
        };
        // Row i of K: a slice of the stored matrix, or a copy of the computed row.
        let gram_col = |k: &nalgebra::DMatrix<f64>, j: usize| -> std::ops::Range<usize> {
            j * k.nrows()..(j + 1) * k.nrows()
        };
        if !matches!(p.op, Operator::Gram(_)) {
            let row = self
                .rows
                .as_mut()
                .expect("computed rows have a cache")
                .get(i, |j, out| p.kernel_row_into(j, out));
            self.row_i.clear();
            self.row_i.extend_from_slice(row.as_slice());
        }
        let row_i: &[f64] = match &p.op {
            Operator::Gram(k) => &k.as_slice()[gram_col(k, i)],
            Operator::Features { .. } | Operator::Rows { .. } => &self.row_i,
        };
        // The scanned arrays (positions), the global index of a position, and row i on them.
        let (ys, kd, cs, zs, hs, idx): Positions = match &self.compact {
            None => (
                p.y.as_slice(),
                p.diag.as_slice(),
                self.c.as_slice(),
                self.z.as_slice(),
                self.h.as_slice(),
                None,
            ),
            Some(cp) => (&cp.y, &cp.kd, &cp.c, &cp.z, &cp.h, Some(&cp.idx)),
        };
        let m = ys.len();
        let ri: &[f64] = match idx {
            None => row_i,
            Some(ix) => {
                self.ri.clear();
                self.ri.extend(ix.iter().map(|&j| row_i[j]));
                &self.ri
            }
        };
        let a_i = p.diag[i] + q;
        let d_i = hs[pos];
        let inv_ai = 1.0 / a_i;
        // The second coordinate: the largest gain of its exact conditional step after i's,
        // `g_j' = g_j + k_ij d_i` with the Schur curvature `s_j = a_j − k_ij²/a_i` (at least
        // 10⁻¹² a_j: a near-duplicate of i moves along a flat direction, limited by its box).
        // One loop the compiler can vectorize, then the largest (i itself excluded).
        self.gain.resize(m, 0.0);
        let gain = &mut self.gain[..m];
        let (ys, kd, cs, zs, ri) = (&ys[..m], &kd[..m], &cs[..m], &zs[..m], &ri[..m]);
        let ((plo, phi), (nlo, nhi)) = (bx.pos, bx.neg);
        for k in 0..m {
            let kij = ri[k];
            let a_j = kd[k] + q;
            let gj = zs[k] + q * cs[k] - ys[k] + kij * d_i;
            let s = fmath::max(a_j - kij * kij * inv_ai, 1e-12 * a_j);
            let (lo, hi) = if ys[k] >= 0.0 { (plo, phi) } else { (nlo, nhi) };
            let t = fmath::min(fmath::max(cs[k] - gj / s, lo), hi) - cs[k];
            gain[k] = -(gj * t + 0.5 * s * t * t);
        }
        gain[pos] = f64::NEG_INFINITY;
        let mut lane = [f64::NEG_INFINITY; 4];
        let chunks = gain.chunks_exact(4);
        let rest = chunks.remainder();
        for g in chunks {
            for l in 0..4 {
                lane[l] = fmath::max(g[l], lane[l]);
            }
        }
        for &g in rest {
            lane[0] = fmath::max(g, lane[0]);
        }
        let top = fmath::max(fmath::max(lane[0], lane[1]), fmath::max(lane[2], lane[3]));
        let best = if top > 0.0 { gain.iter().position(|&g| g == top) } else { None };
        let Some(jpos) = best else {
            self.greedy_update(pos);
            return 1;
        };
        let j = idx.map_or(jpos, |ix| ix[jpos]);
        let kij = row_i[j];
        let a_j = p.diag[j] + q;
        let g_i = zs[pos] + q * cs[pos] - ys[pos];
        let g_j = zs[jpos] + q * cs[jpos] - ys[jpos];
        let (bi, bj) = (bx.bounds(ys[pos]), bx.bounds(ys[jpos]));
        let (ci, cj) = (cs[pos], cs[jpos]);
        let Some([ti, tj]) =
            exact_pair_step([ci, cj], [g_i, g_j], [a_i, a_j], kij, [bi.0, bj.0], [bi.1, bj.1])
        else {
            self.greedy_update(pos);
            return 1;
        };
        let (di, dj) = (ti - ci, tj - cj);
        if di == 0.0 && dj == 0.0 {
            self.skipped += 1;
            return 2;
        }
        self.c[i] = ti;
        self.c[j] = tj;
        if let Some(cp) = &mut self.compact {
            cp.c[pos] = ti;
            cp.c[jpos] = tj;
        }
        if let Operator::Features { xt, .. } = &p.op {
            self.w.axpy(di, &xt.column(i), 1.0);
            self.w.axpy(dj, &xt.column(j), 1.0);
        }
        let row_j: &[f64] = match &p.op {
            Operator::Gram(k) => &k.as_slice()[gram_col(k, j)],
            Operator::Features { .. } | Operator::Rows { .. } => self
                .rows
                .as_mut()
                .expect("computed rows have a cache")
                .get(j, |r, out| p.kernel_row_into(r, out))
                .as_slice(),
        };
        match &mut self.compact {
            None => {
                let row_i: &[f64] = match &p.op {
                    Operator::Gram(k) => &k.as_slice()[gram_col(k, i)],
                    Operator::Features { .. } | Operator::Rows { .. } => &self.row_i,
                };
                for ((zk, &ri), &rj) in self.z.as_mut_slice().iter_mut().zip(row_i).zip(row_j) {
                    *zk += di * ri + dj * rj;
                }
            }
            Some(cp) => {
                // Row i on the positions was gathered into `ri` above.
                for ((zk, &r), &ri) in cp.z.iter_mut().zip(&cp.idx).zip(&self.ri) {
                    *zk += di * ri + dj * row_j[r];
                }
                for (m, d) in [(i, di), (j, dj)] {
                    if !self.is_changed[m] {
                        self.is_changed[m] = true;
                        self.changed.push(m);
                    }
                    self.dc[m] += d;
                }
            }
        }
        2
    }

    /// Make `z = Kc` and `h` hold on every row again: copy the active rows back from the compact
    /// arrays and add the recorded changes of c to the other rows.
    pub(super) fn sync(&mut self) {
        let Some(cp) = &self.compact else { return };
        for (k, &j) in cp.idx.iter().enumerate() {
            self.z[j] = cp.z[k];
            self.h[j] = cp.h[k];
        }
        if self.changed.is_empty() {
            return;
        }
        let p = &self.problem;
        let outside: Vec<usize> = (0..p.n()).filter(|&j| !self.in_order[j]).collect();
        for &i in &self.changed {
            let d = self.dc[i];
            self.dc[i] = 0.0;
            self.is_changed[i] = false;
            if d == 0.0 || outside.is_empty() {
                continue;
            }
            let col: &[f64] = match &p.op {
                Operator::Gram(k) => &k.as_slice()[i * k.nrows()..(i + 1) * k.nrows()],
                Operator::Features { .. } | Operator::Rows { .. } => self
                    .rows
                    .as_mut()
                    .expect("computed rows have a cache")
                    .get(i, |j, out| p.kernel_row_into(j, out))
                    .as_slice(),
            };
            let z = self.z.as_mut_slice();
            for &j in &outside {
                z[j] += d * col[j];
            }
        }
        self.changed.clear();
    }

    /// After the active set or `z` changed (with `z` exact on every row): the compact arrays for
    /// the active coordinates, or none when all n are active.
    pub(super) fn rebuild_compact(&mut self) {
        if self.order.len() == self.problem.n() {
            self.compact = None;
            return;
        }
        let idx = self.order.clone();
        let pick = |v: &[f64]| idx.iter().map(|&j| v[j]).collect::<Vec<f64>>();
        self.compact = Some(Compact {
            y: pick(self.problem.y.as_slice()),
            inv: pick(&self.inv_diag),
            kd: if self.pair.is_some() { pick(self.problem.diag.as_slice()) } else { Vec::new() },
            c: pick(self.c.as_slice()),
            z: pick(self.z.as_slice()),
            h: pick(self.h.as_slice()),
            idx,
        });
    }

    /// The greedy scan over the active coordinates: fresh steps `h_j`, the next coordinate and
    /// the largest `|h_j|`.
    pub(super) fn scan(&mut self) {
        let p = &self.problem;
        let lambda = p.lambda;
        let r = match &mut self.compact {
            None => {
                with_loss!(p.loss, l => scan_dense(p.y.as_slice(), &self.inv_diag, self.c.as_slice(), self.z.as_slice(), self.h.as_mut_slice(), |y, v, a| l.neg_resolvent(y, v, a, lambda)))
            }
            Some(cp) => {
                with_loss!(p.loss, l => scan_dense(&cp.y, &cp.inv, &cp.c, &cp.z, &mut cp.h, |y, v, a| l.neg_resolvent(y, v, a, lambda)))
            }
        };
        self.best = r.best;
        self.active_max_h = r.max_h;
    }

    /// `S_i(v_i) − c_i` at the current `z` (`v_i = z_i/k_ii − c_i`), and whether the step stays 0
    /// for every `v` within `s` of `v_i` (`S_i` is monotone, so checking `v_i ± s` suffices).
    pub(super) fn fresh_step(&self, i: usize, s: f64) -> (f64, bool) {
        let p = &self.problem;
        let a = 1.0 / p.diag[i];
        let v = self.z[i] * a - self.c[i];
        let ci = self.c[i];
        let h = p.loss.neg_resolvent(p.y[i], v, a, p.lambda) - ci;
        let stuck = h == 0.0
            && s >= 0.0
            && p.loss.neg_resolvent(p.y[i], v + s, a, p.lambda) == ci
            && p.loss.neg_resolvent(p.y[i], v - s, a, p.lambda) == ci;
        (h, stuck)
    }

    /// Set aside the active coordinates whose step is 0 and stays 0 for changes of `v_i` up
    /// to `s` (the current largest step).
    pub(super) fn shrink(&mut self, s: f64) {
        if !(s.is_finite() && s >= 0.0) {
            return;
        }
        let mut keep = std::mem::take(&mut self.order);
        let before = keep.len();
        keep.retain(|&i| {
            let (_, stuck) = self.fresh_step(i, s);
            if stuck {
                self.in_order[i] = false;
            }
            !stuck
        });
        self.set_aside += (before - keep.len()) as u64;
        self.order = keep;
    }

    /// Bring every kept coordinate back into the active set.
    pub(super) fn unshrink(&mut self) {
        self.sync();
        self.order.clone_from(&self.kept);
        for &i in &self.kept {
            self.in_order[i] = true;
        }
        if self.cfg.rule.is_greedy() {
            self.rebuild_compact();
        }
    }

    /// Fresh steps of the coordinates set aside (`z` must be exact on their rows), so `max|h|`
    /// covers every coordinate; a coordinate whose step is no longer 0 comes back into the
    /// active set (in index order for the cyclic rules). Returns whether one came back.
    pub(super) fn revisit_set_aside(&mut self) -> bool {
        if self.order.len() == self.kept.len() {
            return false;
        }
        let mut back = false;
        for k in 0..self.kept.len() {
            let i = self.kept[k];
            if !self.in_order[i] {
                let h = self.fresh_step(i, 0.0).0;
                self.h[i] = h;
                if h != 0.0 {
                    self.in_order[i] = true;
                    self.order.push(i);
                    back = true;
                }
            }
        }
        if back && matches!(self.cfg.rule, IndexRule::Cyclic | IndexRule::AitkenDoubleSweep) {
            self.order.sort_unstable();
        }
        back
    }

    /// The greedy rule's sweep: up to ℓ updates, each followed by a scan; ends early once every
    /// step is below δ (after bringing back any coordinate set aside).
    pub(super) fn greedy_sweep(&mut self) {
        let m = self.kept.len();
        let tol = self.cfg.tol;
        let shrink_every = m.clamp(1, SHRINK_EVERY);
        let mut done = 0;
        while done < m {
            if self.active_max_h.is_nan() {
                break;
            }
            if self.active_max_h < tol {
                if self.order.len() < m {
                    self.unshrink();
                    self.scan();
                    continue;
                }
                break;
            }
            let Some(i) = self.best else { break };
            let k = if let Some(bx) = self.pair {
                self.pair_update(i, bx)
            } else {
                self.greedy_update(i);
                1
            };
            self.updates += k as u64;
            done += k;
            self.scan();
            if self.cfg.shrinking {
                if !self.unshrunk_near && self.order.len() < m && self.active_max_h < 10.0 * tol {
                    self.unshrunk_near = true;
                    self.unshrink();
                    self.scan();
                }
                self.since_shrink += k;
                if self.since_shrink >= shrink_every {
                    self.since_shrink = 0;
                    // The recorded changes reach every row before a row leaves the active set
                    // (a row that got some of them directly must not get them twice).
                    self.sync();
                    let before = self.order.len();
                    self.shrink(self.active_max_h);
                    if self.order.len() != before {
                        self.rebuild_compact();
                        self.scan();
                    }
                }
            }
        }
    }

    /// Shrinking after a sweep of a cyclic rule; returns whether that sweep visited every kept
    /// coordinate (only such a sweep may certify `max|h| < δ`).
    pub(super) fn shrink_after_sweep(&mut self) -> bool {
        let full = self.order.len() == self.kept.len();
        let mut sweep_max: f64 = 0.0;
        for &i in &self.order {
            sweep_max = fmath::max(self.h[i].abs(), sweep_max);
            if self.h[i].is_nan() {
                return full;
            }
        }
        let tol = self.cfg.tol;
        if sweep_max < tol {
            if !full {
                self.unshrink();
            }
        } else if !full && !self.unshrunk_near && sweep_max < 10.0 * tol {
            self.unshrunk_near = true;
            self.unshrink();
        } else {
            self.revisit_set_aside();
            self.shrink(sweep_max);
        }
        full
    }

    /// `z = Kc` afresh after a sweep: every sweep for features (from `w`), every
    /// [`REFRESH_EVERY`] sweeps otherwise, so rounding in the incremental updates cannot drift.
    pub(super) fn refresh_z(&mut self) {
        match &self.problem.op {
            Operator::Features { x, .. } => self.z.gemv(1.0, x, &self.w, 0.0),
            Operator::Gram(_) => {
                if self.sweep.is_multiple_of(REFRESH_EVERY) {
                    let mut z = DVector::zeros(self.problem.n());
                    self.problem.kc_into(&self.c, &mut z);
                    self.z = z;
                }
            }
            Operator::Rows { .. } => {
                if self.sweep.is_multiple_of(REFRESH_EVERY) {
                    // The arithmetic of `kc_into` (Σ c_j k_j in index order), rows from the cache.
                    let p = &self.problem;
                    let mut z = DVector::zeros(p.n());
                    let rows = self.rows.as_mut().expect("computed rows have a cache");
                    for j in 0..p.n() {
                        if self.c[j] != 0.0 {
                            z.axpy(self.c[j], rows.get(j, |k, out| p.kernel_row_into(k, out)), 1.0);
                        }
                    }
                    self.z = z;
                }
            }
        }
    }
}
