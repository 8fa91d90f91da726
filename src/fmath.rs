//! The transcendental functions of every computation that a page and `kplay` must agree on bit
//! for bit, through the pure-Rust `libm` crate: the same code natively and in wasm. (Rust's
//! `f64::exp`, `ln`, `powf`, … call the platform's C library natively — glibc here — and a
//! `libm` port in wasm; the two differ in the last bit now and then, and a Gaussian Gram
//! matrix or a root solve then ends one ulp apart.) `sqrt` and `powi` need no wrapper: IEEE
//! square root is exact everywhere, and `powi` lowers to the same multiplication chain.

/// `eˣ`.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// `ln x`.
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// `xʸ`.
#[inline]
pub fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// `ln(1 + x)`, accurate near 0.
#[inline]
pub fn ln_1p(x: f64) -> f64 {
    libm::log1p(x)
}

/// `eˣ − 1`, accurate near 0.
#[inline]
pub fn exp_m1(x: f64) -> f64 {
    libm::expm1(x)
}

/// `∛x`.
#[inline]
pub fn cbrt(x: f64) -> f64 {
    libm::cbrt(x)
}

/// `log₁₀ x`.
#[inline]
pub fn log10(x: f64) -> f64 {
    libm::log10(x)
}

/// `a.max(b)` for a `b` that is not NaN (a NaN `a` gives `b`, as `f64::max` does): one comparison
/// and a select. wasm has no instruction with `f64::max`'s semantics (IEEE maxNum), so rustc
/// lowers `f64::max` to a call to `fmax` there — a call per element in a scan, where this
/// vectorizes (`f64x2.pmax`). Put the operand that may be NaN first.
#[inline(always)]
pub fn max(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// `a.min(b)` for a `b` that is not NaN (a NaN `a` gives `b`); see [`max`].
#[inline(always)]
pub fn min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}
