//! The row pass of Algorithm 2.1 (paper A: the gradient `∇Λ(α) = X J_q(Xᵀα) − y + α/γ`
//! with the products `Xᵀ∇Λ(α)` and `Xᵀα` of the same pass; see [`super::DualLp`]): one
//! software-pipelined sweep over the rows of X, compiled by `pulp` for the CPU's vector unit.

/// Rows of X per block of the row pass ([`super::DualLp`]'s `refresh`). 4, not 8 (issue 21): at d = 10⁵
/// a block of 8 rows (6.4 MB) outgrows a 4 MB L2 before its second read; 4 rows were 12–17 % faster
/// per iteration on a loaded machine at d = 10⁴ and 10⁵ (docs/benchmarks.md). Same bits: every
/// element still adds the rows in order.
const ROWS: usize = 4;
/// Columns per tile of the row pass: two tiles of 4 KB (`Xᵀ∇Λ`, `Xᵀα`) held in L1.
const TILE: usize = 512;

/// Four-lane arithmetic for the row pass: one AVX2 register ([`Wide`]) or four scalars
/// ([`Narrow`], which the compiler pairs into SSE2 / simd128 registers). Lane `l` of a chunk is
/// element `4c + l`; both run the same IEEE operations in the same order, so the same bits.
trait Quad: Copy {
    /// Four doubles.
    type T: Copy;
    fn zero(self) -> Self::T;
    fn splat(self, x: f64) -> Self::T;
    fn add(self, a: Self::T, b: Self::T) -> Self::T;
    fn mul(self, a: Self::T, b: Self::T) -> Self::T;
    /// `s` (a length that is a multiple of 4) as chunks of four.
    fn chunks(s: &[f64]) -> &[Self::T];
    fn chunks_mut(s: &mut [f64]) -> &mut [Self::T];
    fn lanes(a: Self::T) -> [f64; 4];
}

/// [`Quad`] on a `pulp` vector of exactly four lanes (AVX2).
#[derive(Clone, Copy)]
struct Wide<S>(S);

impl<S: pulp::Simd> Quad for Wide<S> {
    type T = S::f64s;
    #[inline(always)]
    fn zero(self) -> S::f64s {
        self.0.splat_f64s(0.0)
    }
    #[inline(always)]
    fn splat(self, x: f64) -> S::f64s {
        self.0.splat_f64s(x)
    }
    #[inline(always)]
    fn add(self, a: S::f64s, b: S::f64s) -> S::f64s {
        self.0.add_f64s(a, b)
    }
    #[inline(always)]
    fn mul(self, a: S::f64s, b: S::f64s) -> S::f64s {
        self.0.mul_f64s(a, b)
    }
    #[inline(always)]
    fn chunks(s: &[f64]) -> &[S::f64s] {
        S::as_simd_f64s(s).0
    }
    #[inline(always)]
    fn chunks_mut(s: &mut [f64]) -> &mut [S::f64s] {
        S::as_mut_simd_f64s(s).0
    }
    #[inline(always)]
    fn lanes(a: S::f64s) -> [f64; 4] {
        let mut out = [0.0f64; 4];
        S::as_mut_simd_f64s(&mut out).0[0] = a;
        out
    }
}

/// [`Quad`] on four scalars.
#[derive(Clone, Copy)]
struct Narrow;

impl Quad for Narrow {
    type T = [f64; 4];
    #[inline(always)]
    fn zero(self) -> [f64; 4] {
        [0.0; 4]
    }
    #[inline(always)]
    fn splat(self, x: f64) -> [f64; 4] {
        [x; 4]
    }
    #[inline(always)]
    fn add(self, a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]
    }
    #[inline(always)]
    fn mul(self, a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        [a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3]]
    }
    #[inline(always)]
    fn chunks(s: &[f64]) -> &[[f64; 4]] {
        s.as_chunks::<4>().0
    }
    #[inline(always)]
    fn chunks_mut(s: &mut [f64]) -> &mut [[f64; 4]] {
        s.as_chunks_mut::<4>().0
    }
    #[inline(always)]
    fn lanes(a: [f64; 4]) -> [f64; 4] {
        a
    }
}

/// One pass over the rows of X for [`super::DualLp`]'s `refresh`: `r = Xw − y`, `∇Λ = r + α/γ`,
/// `Xᵀ∇Λ` and `Xᵀα`. A `pulp` operation, so that `pulp::Arch::dispatch` compiles it for the CPU's
/// vector unit (issue 21 §2); every helper it calls is `#[inline(always)]` for that reason.
///
/// Software-pipelined (issue 21, session 11): stage `s` reads block `s` of [`ROWS`] rows from
/// memory for its dot products `⟨x_i, w⟩` and its `α_i·x_i` (α is known before the pass), and in
/// the same sweep over the columns re-reads block `s − 1` (from cache) for `∇Λ(α)_i·x_i`, whose
/// coefficients that block's finished dot products gave. The memory stream never pauses for the
/// `Xᵀ∇Λ` updates, and each row is read from memory once.
///
/// Same bits as the row-by-row loop: each dot product keeps four accumulators, accumulator `l`
/// adding `x[4c + l]·w[4c + l]` for c = 0, 1, … (a multiplication, then an addition: no fused
/// multiply-add), combined as `(a₀ + a₁) + (a₂ + a₃)`, then the last `d mod 4` terms in order; each
/// element of `Xᵀ∇Λ` and `Xᵀα` adds the rows in order i = 0, 1, …. The same IEEE operations in the
/// same order on every path (AVX2, SSE2, simd128): the same bits natively and in wasm.
pub(super) struct RowPass<'a> {
    pub(super) data: &'a [f64],
    pub(super) d: usize,
    pub(super) w: &'a [f64],
    pub(super) y: &'a [f64],
    pub(super) alpha: &'a [f64],
    pub(super) gamma: f64,
    pub(super) r: &'a mut [f64],
    pub(super) grad: &'a mut [f64],
    pub(super) xtg: &'a mut [f64],
    pub(super) xta: &'a mut [f64],
}

impl pulp::WithSimd for RowPass<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) {
        if S::F64_LANES == 4 {
            self.run(Wide(simd));
        } else {
            self.run(Narrow);
        }
    }
}

impl RowPass<'_> {
    #[inline(always)]
    fn run<Q: Quad>(mut self, q: Q) {
        let n = self.r.len();
        let blocks = n / ROWS;
        // Stage s: block s's first read, block s − 1's second.
        let mut prev: Option<(usize, [f64; ROWS])> = None;
        for s in 0..=blocks {
            let next = (s < blocks).then_some(s * ROWS);
            let dots = self.stage::<Q, ROWS>(q, prev, next);
            prev = next.map(|i0| (i0, self.gradient(i0, dots)));
        }
        // The last n mod ROWS rows one at a time (the same order: rows i = 0, 1, … into each sum).
        for i in blocks * ROWS..n {
            let dots = self.stage::<Q, 1>(q, None, Some(i));
            let g = self.gradient(i, dots);
            self.stage::<Q, 1>(q, Some((i, g)), None);
        }
    }

    /// `r_i = ⟨x_i, w⟩ − y_i` and `∇Λ(α)_i = r_i + α_i/γ` for rows `i0 .. i0 + B`; returns the
    /// gradient coordinates.
    #[inline(always)]
    fn gradient<const B: usize>(&mut self, i0: usize, dots: [f64; B]) -> [f64; B] {
        let mut gs = [0.0f64; B];
        for k in 0..B {
            let i = i0 + k;
            let ri = dots[k] - self.y[i];
            let gi = ri + self.alpha[i] / self.gamma;
            self.r[i] = ri;
            self.grad[i] = gi;
            gs[k] = gi;
        }
        gs
    }

    /// One sweep over the columns, tile by tile: for the rows `cur = (i0, g)` (already read
    /// once), `Xᵀ∇Λ += Σ_k g_k x_{i0+k}`; for the rows starting at `next`, their dot products with
    /// `w` (returned) and `Xᵀα += Σ_k α_{i} x_{i}`. Each element of a sum takes the rows in order,
    /// held in a register across the block.
    #[inline(always)]
    fn stage<Q: Quad, const B: usize>(
        &mut self,
        q: Q,
        cur: Option<(usize, [f64; B])>,
        next: Option<usize>,
    ) -> [f64; B] {
        let (d, data, w) = (self.d, self.data, self.w);
        let d4 = d / 4 * 4;
        let rows_of = |i0: usize| -> [&[f64]; B] {
            std::array::from_fn(|k| &data[(i0 + k) * d..(i0 + k + 1) * d])
        };
        let next = next.map(|i0| {
            let als: [f64; B] = std::array::from_fn(|k| self.alpha[i0 + k]);
            (rows_of(i0), als)
        });
        let cur = cur.map(|(i0, gs)| (rows_of(i0), gs));
        let mut acc = [q.zero(); B];
        for t0 in (0..d4).step_by(TILE) {
            let t1 = (t0 + TILE).min(d4);
            if let Some((rows, als)) = &next {
                let wt = Q::chunks(&w[t0..t1]);
                let za = Q::chunks_mut(&mut self.xta[t0..t1]);
                let xs: [&[Q::T]; B] = std::array::from_fn(|k| Q::chunks(&rows[k][t0..t1]));
                let av = als.map(|a| q.splat(a));
                for (c, (a, &wv)) in za.iter_mut().zip(wt).enumerate() {
                    let mut z = *a;
                    for k in 0..B {
                        let x = xs[k][c];
                        acc[k] = q.add(acc[k], q.mul(x, wv));
                        z = q.add(z, q.mul(av[k], x));
                    }
                    *a = z;
                }
            }
            if let Some((rows, gs)) = &cur {
                let zg = Q::chunks_mut(&mut self.xtg[t0..t1]);
                let xs: [&[Q::T]; B] = std::array::from_fn(|k| Q::chunks(&rows[k][t0..t1]));
                let gv = gs.map(|g| q.splat(g));
                for (c, g) in zg.iter_mut().enumerate() {
                    let mut z = *g;
                    for k in 0..B {
                        z = q.add(z, q.mul(gv[k], xs[k][c]));
                    }
                    *g = z;
                }
            }
        }
        // The last d mod 4 columns, in order.
        let mut dots = [0.0f64; B];
        if let Some((rows, als)) = &next {
            for k in 0..B {
                let l = Q::lanes(acc[k]);
                let mut s = (l[0] + l[1]) + (l[2] + l[3]);
                for (x, y) in rows[k][d4..].iter().zip(&w[d4..]) {
                    s += x * y;
                }
                dots[k] = s;
            }
            for (j, a) in (d4..).zip(&mut self.xta[d4..]) {
                let mut z = *a;
                for k in 0..B {
                    z += als[k] * rows[k][j];
                }
                *a = z;
            }
        }
        if let Some((rows, gs)) = &cur {
            for (j, g) in (d4..).zip(&mut self.xtg[d4..]) {
                let mut z = *g;
                for k in 0..B {
                    z += gs[k] * rows[k][j];
                }
                *g = z;
            }
        }
        dots
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulp::WithSimd;

    /// The row pass as the plain row-by-row loop it replaces: for each row in order, its dot
    /// product with four accumulators (`(a₀ + a₁) + (a₂ + a₃)`, then the tail in order), then
    /// `Xᵀ∇Λ += g_i x_i` and `Xᵀα += α_i x_i` element by element.
    #[allow(clippy::type_complexity)]
    fn reference(
        data: &[f64],
        d: usize,
        w: &[f64],
        y: &[f64],
        alpha: &[f64],
        gamma: f64,
    ) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
        let n = y.len();
        let (mut r, mut g) = (vec![0.0; n], vec![0.0; n]);
        let (mut xtg, mut xta) = (vec![0.0; d], vec![0.0; d]);
        for i in 0..n {
            let x = &data[i * d..(i + 1) * d];
            let mut acc = [0.0f64; 4];
            let d4 = d / 4 * 4;
            for j in 0..d4 {
                acc[j % 4] += x[j] * w[j];
            }
            let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
            for j in d4..d {
                s += x[j] * w[j];
            }
            r[i] = s - y[i];
            g[i] = r[i] + alpha[i] / gamma;
            for j in 0..d {
                xtg[j] += g[i] * x[j];
                xta[j] += alpha[i] * x[j];
            }
        }
        (r, g, xtg, xta)
    }

    /// The pipelined row pass gives the reference's bits on every path (the CPU's vector unit,
    /// a generic 4-lane vector, four scalars), for shapes that exercise the leftover rows
    /// (n mod 4), the leftover columns (d mod 4) and several column tiles.
    #[test]
    fn row_pass_matches_the_row_by_row_loop_bit_for_bit() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for &(n, d) in &[(1, 1), (3, 5), (4, 4), (5, 3), (9, 1030), (13, 2 * TILE + 7), (8, TILE)] {
            let data: Vec<f64> = (0..n * d).map(|_| next()).collect();
            let w: Vec<f64> = (0..d).map(|_| next() * 1e3).collect();
            let y: Vec<f64> = (0..n).map(|_| next()).collect();
            let alpha: Vec<f64> = (0..n).map(|_| next()).collect();
            let gamma = 0.37;
            let want = reference(&data, d, &w, &y, &alpha, gamma);
            for path in 0..3 {
                let (mut r, mut g) = (vec![0.0; n], vec![0.0; n]);
                let (mut xtg, mut xta) = (vec![0.0; d], vec![0.0; d]);
                let pass = RowPass {
                    data: &data,
                    d,
                    w: &w,
                    y: &y,
                    alpha: &alpha,
                    gamma,
                    r: &mut r,
                    grad: &mut g,
                    xtg: &mut xtg,
                    xta: &mut xta,
                };
                match path {
                    0 => pulp::Arch::new().dispatch(pass),
                    1 => pass.with_simd(pulp::Scalar256b),
                    _ => pass.with_simd(pulp::Scalar::new()),
                }
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                let got = [bits(&r), bits(&g), bits(&xtg), bits(&xta)];
                let exp = [bits(&want.0), bits(&want.1), bits(&want.2), bits(&want.3)];
                assert_eq!(got, exp, "n = {n}, d = {d}, path {path}");
            }
        }
    }
}
