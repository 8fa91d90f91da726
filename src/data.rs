//! Data sets: the seeded sparse-regression generator of paper A (Table 1) and CSV import.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::error::{KpError, Result};
use crate::rng::Rng;

/// Upper bound on n·d for generated or imported data (8 bytes each: 200 MB).
pub const MAX_CELLS: usize = 25_000_000;

/// A regression or classification data set: rows of `x` are the samples.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Design matrix, n × d.
    pub x: DMatrix<f64>,
    /// Targets (or ±1 labels), length n.
    pub y: DVector<f64>,
    /// The generating coefficients `w*`, when the data were synthesized from one.
    pub w_true: Option<DVector<f64>>,
    /// Column names (features only), for CSV data; generated data use `x1..xd`.
    pub feature_names: Vec<String>,
}

impl Dataset {
    /// Number of samples n.
    pub fn n(&self) -> usize {
        self.x.nrows()
    }
    /// Number of features d.
    pub fn d(&self) -> usize {
        self.x.ncols()
    }

    /// A 64-bit FNV-1a digest of the bit patterns of `x`, `y` and `w*`, as 16 hex digits.
    /// Equal digests natively and in wasm mean bit-identical data.
    pub fn digest(&self) -> String {
        let mut h: u64 = 0xcbf29ce484222325;
        let mut feed = |v: f64| {
            for b in v.to_bits().to_le_bytes() {
                h ^= b as u64;
                h = h.wrapping_mul(0x100000001b3);
            }
        };
        self.x.iter().for_each(|&v| feed(v));
        self.y.iter().for_each(|&v| feed(v));
        if let Some(w) = &self.w_true {
            w.iter().for_each(|&v| feed(v));
        }
        format!("{h:016x}")
    }

    /// The data as CSV text: a header `x1,…,xd,y` (or the imported names), one row per sample.
    pub fn to_csv(&self) -> String {
        let mut out = String::with_capacity(self.n() * self.d() * 12);
        for name in &self.feature_names {
            out.push_str(name);
            out.push(',');
        }
        out.push_str("y\n");
        for i in 0..self.n() {
            for j in 0..self.d() {
                // `{:?}` prints the shortest representation that round-trips exactly.
                out.push_str(&format!("{:?},", self.x[(i, j)]));
            }
            out.push_str(&format!("{:?}\n", self.y[i]));
        }
        out
    }
}

/// Paper A's number of samples, ≥ 1: the field its schema declares and the generators check.
pub fn n_field(path: &str, default: f64) -> crate::schema::Field {
    crate::schema::Field::integer(path, "n (number of samples)", default).min(1.0)
}

/// Paper A's number of features, ≥ 1.
pub fn d_field(path: &str, default: f64) -> crate::schema::Field {
    crate::schema::Field::integer(path, "d (number of features)", default).min(1.0)
}

/// The noise level σ of the regression generators (paper A's sparse regression, paper B's
/// sets), in [0, 10⁶]: the field the schemas of papers A and B declare and the generators check.
pub fn sigma_field(path: &str, default: f64) -> crate::schema::Field {
    crate::schema::Field::number(path, "σ (noise level)", default).min(0.0).max(1e6)
}

fn check_size(n: usize, d: usize) -> Result<()> {
    if !n_field("n", 1.0).accepts(n as f64) {
        return Err(KpError::NTooSmall(n));
    }
    if !d_field("d", 1.0).accepts(d as f64) {
        return Err(KpError::DTooSmall(d));
    }
    let cells = n.saturating_mul(d);
    if cells > MAX_CELLS {
        return Err(KpError::DataTooLarge { cells, limit: MAX_CELLS });
    }
    crate::budget::active().data("data.n", n, d)
}

/// Parameters of the sparse-regression generator (paper A, Table 1):
/// `X` standard normal, `w*` with `k` standard-normal non-zeros at random places,
/// `y = X w* + σ ε` with `ε` standard normal.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SparseRegression {
    pub n: usize,
    pub d: usize,
    pub k: usize,
    pub sigma: f64,
    pub seed: u64,
}

impl SparseRegression {
    /// Check the parameters (n, d ≥ 1, k ≤ d, σ ≥ 0, size within [`MAX_CELLS`]).
    pub fn validate(&self) -> Result<()> {
        check_size(self.n, self.d)?;
        if self.k > self.d {
            return Err(KpError::KTooLarge { k: self.k, d: self.d });
        }
        if !sigma_field("sigma", 0.0).accepts(self.sigma) {
            return Err(KpError::SigmaInvalid(self.sigma));
        }
        Ok(())
    }

    /// Draw the data set. The stream order is fixed: `X` row by row, then the support of `w*`,
    /// its values, then the noise; so a seed determines every bit.
    pub fn generate(&self) -> Result<Dataset> {
        self.validate()?;
        let (n, d) = (self.n, self.d);
        let mut rng = Rng::new(self.seed);
        let mut x = DMatrix::<f64>::zeros(n, d);
        for i in 0..n {
            for j in 0..d {
                x[(i, j)] = rng.normal();
            }
        }
        let support = rng.choose_distinct(d, self.k);
        let mut w = DVector::<f64>::zeros(d);
        for &j in &support {
            w[j] = rng.normal();
        }
        let mut y = &x * &w;
        for i in 0..n {
            y[i] += self.sigma * rng.normal();
        }
        Ok(Dataset {
            x,
            y,
            w_true: Some(w),
            feature_names: (1..=d).map(|j| format!("x{j}")).collect(),
        })
    }
}

/// Where a spec's CSV data come from: the file's `text` (what a page holds), or in a `kplay`
/// spec file a `path` relative to the spec, which the CLI reads into `text` before anything runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl CsvSource {
    /// Replace `path` by the file's text through `read` (no-op when the text is there).
    pub fn resolve(&mut self, read: &mut dyn FnMut(&str) -> Result<String>) -> Result<()> {
        if let (None, Some(p)) = (&self.text, &self.path) {
            self.text = Some(read(p)?);
        }
        Ok(())
    }

    /// Parse the text ([`parse_csv`]); without text, a message naming `data.text`.
    pub fn parse(&self) -> Result<Dataset> {
        match (&self.text, &self.path) {
            (Some(t), _) => parse_csv(t),
            (None, Some(p)) => Err(KpError::Parameter {
                name: "data.text",
                reason: format!("the file `{}` was not read (a `path` works in a kplay spec file; a page needs the file itself)", crate::error::clip(p)),
            }),
            (None, None) => Err(KpError::Parameter { name: "data.text", reason: "choose a CSV file (a link does not carry the file)".into() }),
        }
    }
}

/// Parse CSV text: a header row, a column named `y` for the target, every other column a
/// numeric feature. Rejects ragged rows, non-numeric or non-finite cells, and empty files.
pub fn parse_csv(text: &str) -> Result<Dataset> {
    let budget = crate::budget::active();
    budget.count(
        "data.text",
        "the CSV text's size in bytes",
        text.len() as f64,
        budget.csv_bytes as f64,
    )?;
    let longest = text.split('\n').map(str::len).max().unwrap_or(0);
    budget.count(
        "data.text",
        "the CSV's longest line in bytes",
        longest as f64,
        budget.csv_line_bytes as f64,
    )?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = rdr
        .headers()
        .map_err(|e| KpError::Csv(format!("cannot read the header row: {e}")))?
        .clone();
    let names: Vec<String> = headers.iter().map(|s| s.to_string()).collect();
    if names.is_empty() || (names.len() == 1 && names[0].is_empty()) {
        return Err(KpError::Csv(
            "the file is empty: it needs a header row with a `y` column".into(),
        ));
    }
    budget.count(
        "data.text",
        "the CSV's number of columns",
        names.len() as f64,
        budget.csv_columns as f64,
    )?;
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    for (c, name) in names.iter().enumerate() {
        if name.is_empty() {
            return Err(KpError::Csv(format!("column {} of the header has no name", c + 1)));
        }
        if !seen.insert(name.as_str()) {
            return Err(KpError::Csv(format!(
                "the header names column `{}` twice",
                crate::error::clip(name)
            )));
        }
    }
    let y_col = names.iter().position(|h| h == "y").ok_or_else(|| {
        KpError::Csv(format!("no column named `y` in the header ({})", names.join(", ")))
    })?;
    if names.len() < 2 {
        return Err(KpError::Csv("the file needs at least one feature column beside `y`".into()));
    }
    let d = names.len() - 1;
    let mut values: Vec<f64> = Vec::new();
    let mut ys: Vec<f64> = Vec::new();
    for (r, rec) in rdr.records().enumerate() {
        let line = r + 2; // 1-based, after the header
        let rec = rec.map_err(|e| match e.kind() {
            csv::ErrorKind::UnequalLengths { expected_len, len, .. } => KpError::Csv(format!(
                "row on line {line} has {len} cells, the header has {expected_len}"
            )),
            _ => KpError::Csv(format!("line {line}: {e}")),
        })?;
        if rec.len() != names.len() {
            return Err(KpError::Csv(format!(
                "row on line {line} has {} cells, the header has {}",
                rec.len(),
                names.len()
            )));
        }
        for (c, cell) in rec.iter().enumerate() {
            let v: f64 = cell.parse().map_err(|_| {
                KpError::Csv(format!(
                    "line {line}, column `{}`: `{cell}` is not a number",
                    names[c]
                ))
            })?;
            if !v.is_finite() {
                return Err(KpError::Csv(format!(
                    "line {line}, column `{}`: `{cell}` is not a finite number",
                    names[c]
                )));
            }
            if c == y_col {
                ys.push(v);
            } else {
                values.push(v);
            }
        }
        if values.len() > MAX_CELLS {
            return Err(KpError::DataTooLarge { cells: values.len(), limit: MAX_CELLS });
        }
        budget.data("data.text", ys.len(), d)?;
    }
    let n = ys.len();
    if n == 0 {
        return Err(KpError::Csv("the file has a header but no data rows".into()));
    }
    let x = DMatrix::from_row_slice(n, d, &values);
    let feature_names =
        names.iter().enumerate().filter(|(c, _)| *c != y_col).map(|(_, s)| s.clone()).collect();
    Ok(Dataset { x, y: DVector::from_vec(ys), w_true: None, feature_names })
}
