//! Combinatorics of the symmetry classes: one value of the Gram tensor per sorted tuple
//! `i1 ≤ … ≤ iq`, ranked in colex order by the combinatorial number system, with the number of
//! ordered tuples in each class.

/// Binomial coefficient `C(n, k)`, `None` on u64 overflow.
pub fn binomial(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * (n - i) as u128 / (i + 1) as u128;
        if r > u64::MAX as u128 {
            return None;
        }
    }
    Some(r as u64)
}

/// Number of symmetry classes of an order-q tensor on n points: `C(n + q − 1, q)`.
pub fn symmetry_classes(n: usize, q: usize) -> Option<u64> {
    binomial(n.checked_add(q)?.checked_sub(1)? as u64, q as u64)
}

/// Rank of a sorted tuple `i1 ≤ … ≤ iq` (0-based) in colex order:
/// `Σ_j C(i_j + j − 1, j)` (j = 1..q), the combinatorial number system applied to the strictly
/// increasing `i_j + j − 1`. `None` if the tuple is not sorted or the rank overflows.
pub fn rank(sorted: &[usize]) -> Option<u64> {
    let mut r: u64 = 0;
    for (j, &i) in sorted.iter().enumerate() {
        if j > 0 && sorted[j - 1] > i {
            return None;
        }
        r = r.checked_add(binomial((i + j) as u64, (j + 1) as u64)?)?;
    }
    Some(r)
}

/// Inverse of [`rank`]: the sorted q-tuple of rank `r`.
pub fn unrank(mut r: u64, q: usize) -> Vec<usize> {
    let mut t = vec![0usize; q];
    for j in (0..q).rev() {
        let k = (j + 1) as u64;
        // Largest c ≥ j with C(c, k) ≤ r (C(j, k) = 0 ≤ r always).
        let fits = |c: u64| binomial(c, k).is_some_and(|b| b <= r);
        let mut lo = j as u64;
        let mut hi = lo + 1;
        while fits(hi) {
            lo = hi;
            hi = hi.saturating_mul(2);
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        r -= binomial(lo, k).unwrap_or(0);
        t[j] = lo as usize - j;
    }
    t
}

/// Multiplicity of a sorted tuple: how many ordered tuples it stands for, `len!/Π c_i!`.
pub fn multiplicity(sorted: &[usize]) -> f64 {
    let mut m = factorial(sorted.len());
    for run in runs(sorted) {
        m /= factorial(run);
    }
    m
}

pub(super) fn factorial(k: usize) -> f64 {
    (1..=k).map(|i| i as f64).product()
}

/// Lengths of the runs of equal values in a sorted slice.
pub(super) fn runs(sorted: &[usize]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i + 1;
        while j < sorted.len() && sorted[j] == sorted[i] {
            j += 1;
        }
        out.push(j - i);
        i = j;
    }
    out
}

/// Advance a sorted tuple with entries < n to the next one in colex order; false at the end.
pub(super) fn next_sorted(t: &mut [usize], n: usize) -> bool {
    let len = t.len();
    for j in 0..len {
        let cap = if j + 1 < len { t[j + 1] } else { n - 1 };
        if t[j] < cap {
            t[j] += 1;
            for l in t.iter_mut().take(j) {
                *l = 0;
            }
            return true;
        }
    }
    false
}
