//! Helpers shared by the native test files that run `kplay` as a process: a temporary
//! directory, the binary, and the failure check (non-zero exit, a message, never a panic).
#![allow(dead_code)]

pub mod sweeps;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The `kplay` binary Cargo built for this test run.
pub const KPLAY: &str = env!("CARGO_BIN_EXE_kplay");

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("kplay-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn kplay<P: AsRef<std::ffi::OsStr>>(args: &[P], cwd: &Path) -> Output {
    Command::new(KPLAY).args(args).current_dir(cwd).output().expect("kplay runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A failure: non-zero exit, nothing on stdout, a message on stderr containing each needle.
pub fn assert_fails(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert!(!o.status.success(), "exit status {:?}, stderr {err}", o.status);
    assert!(o.stdout.is_empty(), "stdout not empty: {}", stdout(o));
    assert!(!err.trim().is_empty(), "no message on stderr");
    assert!(!err.contains("panicked"), "panic: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
}

/// Golden-section search for the minimum of a convex function on `[a, b]` (finite ends):
/// `(argmin, min)`. The ends are compared with the interior point found, since a minimizer on
/// the boundary of a box is common. The brute-force reference of the solvers' 1-D and 2-D steps.
pub fn golden_section(f: impl Fn(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let (lo, hi) = (a, b);
    let (mut a, mut b) = (a, b);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut x1 = b - g * (b - a);
    let mut x2 = a + g * (b - a);
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..300 {
        if b - a <= 1e-14 * (1.0 + a.abs() + b.abs()) {
            break;
        }
        if f1 <= f2 {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = f(x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = f(x2);
        }
    }
    let mid = 0.5 * (a + b);
    let mut best = (mid, f(mid));
    for p in [lo, hi] {
        let v = f(p);
        if v < best.1 {
            best = (p, v);
        }
    }
    best
}

/// Paper C: the largest exact step `|S_i(v_i) − c_i|` over the kept coordinates, with `z = Kc`
/// formed afresh from c (not a solver's maintained z): what a certified stop must have below δ.
pub fn fresh_max_step(
    p: &kernel_playground::solvers::fixed_point::RegularizationProblem,
    c: &nalgebra::DVector<f64>,
) -> f64 {
    let z = p.kc(c);
    let d = p.diagonal();
    (0..p.n())
        .filter(|&i| d[i] > 0.0)
        .map(|i| {
            let a = 1.0 / d[i];
            (p.loss().neg_resolvent(p.y()[i], z[i] * a - c[i], a, p.lambda()) - c[i]).abs()
        })
        .fold(0.0, f64::max)
}
