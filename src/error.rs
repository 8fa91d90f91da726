//! One error type for every way user input can be wrong. Each bad parameter has its own
//! variant, so the page and the CLI can show a precise message (linfa-style validation).

use thiserror::Error;

/// Everything that can go wrong between a user's input and a running solver.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum KpError {
    #[error("p must lie strictly between 1 and 2 (got {0})")]
    POutOfRange(f64),
    #[error("γ (gamma) must be a positive finite number (got {0})")]
    GammaNotPositive(f64),
    #[error("n (number of samples) must be at least 1 (got {0})")]
    NTooSmall(usize),
    #[error("d (number of features) must be at least 1 (got {0})")]
    DTooSmall(usize),
    #[error("k (number of non-zero spikes) must be at most d = {d} (got {k})")]
    KTooLarge { k: usize, d: usize },
    #[error("σ (noise level) must be a finite number in [0, 10⁶] (got {0})")]
    SigmaInvalid(f64),
    #[error("the data would hold n·d = {cells} values, above the limit of {limit}")]
    DataTooLarge { cells: usize, limit: usize },
    #[error("tolerance must be a positive finite number (got {0})")]
    ToleranceInvalid(f64),
    #[error("the iteration cap must be at least 1 (got {0})")]
    MaxIterInvalid(usize),
    #[error("linesearch parameter {name} must lie in (0, 1) (got {value})")]
    LinesearchParam { name: &'static str, value: f64 },
    #[error("invalid parameter {name}: {reason}")]
    Parameter { name: &'static str, reason: String },
    #[error("CSV: {0}")]
    Csv(String),
    #[error("spec: {0}")]
    Spec(String),
    #[error("the computation produced a non-finite value ({0})")]
    NonFinite(String),
    #[error("cancelled")]
    Cancelled,
}

/// Short alias used across the crate.
pub type Result<T> = std::result::Result<T, KpError>;
