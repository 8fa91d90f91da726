//! Kernels written as expressions, the way a lecturer types them into a page's kernel field
//! (ours; the papers use one kernel at a time):
//!
//! ```text
//! gaussian(mu=0.5) + 0.1·linear
//! 2·matern32(length=0.3) · polynomial(degree=2, offset=1)
//! ```
//!
//! `+` adds kernels, `*` (or `·`, `×`) multiplies them, a number factor scales (`s > 0`), and
//! parentheses group. A kernel is its catalogue `kind` with its parameters by name or by the
//! page's symbol (`gaussian(μ=0.5)`, `laplacian(σ=1)`); a parameter left out takes the
//! catalogue's default, and `gaussian` alone is paper B's bandwidth heuristic. [`Kernel`]'s
//! `Display` writes every parameter, so `parse(k.to_string()) == k` (tested).

use std::fmt;

use super::{Bandwidth, Kernel};
use crate::error::{clip, KpError, Result};

/// The longest expression accepted, in characters.
pub const MAX_CHARS: usize = 2_000;
/// The deepest parenthesis nesting accepted while parsing (the kernel's own depth limit,
/// [`super::MAX_DEPTH`], is checked when it is resolved).
const MAX_PARENS: usize = 16;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Name(String),
    Plus,
    Times,
    Open,
    Close,
    Comma,
    Eq,
}

fn err(at: usize, what: impl fmt::Display) -> KpError {
    KpError::Parameter { name: "kernel", reason: format!("at character {}: {what}", at + 1) }
}

fn lex(text: &str) -> Result<Vec<(usize, Tok)>> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() > MAX_CHARS {
        return Err(KpError::Parameter {
            name: "kernel",
            reason: format!("at most {MAX_CHARS} characters (got {})", chars.len()),
        });
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let single = match c {
            '+' => Some(Tok::Plus),
            '*' | '·' | '×' | '⋅' => Some(Tok::Times),
            '(' => Some(Tok::Open),
            ')' => Some(Tok::Close),
            ',' => Some(Tok::Comma),
            '=' => Some(Tok::Eq),
            _ => None,
        };
        if let Some(t) = single {
            out.push((i, t));
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || chars[i] == '.'
                    || chars[i] == 'e'
                    || chars[i] == 'E'
                    || ((chars[i] == '-' || chars[i] == '+') && matches!(chars[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            let v: f64 =
                s.parse().map_err(|_| err(start, format!("“{}” is not a number", clip(&s))))?;
            if !v.is_finite() {
                // "1e309" parses to infinity: name it instead of letting it reach the spec as
                // JSON null ("invalid type: null, expected f64", issue 36).
                return Err(err(
                    start,
                    format!(
                        "{} is out of range: a number must be finite, at most about 1.8e308",
                        clip(&s)
                    ),
                ));
            }
            out.push((start, Tok::Num(v)));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((start, Tok::Name(chars[start..i].iter().collect())));
        } else {
            return Err(err(i, format!("unexpected “{c}”")));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    pos: usize,
    end: usize,
    parens: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(_, t)| t)
    }
    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(a, _)| *a)
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn sum(&mut self) -> Result<Kernel> {
        let mut terms = vec![self.product()?];
        while self.eat(&Tok::Plus) {
            terms.push(self.product()?);
        }
        Ok(if terms.len() == 1 { terms.remove(0) } else { Kernel::Sum { of: terms } })
    }

    fn product(&mut self) -> Result<Kernel> {
        let start = self.at();
        let mut scale: Option<f64> = None;
        let mut factors = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Num(v)) => {
                    let v = *v;
                    self.pos += 1;
                    let s = scale.unwrap_or(1.0) * v;
                    if !s.is_finite() {
                        return Err(err(
                            self.toks[self.pos - 1].0,
                            format!("the product of the scale factors overflows (… · {v} is out of range)"),
                        ));
                    }
                    scale = Some(s);
                }
                _ => factors.push(self.atom()?),
            }
            if !self.eat(&Tok::Times) {
                break;
            }
        }
        let kernel = match factors.len() {
            0 => return Err(err(start, "a number alone is not a kernel: write e.g. 2·linear")),
            1 => factors.remove(0),
            _ => Kernel::Product { of: factors },
        };
        Ok(match scale {
            Some(s) => Kernel::Scaled { scale: s, of: Box::new(kernel) },
            None => kernel,
        })
    }

    fn atom(&mut self) -> Result<Kernel> {
        let at = self.at();
        match self.peek().cloned() {
            Some(Tok::Open) => {
                self.pos += 1;
                self.parens += 1;
                if self.parens > MAX_PARENS {
                    return Err(err(at, format!("parentheses nested deeper than {MAX_PARENS}")));
                }
                let k = self.sum()?;
                if !self.eat(&Tok::Close) {
                    return Err(err(self.at(), "expected “)”"));
                }
                self.parens -= 1;
                Ok(k)
            }
            Some(Tok::Name(name)) => {
                self.pos += 1;
                let params = if self.eat(&Tok::Open) { self.params()? } else { Vec::new() };
                leaf(at, &name, &params)
            }
            Some(t) => Err(err(at, format!("expected a kernel, found {}", show(&t)))),
            None => Err(err(at, "expected a kernel, found the end")),
        }
    }

    /// `name = value, …)` after the opening parenthesis.
    fn params(&mut self) -> Result<Vec<(usize, String, Value)>> {
        let mut out = Vec::new();
        if self.eat(&Tok::Close) {
            return Ok(out);
        }
        loop {
            let at = self.at();
            let Some(Tok::Name(name)) = self.peek().cloned() else {
                return Err(err(at, "expected a parameter name"));
            };
            self.pos += 1;
            if !self.eat(&Tok::Eq) {
                return Err(err(self.at(), format!("expected “=” after “{}”", clip(&name))));
            }
            let value = match self.peek().cloned() {
                Some(Tok::Num(v)) => Value::Num(v),
                Some(Tok::Name(w)) => Value::Word(w),
                _ => return Err(err(self.at(), format!("expected a value for “{}”", clip(&name)))),
            };
            self.pos += 1;
            out.push((at, name, value));
            if self.eat(&Tok::Close) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(err(self.at(), "expected “,” or “)”"));
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Value {
    Num(f64),
    Word(String),
}

fn show(t: &Tok) -> String {
    match t {
        Tok::Num(v) => format!("the number {v}"),
        Tok::Name(n) => format!("“{}”", clip(n)),
        Tok::Plus => "“+”".into(),
        Tok::Times => "“·”".into(),
        Tok::Open => "“(”".into(),
        Tok::Close => "“)”".into(),
        Tok::Comma => "“,”".into(),
        Tok::Eq => "“=”".into(),
    }
}

/// A catalogue kernel from its kind and named parameters (defaults from the catalogue).
fn leaf(at: usize, name: &str, params: &[(usize, String, Value)]) -> Result<Kernel> {
    let Some(base) = Kernel::ALL.iter().find(|k| k.info().kind == name) else {
        let kinds: Vec<&str> = Kernel::ALL.iter().map(|k| k.info().kind).collect();
        return Err(err(
            at,
            format!("unknown kernel “{}” (one of {})", clip(name), kinds.join(", ")),
        ));
    };
    let info = base.info();
    let mut values: Vec<f64> = info.parameters.iter().map(|p| p.default).collect();
    let mut bandwidth = Bandwidth::Heuristic;
    for (pat, pname, value) in params {
        if info.bandwidth && (pname == "mu" || pname == "μ") {
            bandwidth = match value {
                Value::Num(v) => Bandwidth::Fixed(*v),
                Value::Word(w) if w == "heuristic" => Bandwidth::Heuristic,
                Value::Word(w) => {
                    return Err(err(
                        *pat,
                        format!("μ is a number or “heuristic” (got “{}”)", clip(w)),
                    ))
                }
            };
            continue;
        }
        let Some(i) = info.parameters.iter().position(|p| p.name == pname || p.symbol == pname)
        else {
            let mut names: Vec<&str> = info.parameters.iter().map(|p| p.name).collect();
            if info.bandwidth {
                names.push("mu");
            }
            let known = if names.is_empty() { "none".to_string() } else { names.join(", ") };
            return Err(err(
                *pat,
                format!("{name} has no parameter “{}” (its parameters: {known})", clip(pname)),
            ));
        };
        match value {
            Value::Num(v) => values[i] = *v,
            Value::Word(w) => {
                return Err(err(*pat, format!("{pname} must be a number (got “{}”)", clip(w))));
            }
        }
    }
    // A whole parameter (the polynomial's degree) must be one before it is stored as one.
    for (p, v) in info.parameters.iter().zip(&values) {
        if p.integer && !(v.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(v)) {
            return Err(err(
                at,
                format!("{name}: {} must be a whole number ≥ 0 (got {v})", p.name),
            ));
        }
    }
    base.with_values(&values, bandwidth)
        .ok_or_else(|| err(at, format!("unknown kernel “{}”", clip(name))))
}

/// Parse a kernel expression (module doc); a message naming the character on error.
pub fn parse(text: &str) -> Result<Kernel> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err(KpError::Parameter {
            name: "kernel",
            reason: "the expression is empty".into(),
        });
    }
    let end = text.chars().count();
    let mut p = Parser { toks, pos: 0, end, parens: 0 };
    let k = p.sum()?;
    if p.pos < p.toks.len() {
        let t = p.toks[p.pos].1.clone();
        return Err(err(p.at(), format!("unexpected {}", show(&t))));
    }
    Ok(k)
}

impl std::str::FromStr for Kernel {
    type Err = KpError;
    fn from_str(s: &str) -> Result<Kernel> {
        parse(s)
    }
}

/// The spec JSON of a kernel expression (the pages' kernel field → their spec).
pub fn json_of_text(text: &str) -> Result<String> {
    let k = parse(text)?;
    serde_json::to_string(&k).map_err(|e| KpError::Spec(format!("kernel: {e}")))
}

/// The expression of a kernel's spec JSON (a spec's kernel → the pages' kernel field), read by
/// the strict spec parser: an unknown field or a wrong type is a message naming it.
pub fn text_of_json(json: &str) -> Result<String> {
    let k: Kernel = crate::spec_json::json_value(json).and_then(crate::spec_json::typed).map_err(
        |e| match e {
            KpError::Spec(m) => match m.split_once(": ") {
                Some((path, why)) if !path.contains(' ') => {
                    KpError::Spec(format!("kernel.{path}: {why}"))
                }
                _ => KpError::Spec(format!("kernel: {m}")),
            },
            other => other,
        },
    )?;
    Ok(k.to_string())
}
