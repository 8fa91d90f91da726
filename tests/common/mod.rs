//! Helpers shared by the native test files that run `kplay` as a process: a temporary
//! directory, the binary, and the failure check (non-zero exit, a message, never a panic).
#![allow(dead_code)]

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

