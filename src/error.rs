//! One error type for every way user input can be wrong. Each bad parameter has its own
//! variant, so the page and the CLI can show a precise message (linfa-style validation).

use thiserror::Error;

/// Everything that can go wrong between a user's input and a running solver.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum KpError {
    #[error("model.p: p must lie strictly between 1 and 2 (got {0})")]
    POutOfRange(f64),
    #[error("model.gamma: γ (gamma) must be a positive finite number (got {0})")]
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
    #[error("solver.tol: tolerance must be a positive finite number (got {0})")]
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

/// How many characters of a user's string a message echoes ([`clip`]).
pub const ECHO_CHARS: usize = 40;

/// A user's string as a message echoes it: whole when at most [`ECHO_CHARS`] characters, else
/// its first [`ECHO_CHARS`] characters and "…" with the full length, so a message stays a line
/// or two whatever the input (issue 36: a 7 990-character id was echoed in full).
pub fn clip(s: &str) -> String {
    let n = s.chars().count();
    if n <= ECHO_CHARS {
        s.to_string()
    } else {
        let head: String = s.chars().take(ECHO_CHARS).collect();
        format!("{head}… ({n} characters)")
    }
}

/// A message from a library (serde's "unknown variant `…`", "invalid type: string \"…\"") with
/// every quoted part — between backticks, straight double quotes or “ ” — longer than
/// [`ECHO_CHARS`] shortened by [`clip`]. Unpaired quotes leave the rest as it is.
pub fn clip_quoted(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len().min(1024));
    let mut rest = msg;
    loop {
        let open = rest.char_indices().find(|&(_, c)| matches!(c, '`' | '"' | '“'));
        let Some((i, q)) = open else {
            out.push_str(rest);
            return out;
        };
        let close = if q == '“' { '”' } else { q };
        let after = &rest[i + q.len_utf8()..];
        let Some(j) = after.find(close) else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..i + q.len_utf8()]);
        out.push_str(&clip(&after[..j]));
        out.push(close);
        rest = &after[j + close.len_utf8()..];
    }
}

/// How many of the known values a message lists ([`shorten_expected`]).
pub const LIST_ITEMS: usize = 12;

/// A library message ending in a list of known values ("expected one of `a`, `b`, …") with at
/// most [`LIST_ITEMS`] of them, then "… (N in all)": serde lists every variant, 42 for a
/// lesson's `compute`, which is no screen line or two.
pub fn shorten_expected(msg: &str) -> String {
    const MARK: &str = "expected one of ";
    let Some(at) = msg.find(MARK) else { return msg.to_string() };
    let (head, list) = msg.split_at(at + MARK.len());
    let items: Vec<&str> = list.split(", ").collect();
    if items.len() <= LIST_ITEMS {
        return msg.to_string();
    }
    format!("{head}{}, … ({} in all)", items[..LIST_ITEMS].join(", "), items.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_strings_and_cuts_long_ones() {
        assert_eq!(clip("gaussian"), "gaussian");
        let long = "é".repeat(7990);
        let c = clip(&long);
        assert!(c.starts_with(&"é".repeat(ECHO_CHARS)));
        assert!(c.ends_with("… (7990 characters)"), "{c}");
        assert!(c.chars().count() < 70);
    }

    #[test]
    fn clip_quoted_cuts_each_long_quoted_part() {
        let long = "x".repeat(500);
        let msg = format!("unknown variant `{long}`, expected `a` or \"{long}\" or “{long}”");
        let c = clip_quoted(&msg);
        assert!(c.len() < 300, "{c}");
        assert!(c.contains("`a`") && c.contains("expected"), "{c}");
        assert_eq!(c.matches("(500 characters)").count(), 3, "{c}");
        assert_eq!(clip_quoted("an unpaired ` quote"), "an unpaired ` quote");
    }

    #[test]
    fn shorten_expected_keeps_a_dozen_known_values() {
        let list: Vec<String> = (0..42).map(|i| format!("`v{i}`")).collect();
        let msg = format!("unknown variant `x`, expected one of {}", list.join(", "));
        let s = shorten_expected(&msg);
        assert!(s.ends_with("`v11`, … (42 in all)"), "{s}");
        assert!(!s.contains("`v12`"), "{s}");
        let few = "unknown variant `x`, expected one of `a`, `b`";
        assert_eq!(shorten_expected(few), few);
    }
}
