//! The spec's JSON layer, below every paper's spec type: which paper a spec is for ([`Paper`],
//! its `paper` tag), and strict parsing — unknown fields and trailing characters rejected, the
//! failing field named — shared by the engine's [`crate::papers::Spec`] and each paper's own
//! spec type ([`parse_as`]). It imports nothing of the crate but its error type, so every
//! layer may use it (docs/design.md, "Layers").

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{clip, clip_quoted, shorten_expected, KpError, Result};

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
    let whole = value.clone();
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let path = deeper_path(&whole, &path, &inner.to_string()).unwrap_or(path);
        let inner = shorten_expected(&clip_quoted(&inner.to_string()));
        if path == "." {
            KpError::Spec(inner)
        } else {
            KpError::Spec(format!("{}: {inner}", clip(&path)))
        }
    })
}

/// Inside an internally tagged enum (`{"kind": …}`) serde buffers the fields and its error
/// stops at the enum (`data: invalid value: integer `-1`, expected u64`): the field holding that
/// number, when exactly one field under `path` does, so the message names it (`data.seed`); for
/// an unknown field (`model: unknown field `bogus``), the one object under `path` that has it
/// (`model.kernel`).
fn deeper_path(whole: &Value, path: &str, msg: &str) -> Option<String> {
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        let key = rest.split('`').next()?;
        return only_node(whole, path, |v| v.as_object().is_some_and(|m| m.contains_key(key)));
    }
    let rest =
        msg.strip_prefix("invalid value: ").or_else(|| msg.strip_prefix("invalid type: "))?;
    let rest = rest.strip_prefix("integer `").or_else(|| rest.strip_prefix("floating point `"))?;
    let number: f64 = rest.split('`').next()?.parse().ok()?;
    only_node(whole, path, |v| v.as_f64() == Some(number))
}

/// The path of the one value at or under `path` in `whole`, through objects, for which `is_it`
/// holds, if exactly one does.
fn only_node(whole: &Value, path: &str, is_it: impl Fn(&Value) -> bool) -> Option<String> {
    let mut at = whole;
    if path != "." {
        for key in path.split('.') {
            at = at.get(key)?;
        }
    }
    fn find(v: &Value, is_it: &dyn Fn(&Value) -> bool, prefix: &str, out: &mut Vec<String>) {
        if is_it(v) {
            out.push(prefix.to_string());
        }
        if let Value::Object(m) = v {
            for (k, x) in m {
                let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                find(x, is_it, &p, out);
            }
        }
    }
    let mut found = Vec::new();
    find(at, &is_it, "", &mut found);
    match found.as_slice() {
        [one] if one.is_empty() => Some(path.to_string()),
        [one] if path == "." => Some(one.clone()),
        [one] => Some(format!("{path}.{one}")),
        _ => None,
    }
}

/// Parse JSON text into a value: the whole text must be one JSON value (trailing characters,
/// such as a second object or stray brackets, are an error).
/// A leading UTF-8 byte-order mark is skipped, as the browser's UTF-8 decoding skips it, so a
/// file saved with one reads the same in the page and in `kplay` (issue 36).
pub(crate) fn json_value(text: &str) -> Result<Value> {
    parse_json(text).map_err(|e| {
        if e.contains("trailing characters") {
            KpError::Spec(format!("text after the spec's closing brace: {e}"))
        } else {
            KpError::Spec(e)
        }
    })
}

/// `text` without one leading UTF-8 byte-order mark (U+FEFF), which the browser's UTF-8
/// decoding drops too.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parse JSON text (one leading byte-order mark skipped) into a value; the message on failure:
/// "not valid JSON: …", or for a number too large for f64 (serde_json's "number out of range")
/// the field and the number, `kernel.scale: 1e309 is out of range …`. Every spec and lesson
/// parser reads its JSON through here.
pub fn parse_json(text: &str) -> std::result::Result<Value, String> {
    let text = without_bom(text);
    serde_json::from_str::<Value>(text).map_err(|e| {
        let m = e.to_string();
        if m.contains("number out of range") {
            if let Some((path, lit)) = overflowing_number(text) {
                let lit = clip(&lit);
                let why = "out of range: a number must be finite, at most about 1.8e308 in size";
                return if path.is_empty() {
                    format!("{lit} is {why}")
                } else {
                    format!("{}: {lit} is {why}", clip(&path))
                };
            }
        }
        format!("not valid JSON: {m}")
    })
}

/// The path (`kernel.of[1].scale`, as serde_path_to_error writes it) and the text of the first
/// number literal in `text` that overflows f64, found by a small scan of the JSON's structure.
fn overflowing_number(text: &str) -> Option<(String, String)> {
    enum Frame {
        Obj(Option<String>),
        Arr(usize),
    }
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut last_string: Option<String> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => stack.push(Frame::Obj(None)),
            b'[' => stack.push(Frame::Arr(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Frame::Arr(k)) = stack.last_mut() {
                    *k += 1;
                }
            }
            b':' => {
                if let Some(Frame::Obj(key)) = stack.last_mut() {
                    *key = last_string.take();
                }
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                last_string = text.get(start..i.min(b.len())).map(str::to_string);
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                let lit = &text[start..i];
                if lit.parse::<f64>().is_ok_and(f64::is_infinite) {
                    let mut path = String::new();
                    for f in &stack {
                        match f {
                            Frame::Obj(Some(k)) if path.is_empty() => path.push_str(k),
                            Frame::Obj(Some(k)) => {
                                path.push('.');
                                path.push_str(k);
                            }
                            Frame::Obj(None) => {}
                            Frame::Arr(k) => path.push_str(&format!("[{k}]")),
                        }
                    }
                    return Some((path, lit.to_string()));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
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
                "paper: unknown paper `{}`; expected one of lp, mrlsr, dinuzzo, perceptron",
                clip(&tag)
            ))
        }),
        Some(other) => Err(KpError::Spec(format!(
            "paper: expected a string (lp, mrlsr, dinuzzo or perceptron), got {}",
            clip(&other.to_string())
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
