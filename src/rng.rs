//! Seeded, platform-independent random numbers.
//!
//! ChaCha8 gives the same bit stream everywhere; the normal deviates use Box–Muller with the
//! pure-Rust `libm` functions, so the generated data are bit-identical natively and in wasm
//! (the system `ln`/`cos` of glibc and the ones compiled into wasm may differ in the last bit).

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded generator of uniform and standard normal deviates.
pub struct Rng {
    inner: ChaCha8Rng,
    spare: Option<f64>,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self { inner: ChaCha8Rng::seed_from_u64(seed), spare: None }
    }

    /// Uniform on [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.inner.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in 0..n (n ≥ 1), by rejection so there is no modulo bias.
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n >= 1);
        let n = n as u64;
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let r = self.inner.next_u64();
            if r < zone {
                return (r % n) as usize;
            }
        }
    }

    /// Standard normal deviate (Box–Muller, both values used).
    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        // u1 in (0, 1] so the logarithm is finite.
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        let r = libm::sqrt(-2.0 * libm::log(u1));
        let t = 2.0 * std::f64::consts::PI * u2;
        self.spare = Some(r * libm::sin(t));
        r * libm::cos(t)
    }

    /// `k` distinct indices from 0..n in random order (partial Fisher–Yates).
    pub fn choose_distinct(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..n).collect();
        let k = k.min(n);
        for i in 0..k {
            let j = i + self.below(n - i);
            idx.swap(i, j);
        }
        idx.truncate(k);
        idx
    }
}
