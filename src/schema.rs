//! The fields a page binds, declared once (issue 34 §3): for each of a paper's numeric, choice
//! and yes/no fields its spec path (`model.p`, `method.tol`), type, range (open or closed ends),
//! step, default, label, unit, page control and, for a choice, its options — the way
//! scikit-learn declares parameter constraints. Each paper lists its fields in its own
//! `schema.rs` (under `crate::papers`); its `Checked` check reads the same table
//! ([`check_fields`]), the pages bind their controls from it (wasm `specSchema(paper)`,
//! `www/state.js`) and `kplay schema PAPER` prints it. A field applies only where its `when`
//! conditions hold (`data.separation` when `data.kind` is `two_blobs`).

use serde::Serialize;
use serde_json::Value;

use crate::error::{KpError, Result};
use crate::param::Parameter;

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    /// A finite number.
    Number,
    /// A whole number.
    Integer,
    /// One of the listed options (a string).
    Choice,
    /// Yes or no.
    Bool,
}

/// A field's default value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Default {
    /// A number's or a whole number's.
    Number(f64),
    /// A choice's option.
    Text(String),
    /// A yes/no field's.
    Bool(bool),
}

/// One option of a choice field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    /// The value in the spec (`two_blobs`).
    pub value: String,
    /// What a page shows.
    pub label: String,
}

/// A condition on another (choice) field: the field applies when that one holds one of `values`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct When {
    /// The choice field's path (`data.kind`).
    pub path: String,
    /// The values under which the field applies.
    pub values: Vec<String>,
}

/// One field of a paper's spec, declared once for the check, the page and `kplay schema`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The dotted path in the spec (`model.p`): the name every refusal of it carries.
    pub path: String,
    /// The id of the page's control, or `None` when the page has none (the value is lent by
    /// the spec shown or is `default`).
    pub control: Option<String>,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// What a page and a message call it (`p`, `γ (gamma)`).
    pub label: String,
    /// Its unit, or "".
    pub unit: String,
    /// The lower bound, if any.
    pub min: Option<f64>,
    /// Whether the lower bound itself is excluded (`> min`).
    pub min_open: bool,
    /// The upper bound, if any.
    pub max: Option<f64>,
    /// Whether the upper bound itself is excluded (`< max`).
    pub max_open: bool,
    /// The step of a number control (`None`: any value).
    pub step: Option<f64>,
    /// The value of the paper's default and of a fresh control.
    pub default: Default,
    /// A choice's options.
    pub options: Vec<Choice>,
    /// Where it applies (all must hold; empty: always).
    pub when: Vec<When>,
}

impl Field {
    fn new(path: &str, kind: FieldType, label: &str, default: Default) -> Self {
        Self {
            path: path.into(),
            control: None,
            kind,
            label: label.into(),
            unit: String::new(),
            min: None,
            min_open: false,
            max: None,
            max_open: false,
            step: None,
            default,
            options: Vec::new(),
            when: Vec::new(),
        }
    }

    /// A number field.
    pub fn number(path: &str, label: &str, default: f64) -> Self {
        Self::new(path, FieldType::Number, label, Default::Number(default))
    }

    /// A whole-number field (step 1).
    pub fn integer(path: &str, label: &str, default: f64) -> Self {
        Self {
            step: Some(1.0),
            ..Self::new(path, FieldType::Integer, label, Default::Number(default))
        }
    }

    /// A choice field: `options` as (value, label), the default the first unless set.
    pub fn choice(path: &str, label: &str, default: &str, options: &[(&str, &str)]) -> Self {
        Self {
            options: options
                .iter()
                .map(|(v, l)| Choice { value: (*v).into(), label: (*l).into() })
                .collect(),
            ..Self::new(path, FieldType::Choice, label, Default::Text(default.into()))
        }
    }

    /// A yes/no field.
    pub fn boolean(path: &str, label: &str, default: bool) -> Self {
        Self::new(path, FieldType::Bool, label, Default::Bool(default))
    }

    /// A catalogue parameter (a loss's ε, a kernel's σ) at `prefix.name`, its control the
    /// catalogue's page field.
    pub fn param(prefix: &str, p: &Parameter) -> Self {
        let base = if p.integer {
            Self::integer(&format!("{prefix}.{}", p.name), p.symbol, p.default)
        } else {
            Self::number(&format!("{prefix}.{}", p.name), p.symbol, p.default)
        };
        Self { min: Some(p.min), min_open: p.min_exclusive, control: Some(p.field.into()), ..base }
    }

    /// Its page control.
    pub fn control(self, id: &str) -> Self {
        Self { control: Some(id.into()), ..self }
    }
    /// `≥ min`.
    pub fn min(self, min: f64) -> Self {
        Self { min: Some(min), min_open: false, ..self }
    }
    /// `> min`.
    pub fn above(self, min: f64) -> Self {
        Self { min: Some(min), min_open: true, ..self }
    }
    /// `≤ max`.
    pub fn max(self, max: f64) -> Self {
        Self { max: Some(max), max_open: false, ..self }
    }
    /// `< max`.
    pub fn below(self, max: f64) -> Self {
        Self { max: Some(max), max_open: true, ..self }
    }
    /// The step of its control.
    pub fn step(self, step: f64) -> Self {
        Self { step: Some(step), ..self }
    }
    /// Its unit.
    pub fn unit(self, unit: &str) -> Self {
        Self { unit: unit.into(), ..self }
    }
    /// It applies only when the choice at `path` is one of `values`.
    pub fn when(mut self, path: &str, values: &[&str]) -> Self {
        self.when
            .push(When { path: path.into(), values: values.iter().map(|v| (*v).into()).collect() });
        self
    }

    /// Whether `v` is a finite number in range (and whole, for an integer field).
    pub fn accepts(&self, v: f64) -> bool {
        let low = match self.min {
            Some(m) if self.min_open => v > m,
            Some(m) => v >= m,
            None => true,
        };
        let high = match self.max {
            Some(m) if self.max_open => v < m,
            Some(m) => v <= m,
            None => true,
        };
        v.is_finite() && low && high && (self.kind != FieldType::Integer || v.fract() == 0.0)
    }

    /// The range as a message writes it: `in (1, 2)`, `≥ 0`, `> 0`.
    pub fn range_text(&self) -> String {
        match (self.min, self.max) {
            (Some(a), Some(b)) => format!(
                "in {}{a}, {b}{}",
                if self.min_open { "(" } else { "[" },
                if self.max_open { ")" } else { "]" }
            ),
            (Some(a), None) => format!("{} {a}", if self.min_open { ">" } else { "≥" }),
            (None, Some(b)) => format!("{} {b}", if self.max_open { "<" } else { "≤" }),
            (None, None) => String::new(),
        }
    }

    /// `Ok` when `v` is accepted, else a refusal naming the field's path and its range.
    pub fn check(&self, v: f64) -> Result<()> {
        if self.accepts(v) {
            return Ok(());
        }
        Err(self.refusal(&v.to_string()))
    }

    /// The refusal naming the field's path and its range, for the value written `got`.
    fn refusal(&self, got: &str) -> KpError {
        let what =
            if self.kind == FieldType::Integer { "a whole number" } else { "a finite number" };
        KpError::Parameter {
            name: leak(&self.path),
            reason: format!("{} must be {what} {} (got {got})", self.label, self.range_text()),
        }
    }

    /// Whether the field applies to `spec` (every `when` holds).
    pub fn applies(&self, spec: &Value) -> bool {
        self.when.iter().all(|w| {
            get(spec, &w.path)
                .and_then(Value::as_str)
                .is_some_and(|v| w.values.iter().any(|x| x == v))
        })
    }
}

/// The `&'static str` a [`KpError::Parameter`] names: the paths are a small, fixed set (each
/// paper's table), interned once.
fn leak(path: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static PATHS: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut guard = PATHS.lock().unwrap_or_else(|e| e.into_inner());
    let set = guard.get_or_insert_with(HashSet::new);
    if let Some(p) = set.get(path) {
        return p;
    }
    let p: &'static str = Box::leak(path.to_owned().into_boxed_str());
    set.insert(p);
    p
}

/// The value at a dotted path, if present.
pub fn get<'a>(spec: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(spec, |v, key| v.get(key))
}

/// One paper's fields, as `specSchema(paper)` and `kplay schema` export them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Schema {
    /// The paper's tag (`lp`, `mrlsr`, `dinuzzo`, `perceptron`).
    pub paper: &'static str,
    /// Its fields, a choice before the fields that depend on it.
    pub fields: Vec<Field>,
}

impl Schema {
    /// The field at `path`, if the table has it.
    pub fn field(&self, path: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.path == path)
    }

    /// JSON text of the table.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// The table's rule for every number present in `spec` (a spec serialized to JSON) where its
/// field applies: the first refusal names the field. A paper's `Checked` check calls it, so
/// the ranges a page's controls carry are the ranges the core enforces.
pub fn check_fields(fields: &[Field], spec: &Value) -> Result<()> {
    for f in fields {
        if !matches!(f.kind, FieldType::Number | FieldType::Integer) || !f.applies(spec) {
            continue;
        }
        match get(spec, &f.path) {
            // serde_json writes a NaN or an infinity as `null`, and an absent option is left
            // out (`skip_serializing_if`), so a `null` here was a number that is not finite (a
            // spec built in Rust, not parsed from a link or a file).
            Some(Value::Null) => return Err(f.refusal("NaN or an infinity")),
            Some(v) => {
                if let Some(x) = v.as_f64() {
                    f.check(x)?;
                }
            }
            None => {}
        }
    }
    Ok(())
}

/// [`check_fields`] on a serializable spec.
pub fn check_spec<T: Serialize>(fields: &[Field], spec: &T) -> Result<()> {
    let value = serde_json::to_value(spec).map_err(|e| KpError::Spec(e.to_string()))?;
    check_fields(fields, &value)
}
