//! The spec's JSON layer, below every paper's spec type: which paper a spec is for ([`Paper`],
//! its `paper` tag), and strict parsing — unknown fields and trailing characters rejected, the
//! failing field named — shared by the engine's [`crate::engine::Spec`] and each paper's own
//! spec type ([`parse_as`]). It imports nothing of the crate but its error type, so every
//! layer may use it (docs/design.md, "Layers").

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{KpError, Result};

/// Which paper a spec belongs to (the `paper` tag of the JSON spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Paper {
    /// Salzo, Suykens, Rosasco: ℓp regularization in the dual with tensor kernels.
    Lp,
    /// Audiffren, Kadri: M-RLSR and kernel ridge.
    Mrlsr,
    /// Dinuzzo: fixed point and coordinate descent for regularized kernel methods.
    Dinuzzo,
    /// Ramdas, Peña: smoothed kernel perceptrons and von Neumann certificates.
    Perceptron,
}

impl Paper {
    /// Every paper, in the order of the pages.
    pub const ALL: [Paper; 4] = [Paper::Lp, Paper::Mrlsr, Paper::Dinuzzo, Paper::Perceptron];

    /// The tag as written in a spec.
    pub fn tag(self) -> &'static str {
        match self {
            Paper::Lp => "lp",
            Paper::Mrlsr => "mrlsr",
            Paper::Dinuzzo => "dinuzzo",
            Paper::Perceptron => "perceptron",
        }
    }

    pub(crate) fn from_tag(tag: &str) -> Option<Paper> {
        Paper::ALL.into_iter().find(|p| p.tag() == tag)
    }
}

/// Deserialize `value` as `T` with serde_path_to_error, prefixing the failing field's path.
pub(crate) fn typed<T: serde::de::DeserializeOwned>(value: Value) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            KpError::Spec(inner.to_string())
        } else {
            KpError::Spec(format!("{path}: {inner}"))
        }
    })
}

/// Parse JSON text into a value: the whole text must be one JSON value (trailing characters,
/// such as a second object or stray brackets, are an error).
pub(crate) fn json_value(text: &str) -> Result<Value> {
    serde_json::from_str::<Value>(text).map_err(|e| {
        if e.to_string().contains("trailing characters") {
            KpError::Spec(format!("text after the spec's closing brace: {e}"))
        } else {
            KpError::Spec(format!("not valid JSON: {e}"))
        }
    })
}

/// Split the `paper` tag off a spec object: `Ok(None)` when there is none (an original
/// paper-A spec), an error naming `paper` when it is not one of the four.
pub(crate) fn take_tag(value: &mut Value) -> Result<Option<Paper>> {
    let Value::Object(map) = value else {
        return Err(KpError::Spec("the spec must be a JSON object".into()));
    };
    match map.remove("paper") {
        None => Ok(None),
        Some(Value::String(tag)) => Paper::from_tag(&tag).map(Some).ok_or_else(|| {
            KpError::Spec(format!(
                "paper: unknown paper `{tag}`; expected one of lp, mrlsr, dinuzzo, perceptron"
            ))
        }),
        Some(other) => Err(KpError::Spec(format!(
            "paper: expected a string (lp, mrlsr, dinuzzo or perceptron), got {other}"
        ))),
    }
}

/// The JSON value of a spec for `paper`, its `paper` tag (if any) checked and removed.
pub(crate) fn untagged(paper: Paper, text: &str) -> Result<Value> {
    let mut value = json_value(text)?;
    match take_tag(&mut value)? {
        Some(p) if p != paper => Err(KpError::Spec(format!(
            "paper: this is a `{}` spec, not a `{}` spec",
            p.tag(),
            paper.tag()
        ))),
        _ => Ok(value),
    }
}

/// Parse one paper's own spec type from JSON text, tagged with that paper or untagged:
/// strictly (unknown fields and trailing characters rejected), the failing field named.
pub fn parse_as<T: serde::de::DeserializeOwned>(paper: Paper, text: &str) -> Result<T> {
    typed(untagged(paper, text)?)
}

/// A paper's spec as a JSON object with the `paper` tag first (what the pages put in their
/// links).
pub fn tagged_value<T: Serialize>(paper: Paper, spec: &T) -> Value {
    let mut out = serde_json::Map::new();
    out.insert("paper".into(), Value::String(paper.tag().into()));
    if let Ok(Value::Object(fields)) = serde_json::to_value(spec) {
        out.extend(fields);
    }
    Value::Object(out)
}
