//! The resource budget: every quantity a link, a form or a file decides and that decides
//! memory or time (n, d, n·d, n², a Gram tensor, a Hessian, the trace, hand-placed points, a
//! CSV file's size, columns and lines) is checked here *before* anything is allocated, with a
//! message naming the field, the need and the limit:
//! "dual Newton needs an n × n Hessian: n = 25 000 → 4.7 GiB; the limit in the page is 1 GiB".
//!
//! Two budgets: [`Budget::PAGE`] for a phone-class browser tab (memory, and work a frame can
//! do on the main thread), and [`Budget::CLI`] for the native command line, whose memory limit
//! `kplay --budget-gib G` raises. The budget in force is process-wide ([`active`]): the page
//! on wasm32, the CLI natively, unless [`set_active`] replaced it.
//!
//! Traces are bounded too: [`push_bounded`] keeps the first and the last record and thins the
//! older ones by halves, so any number of iterations runs in flat memory.

use std::sync::RwLock;

use crate::error::{KpError, Result};

/// Limits on what user input may make the program allocate or compute.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Where the limits apply, for messages: "in the page", "of the CLI".
    pub scope: &'static str,
    /// How to raise the limits that scale with the memory limit ([`Budget::bytes`], the data
    /// cells, the kernel's n, the work of a step, the CSV bytes), appended to their messages
    /// after the scope: " (raise it with --budget-gib)" on the CLI, empty elsewhere. The other
    /// limits (n, d, points, trace, CSV shape, a lesson's size) are fixed, and their messages
    /// say no such thing (issue 36: a 300 KB lesson was told to use `--budget-gib`).
    pub raise: &'static str,
    /// Largest single user-sized allocation (a matrix, a Hessian, a Gram matrix or tensor), bytes.
    pub bytes: u64,
    /// Largest number of data values n·d generated or read.
    pub cells: u64,
    /// Largest number of samples n (the page redraws and sums over all n every frame).
    pub n: usize,
    /// Largest number of features d (paper A draws d spikes; the primal solvers prox d values per step).
    pub d: usize,
    /// Largest n for a method that holds an n × n kernel (Gram) matrix in this scope: papers C
    /// and D build it in one task on the page's main thread, so the page's value is a time limit.
    pub kernel_n: usize,
    /// Largest work of one iteration (floating-point operations, e.g. n²·d for a dual Newton
    /// Hessian) — on the page, one step must fit in a frame. The CLI has no such limit (its
    /// value is infinite): time is never a reason to refuse a spec there (`--time-limit` ends a
    /// run cleanly instead). No limit applies to `max_iter × cost`: an iteration cap is a
    /// safety net, not a prediction (issue 20).
    pub step_flops: f64,
    /// Records a trace keeps (older ones are thinned by [`push_bounded`]).
    pub trace: usize,
    /// Largest hand-placed point list.
    pub points: usize,
    /// Largest CSV file, bytes.
    pub csv_bytes: u64,
    /// Largest number of CSV columns.
    pub csv_columns: usize,
    /// Longest CSV line, bytes.
    pub csv_line_bytes: usize,
}

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

impl Budget {
    /// A phone-class browser tab: ≤ 1 GiB for any one allocation, and what the main thread can
    /// build within about 200 ms (measured in docs/robustness.md).
    pub const PAGE: Budget = Budget {
        scope: "in the page",
        raise: "",
        bytes: GIB,
        cells: 1_000_000,
        n: 20_000,
        d: 200_000,
        kernel_n: 2_000,
        step_flops: 1e8,
        trace: 10_000,
        points: 2_500,
        csv_bytes: 32 * MIB,
        csv_columns: 10_000,
        csv_line_bytes: MIB as usize,
    };

    /// A page's Web Worker (paper A's presets and Gram-tensor builds): the page's memory limit,
    /// but no frame to fit in, so paper-scale data (200 × 100 000) and long runs are allowed.
    pub const PAGE_WORKER: Budget = Budget {
        scope: "in the page's worker",
        raise: "",
        cells: 25_000_000,
        step_flops: 2e10,
        trace: 10_000,
        ..Budget::CLI_BASE
    };

    const CLI_BASE: Budget = Budget {
        scope: "",
        raise: "",
        bytes: GIB,
        cells: 25_000_000,
        n: 25_000_000,
        d: 2_000_000,
        kernel_n: 2_500,
        step_flops: f64::INFINITY,
        trace: 100_000,
        points: 200_000,
        csv_bytes: 32 * MIB,
        csv_columns: 10_000,
        csv_line_bytes: MIB as usize,
    };

    /// The native CLI: 8 GiB for any one allocation (raise with `kplay --budget-gib`).
    pub const CLI: Budget = Budget {
        scope: "of the CLI",
        raise: " (raise it with --budget-gib)",
        bytes: 8 * GIB,
        cells: 25_000_000,
        n: 25_000_000,
        d: 2_000_000,
        kernel_n: 30_000,
        step_flops: f64::INFINITY,
        trace: 100_000,
        points: 200_000,
        csv_bytes: 2 * GIB,
        csv_columns: 1_000_000,
        csv_line_bytes: 64 * MIB as usize,
    };

    /// The CLI budget with the memory limit set to `gib` GiB (the `--budget-gib` flag): the
    /// byte, cell, kernel-n and work limits scale with it; the trace and CSV shape limits stay.
    pub fn cli_with_gib(gib: f64) -> Result<Budget> {
        if !(gib.is_finite() && gib > 0.0 && gib <= 1e6) {
            return Err(param(
                "--budget-gib",
                format!("a memory limit in GiB between 0 and 10⁶ (got {gib})"),
            ));
        }
        let f = gib / 8.0;
        let c = Budget::CLI;
        Ok(Budget {
            bytes: (gib * GIB as f64) as u64,
            cells: ((c.cells as f64) * f).max(1.0) as u64,
            kernel_n: ((c.kernel_n as f64) * f.sqrt()).max(1.0) as usize,
            step_flops: c.step_flops * f,
            csv_bytes: ((c.csv_bytes as f64) * f.max(1.0)) as u64,
            ..c
        })
    }

    /// The CLI budget for this machine: [`Budget::CLI`] (8 GiB) unless the memory the machine
    /// has available (`MemAvailable` in /proc/meminfo) or the process's address-space limit
    /// (`ulimit -v`, /proc/self/limits) is lower; then 80 % of the lower one, scaled as
    /// [`Self::cli_with_gib`] scales. Elsewhere than Linux, [`Budget::CLI`].
    pub fn cli_for_machine() -> Budget {
        let avail = [machine_available_bytes(), address_space_limit_bytes()]
            .into_iter()
            .flatten()
            .map(|b| 0.8 * b as f64)
            .fold(f64::INFINITY, f64::min);
        if avail < Budget::CLI.bytes as f64 {
            let gib = (avail / GIB as f64).max(1.0 / 1024.0);
            Budget::cli_with_gib(gib).unwrap_or(Budget::CLI)
        } else {
            Budget::CLI
        }
    }

    /// `need` bytes for `what` (`detail` says how they come about), within [`Self::bytes`].
    pub fn bytes(&self, field: &'static str, what: &str, detail: &str, need: f64) -> Result<()> {
        if need.is_finite() && need <= self.bytes as f64 {
            return Ok(());
        }
        Err(param(
            field,
            format!(
                "{what}: {detail} → {}; the limit {}{} is {}",
                bytes_text(need),
                self.scope,
                self.raise,
                bytes_text(self.bytes as f64)
            ),
        ))
    }

    /// An n × n matrix of f64 for `what` (e.g. "dual Newton needs an n × n Hessian").
    pub fn square(&self, field: &'static str, what: &str, n: usize) -> Result<()> {
        let need = 8.0 * (n as f64) * (n as f64);
        self.bytes(field, what, &format!("n = {}", group(n as f64)), need)
    }

    /// A count (`what` = "points", "columns", …) within `limit`.
    pub fn count(&self, field: &'static str, what: &str, value: f64, limit: f64) -> Result<()> {
        if value.is_finite() && value <= limit {
            return Ok(());
        }
        Err(param(
            field,
            format!(
                "{what}: {field} = {}; the limit {} is {}",
                group(value),
                self.scope,
                group(limit)
            ),
        ))
    }

    /// n·d data values (8 bytes each) and d itself.
    pub fn data(&self, n_field: &'static str, n: usize, d: usize) -> Result<()> {
        let cells = (n as f64) * (d as f64);
        if cells > self.cells as f64 {
            return Err(param(
                n_field,
                format!(
                    "the data need n·d = {} · {} = {} values ({}); the limit {}{} is {} values",
                    group(n as f64),
                    group(d as f64),
                    group(cells),
                    bytes_text(8.0 * cells),
                    self.scope,
                    self.raise,
                    group(self.cells as f64)
                ),
            ));
        }
        self.count("n", "the number of samples", n as f64, self.n as f64)?;
        self.count("d", "the number of features", d as f64, self.d as f64)
    }

    /// n for a method keeping an n × n kernel matrix: within [`Self::kernel_n`] and [`Self::bytes`].
    pub fn kernel(&self, field: &'static str, what: &str, n: usize) -> Result<()> {
        self.square(field, what, n)?;
        if n > self.kernel_n {
            return Err(param(
                field,
                format!(
                    "{what}: n = {} → {} kernel entries to build in one task; the limit {}{} is n = {}",
                    group(n as f64),
                    group((n as f64) * (n as f64)),
                    self.scope,
                    self.raise,
                    group(self.kernel_n as f64)
                ),
            ));
        }
        Ok(())
    }

    /// One iteration of `what` costs `flops` operations: within [`Self::step_flops`] (the
    /// page's frame). The number of iterations is not checked: `max_iter` is a cap, and a run
    /// that cannot improve stops by itself (`stalled`).
    pub fn work(&self, field: &'static str, what: &str, flops: f64) -> Result<()> {
        if flops.is_nan() || flops > self.step_flops {
            return Err(param(
                field,
                format!(
                    "{what}: one iteration costs {} operations; the limit {}{} is {}",
                    sci(flops),
                    self.scope,
                    self.raise,
                    sci(self.step_flops)
                ),
            ));
        }
        Ok(())
    }
}

/// `MemAvailable` from /proc/meminfo, in bytes (None where there is no such file).
fn machine_available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The soft address-space limit (`ulimit -v`) from /proc/self/limits, in bytes (None when
/// unlimited or unknown).
fn address_space_limit_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// A `rows × cols` matrix of zeros for `what`, reserved fallibly: when the allocator cannot give
/// the memory (less free memory than the budget allows), a message naming `field` instead of
/// an abort. Call after the budget check ([`Budget::bytes`]).
pub fn zeros(
    field: &'static str,
    what: &str,
    rows: usize,
    cols: usize,
) -> Result<nalgebra::DMatrix<f64>> {
    let len = rows.checked_mul(cols).ok_or_else(|| {
        param(field, format!("{what}: {rows} × {cols} entries overflow the address space"))
    })?;
    let mut v: Vec<f64> = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        param(
            field,
            format!(
                "{what}: {} × {} entries ({}) could not be allocated: the machine has less free memory than that",
                group(rows as f64),
                group(cols as f64),
                bytes_text(8.0 * len as f64)
            ),
        )
    })?;
    v.resize(len, 0.0);
    Ok(nalgebra::DMatrix::from_vec(rows, cols, v))
}

static ACTIVE: RwLock<Option<Budget>> = RwLock::new(None);

/// The budget in force: the one [`set_active`] installed, else [`Budget::PAGE`] on wasm32 and
/// [`Budget::CLI`] natively.
pub fn active() -> Budget {
    let set = ACTIVE.read().map(|g| *g).unwrap_or(None);
    set.unwrap_or(if cfg!(target_arch = "wasm32") { Budget::PAGE } else { Budget::CLI })
}

/// Install a budget for the whole process (the CLI's `--budget-gib`, tests of the page limits).
pub fn set_active(b: Budget) {
    if let Ok(mut g) = ACTIVE.write() {
        *g = Some(b);
    }
}

/// Append `rec` to a trace holding at most `cap` records (cap ≥ 4): when full, the records
/// between the first and the two newest are thinned to every other one, so the first record
/// (the start), the two newest (solvers compare the last two) and an evenly thinned history
/// remain. Amortized O(1).
pub fn push_bounded<T>(trace: &mut Vec<T>, rec: T, cap: usize) {
    trace.push(rec);
    let cap = cap.max(4);
    if trace.len() > cap {
        let last = trace.len() - 1;
        let mut k = 0usize;
        trace.retain(|_| {
            let keep = k == 0 || k + 1 >= last || k.is_multiple_of(2);
            k += 1;
            keep
        });
    }
}

fn param(name: &'static str, reason: String) -> KpError {
    KpError::Parameter { name, reason }
}

/// `25000` → "25 000" (thin groups of three); non-integers and huge values in scientific notation.
pub fn group(v: f64) -> String {
    if !v.is_finite() || v.abs() >= 1e15 || v.fract() != 0.0 {
        return sci(v);
    }
    let s = format!("{}", v.abs() as u64);
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(ch);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A user's number as typed, but in scientific notation when huge or tiny ("1e308", not 309 digits).
pub fn num(v: f64) -> String {
    if v.is_finite() && v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-4) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn sci(v: f64) -> String {
    if v.is_finite() && v.abs() < 1e6 {
        format!("{v}")
    } else {
        format!("{v:.1e}")
    }
}

/// Bytes as "512 MiB", "4.7 GiB", "8.0 TiB".
pub fn bytes_text(b: f64) -> String {
    if !b.is_finite() {
        return "an unbounded amount".into();
    }
    let units = [("TiB", 1u64 << 40), ("GiB", GIB), ("MiB", MIB), ("KiB", 1 << 10)];
    for (name, size) in units {
        if b >= size as f64 {
            let v = b / size as f64;
            return if v.fract() == 0.0 {
                format!("{v:.0} {name}")
            } else {
                format!("{v:.1} {name}")
            };
        }
    }
    format!("{b:.0} bytes")
}

/// Largest |coordinate| of a 2-D point or a view window (papers C and D): kernels of points
/// farther out overflow (`e^{‖x‖²}`, `⟨x, x′⟩²`) and a window wider than this is no picture.
pub const COORD_LIMIT: f64 = 1e6;

/// One coordinate of a point: finite and within ±[`COORD_LIMIT`].
pub fn coordinate(field: &'static str, index: usize, v: f64) -> Result<()> {
    if v.is_finite() && v.abs() <= COORD_LIMIT {
        return Ok(());
    }
    Err(param(
        field,
        format!(
            "point {index} has the coordinate {}; coordinates must be finite and within ±{}",
            num(v),
            group(COORD_LIMIT)
        ),
    ))
}

/// A view window `[x_min, x_max, y_min, y_max]`: finite, within ±[`COORD_LIMIT`], and not
/// degenerate (each side wider than 10⁻⁹ of its magnitude, so pixels map to distinct values).
pub fn view_box(field: &'static str, v: &[f64; 4]) -> Result<()> {
    let ok_bounds = v.iter().all(|x| x.is_finite() && x.abs() <= COORD_LIMIT);
    let wide = |a: f64, b: f64| b - a > 1e-9 * a.abs().max(b.abs()).max(1.0);
    if ok_bounds && wide(v[0], v[1]) && wide(v[2], v[3]) {
        return Ok(());
    }
    Err(param(
        field,
        format!(
            "the window [{}, {}, {}, {}] must have finite bounds within ±{} with x_min < x_max and y_min < y_max",
            num(v[0]),
            num(v[1]),
            num(v[2]),
            num(v[3]),
            group(COORD_LIMIT)
        ),
    ))
}

/// Read a text file named by the user (a spec, a CSV `path`) within `limit` bytes, a limit of
/// the budget in force (its message says how to raise it): refused unless it is a regular file
/// (a FIFO or a device would block or never end), and refused at the limit instead of reading
/// on until the memory runs out. One leading UTF-8 byte-order mark is dropped, as the browser's
/// UTF-8 decoding drops it, so a file reads the same in `kplay` and in the page.
pub fn read_text_file(path: &std::path::Path, what: &str, limit: u64) -> Result<String> {
    let b = active();
    let rule = format!("the limit {}{} is {}", b.scope, b.raise, bytes_text(limit as f64));
    read_limited(path, what, limit, &rule)
}

/// [`read_text_file`] for a file whose size limit is fixed, not the budget's (a lesson file:
/// 256 KiB in the page and in `kplay` alike); `rule` says the limit, e.g. "a lesson file is at
/// most 256 KiB (a fixed limit of the lesson format)".
pub fn read_text_file_fixed(
    path: &std::path::Path,
    what: &str,
    limit: u64,
    rule: &str,
) -> Result<String> {
    read_limited(path, what, limit, rule)
}

fn read_limited(path: &std::path::Path, what: &str, limit: u64, rule: &str) -> Result<String> {
    use std::io::Read;
    let shown = path.display();
    let meta = std::fs::metadata(path)
        .map_err(|e| KpError::Spec(format!("cannot read {what} `{shown}`: {e}")))?;
    if !meta.is_file() {
        return Err(KpError::Spec(format!(
            "{what} `{shown}` is not a regular file (a directory, a FIFO or a device): only plain files are read"
        )));
    }
    if meta.len() > limit {
        return Err(KpError::Spec(format!(
            "{what} `{shown}` has {}; {rule}",
            bytes_text(meta.len() as f64)
        )));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| KpError::Spec(format!("cannot read {what} `{shown}`: {e}")))?;
    let mut text = String::new();
    file.take(limit + 1)
        .read_to_string(&mut text)
        .map_err(|e| KpError::Spec(format!("cannot read {what} `{shown}`: {e}")))?;
    if text.len() as u64 > limit {
        return Err(KpError::Spec(format!(
            "{what} `{shown}` grew past its limit while being read; {rule}"
        )));
    }
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}
