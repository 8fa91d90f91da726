//! Lessons as data (docs/lessons.md): a lesson is a JSON file — title, page, steps — whose
//! steps carry the page's spec, the text (a small Markdown-and-math subset, never HTML) and the
//! step's claims in machine-readable form. [`Lesson::parse`] is the one strict parser (unknown
//! fields, sizes, references between claims, text syntax), used by `kplay lesson check` and by
//! the pages through the wasm export `checkLesson`; [`check::check`] runs every step natively
//! and evaluates every claim.

pub mod check;
pub mod compute;
pub mod editor;
pub mod elements;
pub mod format;
pub mod measures;
mod patch;
pub mod tex;

pub use format::Lesson;
pub use format::{
    lookup, parse_spec, set_path, Action, Claim, FitTo, Literal, Page, Parsed, Quantity, Relation,
    Rerun, Speed, Step, MAX_BYTES, MAX_CLAIMS, MAX_DEPTH, MAX_SHORT, MAX_STEPS, MAX_TEXT,
};
pub use patch::merge_patch;

use std::collections::BTreeSet;

use serde_json::Value;

use crate::error::{clip, clip_quoted, shorten_expected};

fn short(field: &str, s: &str, max: usize) -> Result<(), String> {
    if s.trim().is_empty() {
        return Err(format!("{field}: must not be empty"));
    }
    if s.chars().count() > max {
        return Err(format!("{field}: at most {max} characters (got {})", s.chars().count()));
    }
    Ok(())
}

fn path_ok(field: &str, p: &str) -> Result<(), String> {
    short(field, p, MAX_SHORT)?;
    let good = p
        .split('.')
        .all(|seg| !seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    if good {
        Ok(())
    } else {
        Err(format!("{field}: `{}` is not a dotted path of letters, digits and _", clip(p)))
    }
}

fn id_ok(field: &str, id: &str) -> Result<(), String> {
    let good = !id.is_empty()
        && id.len() <= 32
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if good {
        Ok(())
    } else {
        Err(format!("{field}: `{}` must be 1–32 of a–z, 0–9, _ and -", clip(id)))
    }
}

fn finite(field: &str, x: f64) -> Result<(), String> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(format!("{field}: must be a finite number"))
    }
}

/// Check a quantity's references and depth; `step` is the 1-based step it belongs to.
/// A measure path of a run of `page` (docs/lessons.md: the measures a claim may read).
fn measure_ok(field: &str, page: Page, p: &str) -> Result<(), String> {
    path_ok(field, p)?;
    measures::check(page, p).map_err(|e| format!("{field}: {e}"))
}

fn quantity_ok(
    field: &str,
    page: Page,
    q: &Quantity,
    step: usize,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("{field}: nested deeper than {MAX_DEPTH}"));
    }
    let sub = |name: &str, q: &Quantity| {
        quantity_ok(&format!("{field}.{name}"), page, q, step, depth + 1)
    };
    match q {
        Quantity::Value(Literal::Num(x)) => finite(&format!("{field}.value"), *x),
        Quantity::Value(Literal::Text(t)) => short(&format!("{field}.value"), t, MAX_SHORT),
        Quantity::Run(p) => measure_ok(&format!("{field}.run"), page, p),
        Quantity::Spec(p) => path_ok(field, p),
        Quantity::Step(k, p) => {
            if *k == 0 || *k >= step {
                return Err(format!(
                    "{field}.step: {k} is not an earlier step (steps count from 1; this is step {step})"
                ));
            }
            measure_ok(&format!("{field}.step"), page, p)
        }
        Quantity::Rerun(r) => {
            if r.set.is_empty() || r.set.len() > 16 {
                return Err(format!("{field}.rerun.set: 1 to 16 fields"));
            }
            for k in r.set.keys() {
                path_ok(&format!("{field}.rerun.set"), k)?;
            }
            measure_ok(&format!("{field}.rerun.of"), page, &r.of)
        }
        Quantity::Compute(_) => Ok(()),
        Quantity::StepCompute(k, _) => {
            if *k == 0 || *k >= step {
                return Err(format!(
                    "{field}.step_compute: {k} is not an earlier step (this is step {step})"
                ));
            }
            Ok(())
        }
        Quantity::Add(b)
        | Quantity::Sub(b)
        | Quantity::Mul(b)
        | Quantity::Div(b)
        | Quantity::Pow(b) => {
            sub("0", &b[0])?;
            sub("1", &b[1])
        }
        Quantity::Ln(a) | Quantity::Sqrt(a) | Quantity::Abs(a) => sub("0", a),
    }
}

/// The ids `{=id}` a text quotes, after checking its syntax (docs/lessons.md): balanced `$…$`
/// and `$$…$$`, `**`/`*`/`` ` `` pairs closed in each paragraph, only the allowed TeX commands.
pub fn text_placeholders(field: &str, text: &str) -> Result<Vec<String>, String> {
    short(field, text, MAX_TEXT)?;
    if text.chars().any(|c| c.is_control() && c != '\n') {
        return Err(format!("{field}: control characters other than a newline"));
    }
    let mut ids = Vec::new();
    for (pi, para) in text.split("\n\n").enumerate() {
        let pf = format!("{field} (paragraph {})", pi + 1);
        let dollars = para.matches('$').count();
        if !dollars.is_multiple_of(2) {
            return Err(format!("{pf}: an unclosed $ (math is $…$ or $$…$$)"));
        }
        // Split into math and prose by $.
        for (k, piece) in para.split('$').enumerate() {
            if k % 2 == 1 {
                math_ok(&pf, piece)?;
            } else {
                // Escaped characters (a backslash and the next character) are literal.
                let plain: String = {
                    let mut out = String::new();
                    let mut it = piece.chars();
                    while let Some(c) = it.next() {
                        if c == '\\' {
                            it.next();
                        } else {
                            out.push(c);
                        }
                    }
                    out
                };
                let piece = plain.as_str();
                let ticks = piece.matches('`').count();
                if !ticks.is_multiple_of(2) {
                    return Err(format!("{pf}: an unclosed ` (code)"));
                }
                let stars = piece.matches("**").count();
                if !stars.is_multiple_of(2) {
                    return Err(format!("{pf}: an unclosed ** (bold)"));
                }
            }
            let mut rest = piece;
            while let Some(open) = rest.find("{=") {
                let after = &rest[open + 2..];
                let Some(close) = after.find('}') else {
                    return Err(format!("{pf}: a placeholder {{=id}} without its }}"));
                };
                let inner = &after[..close];
                if k % 2 == 1 {
                    return Err(format!("{pf}: a placeholder {{={}}} inside math", clip(inner)));
                }
                id_ok(&format!("{pf}: placeholder"), inner)?;
                ids.push(inner.to_string());
                rest = &after[close + 1..];
            }
        }
    }
    Ok(ids)
}

fn math_ok(field: &str, m: &str) -> Result<(), String> {
    let mut depth = 0i32;
    let chars: Vec<char> = m.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("{field}: a `}}` without `{{` in math `{}`", clip(m)));
                }
            }
            '\\' => {
                let start = i + 1;
                let mut j = start;
                while j < chars.len() && chars[j].is_ascii_alphabetic() {
                    j += 1;
                }
                let name: String = chars[start..j].iter().collect();
                if name.is_empty() {
                    // \{ \} \, \| and friends: one escaped character.
                    i += 2;
                    continue;
                }
                if !tex::known(&name) {
                    let shown: String = name.chars().take(40).collect();
                    let near = tex::TEX
                        .iter()
                        .map(|(n, _)| (elements::distance(&name, n), *n))
                        .filter(|(d, _)| *d <= 2)
                        .min();
                    let hint = match near {
                        Some((_, n)) => format!("; did you mean \\{n}?"),
                        None => " (docs/lessons.md lists the commands)".to_string(),
                    };
                    return Err(format!("{field}: unknown math command \\{shown}{hint}"));
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        return Err(format!("{field}: unbalanced braces in math `{}`", clip(m)));
    }
    Ok(())
}

/// This step's run measures a quantity reads (`{"run": …}` anywhere in it; an earlier step's
/// measure or a re-run's is not this run's answer).
fn run_measures<'a>(q: &'a Quantity, out: &mut Vec<&'a str>) {
    match q {
        Quantity::Run(p) => out.push(p),
        Quantity::Add(b)
        | Quantity::Sub(b)
        | Quantity::Mul(b)
        | Quantity::Div(b)
        | Quantity::Pow(b) => {
            run_measures(&b[0], out);
            run_measures(&b[1], out);
        }
        Quantity::Ln(a) | Quantity::Sqrt(a) | Quantity::Abs(a) => run_measures(a, out),
        Quantity::Value(_)
        | Quantity::Step(..)
        | Quantity::Spec(_)
        | Quantity::Rerun(_)
        | Quantity::Compute(_)
        | Quantity::StepCompute(..) => {}
    }
}

/// A step never shows its answer before its run (issue 32): a claim marked `answers` must not
/// read a measure that a readout the step names (`uses`) shows before the run, unless the step
/// hides that readout until the run (`hide_until_run`). `f` is the step's field, `k` its number.
fn answer_hidden(f: &str, k: usize, page: Page, s: &Step) -> Result<(), String> {
    let spec = s.spec.as_ref();
    let differs = |name: &str, x: Option<f64>| {
        x.is_some_and(|x| spec.and_then(|v| v.get(name)).and_then(Value::as_f64) != Some(x))
    };
    let moves_fit = s.to.as_ref().is_some_and(|t| differs("m", t.m) || differs("lambda", t.lambda));
    let hidden = |id: &str| s.hide_until_run.iter().flatten().any(|h| h == id);
    for (j, c) in s.claims.iter().enumerate().filter(|(_, c)| c.answers) {
        let mut reads = vec![];
        run_measures(&c.lhs, &mut reads);
        c.rhs.iter().chain(c.range.iter().flatten()).for_each(|q| run_measures(q, &mut reads));
        for id in s.uses.iter().filter(|u| !hidden(u)) {
            let shown = measures::shown_before_run(page, id, moves_fit);
            let hit = reads.iter().find(|r| {
                shown
                    .iter()
                    .any(|m| **r == *m || r.strip_prefix(m).is_some_and(|t| t.starts_with('.')))
            });
            if let Some(m) = hit {
                return Err(format!(
                    "{f}.claims[{j}]: claim \"{}\" answers step {k}'s question with {m}, which readout {id} (in uses) shows before the run; add \"{id}\" to hide_until_run",
                    c.id
                ));
            }
        }
    }
    Ok(())
}

/// A step's spec with its `to` applied.
fn effective_spec(step: &Step) -> Value {
    let mut v = step.spec.clone().unwrap_or(Value::Null);
    if let (Some(to), Value::Object(m)) = (&step.to, &mut v) {
        if let Some(x) = to.m {
            m.insert("m".into(), x.into());
        }
        if let Some(x) = to.lambda {
            m.insert("lambda".into(), x.into());
        }
    }
    v
}

impl Lesson {
    /// Parse and validate a lesson file: strict fields, sizes, every step's spec (the page's
    /// parser), claims' references, the text syntax and its `{=id}` placeholders. The message
    /// names the field, e.g. `steps[3].claims[1].rel: …`.
    pub fn parse(text: &str) -> Result<Parsed, String> {
        if text.len() > MAX_BYTES {
            return Err(format!(
                "the lesson is {} bytes; a lesson is at most {MAX_BYTES} bytes (256 KiB, a fixed limit of the lesson format, the same in the page and in kplay)",
                text.len()
            ));
        }
        // One leading byte-order mark is skipped (the page's UTF-8 decoding drops it too), and a
        // number too large for f64 is named with its field (crate::spec_json::parse_json).
        let value: Value = crate::spec_json::parse_json(text)?;
        let lesson: Lesson = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let inner = shorten_expected(&clip_quoted(&e.into_inner().to_string()));
            if path == "." {
                inner
            } else {
                format!("{}: {inner}", clip(&path))
            }
        })?;
        lesson.validate()
    }

    fn validate(mut self) -> Result<Parsed, String> {
        if self.format != 1 {
            return Err(format!("format: this is format 1 (got {})", self.format));
        }
        short("title", &self.title, MAX_SHORT)?;
        if self.steps.is_empty() || self.steps.len() > MAX_STEPS {
            return Err(format!("steps: 1 to {MAX_STEPS} steps (got {})", self.steps.len()));
        }
        patch::resolve(&mut self.steps)?;
        let mut specs = Vec::new();
        let mut spec_values = Vec::new();
        for (i, s) in self.steps.iter().enumerate() {
            let f = format!("steps[{i}]");
            short(&format!("{f}.title"), &s.title, MAX_SHORT)?;
            short(&format!("{f}.reference"), &s.reference, MAX_SHORT)?;
            if s.uses.len() > 24 {
                return Err(format!("{f}.uses: at most 24 element ids"));
            }
            if s.figures.as_ref().is_some_and(|v| v.len() > 24) {
                return Err(format!("{f}.figures: at most 24 element ids"));
            }
            let named = s.uses.iter().map(|u| ("uses", u)).enumerate();
            let figures = s.figures.iter().flatten().map(|u| ("figures", u)).enumerate();
            for (j, (list, u)) in named.chain(figures) {
                if !elements::known(self.page, u) {
                    let m = elements::unknown_message(self.page, u);
                    return Err(format!("{f}.{list}[{j}]: {m}"));
                }
            }
            let hide = s.hide_until_run.iter().flatten();
            if hide.clone().count() > 24 {
                return Err(format!("{f}.hide_until_run: at most 24 element ids"));
            }
            for (j, u) in hide.enumerate() {
                if !elements::known(self.page, u) {
                    let m = elements::unknown_message(self.page, u);
                    return Err(format!("{f}.hide_until_run[{j}]: {m}"));
                }
            }
            match &s.speed {
                Some(Speed::Rate(r)) if !(r.is_finite() && (0.1..=1e6).contains(r)) => {
                    return Err(format!("{f}.speed: 0.1 to 10⁶ iterations per second, or \"max\""))
                }
                Some(Speed::Max(w)) if w != "max" => {
                    return Err(format!("{f}.speed: a number or \"max\" (got \"{}\")", clip(w)))
                }
                _ => {}
            }
            match (self.page, s.action) {
                (Page::Mrlsr, Some(Action::Fit)) if s.to.is_none() => {
                    return Err(format!("{f}.to: action \"fit\" needs to: {{m, lambda}}"))
                }
                (Page::Mrlsr, Some(Action::Fit | Action::Equivalence))
                | (Page::Lp, Some(Action::Build))
                | (_, None) => {}
                (_, Some(a)) => {
                    return Err(format!("{f}.action: {a:?} is not an action of {:?}", self.page))
                }
            }
            if s.to.is_some() && s.action != Some(Action::Fit) {
                return Err(format!("{f}.to: only with action \"fit\""));
            }
            if let Some(to) = &s.to {
                for (name, x) in [("m", to.m), ("lambda", to.lambda)] {
                    if let Some(x) = x {
                        finite(&format!("{f}.to.{name}"), x)?;
                    }
                }
            }
            if let Some([k, v]) = &s.until {
                let ok = |t: &str| {
                    !t.is_empty() && t.len() <= 40 && t.chars().all(|c| c.is_ascii_alphanumeric())
                };
                if !ok(k) || !ok(v) {
                    return Err(format!("{f}.until: [data attribute, value], letters and digits"));
                }
            }
            let eff = effective_spec(s);
            specs.push(parse_spec(&format!("{f}.spec"), self.page, &eff)?);
            spec_values.push(eff);
            if s.claims.is_empty() || s.claims.len() > MAX_CLAIMS {
                return Err(format!("{f}.claims: 1 to {MAX_CLAIMS} claims"));
            }
            if !s.claims.iter().any(|c| c.answers) {
                return Err(format!(
                    "{f}.claims: no claim has \"answers\": true (every prediction declares its answer)"
                ));
            }
            let mut ids = BTreeSet::new();
            let mut quotable = BTreeSet::new();
            for (j, c) in s.claims.iter().enumerate() {
                let cf = format!("{f}.claims[{j}]");
                id_ok(&format!("{cf}.id"), &c.id)?;
                if !ids.insert(c.id.clone()) {
                    return Err(format!("{cf}.id: `{}` is used twice in the step", c.id));
                }
                short(&format!("{cf}.says"), &c.says, MAX_SHORT)?;
                short(&format!("{cf}.reference"), &c.reference, MAX_SHORT)?;
                quantity_ok(&format!("{cf}.lhs"), self.page, &c.lhs, i + 1, 0)?;
                match (c.rel, &c.rhs, &c.range) {
                    (Relation::Between, None, Some(r)) => {
                        quantity_ok(&format!("{cf}.range[0]"), self.page, &r[0], i + 1, 0)?;
                        quantity_ok(&format!("{cf}.range[1]"), self.page, &r[1], i + 1, 0)?;
                    }
                    (Relation::Between, _, _) => {
                        return Err(format!(
                            "{cf}.range: \"between\" takes range: [low, high] and no rhs"
                        ))
                    }
                    (_, Some(r), None) => {
                        quantity_ok(&format!("{cf}.rhs"), self.page, r, i + 1, 0)?;
                        if matches!(r, Quantity::Value(Literal::Num(_))) {
                            quotable.insert(c.id.clone());
                        }
                    }
                    (_, _, _) => {
                        return Err(format!("{cf}.rhs: the relation needs rhs (and no range)"))
                    }
                }
                match (c.rel, c.tol) {
                    (Relation::Within, Some(t)) if (0.0..1.0).contains(&t) => {}
                    (Relation::Within, _) => {
                        return Err(format!(
                            "{cf}.tol: \"within\" needs a relative tolerance in [0, 1)"
                        ))
                    }
                    (_, Some(_)) => return Err(format!("{cf}.tol: only with \"within\"")),
                    _ => {}
                }
            }
            answer_hidden(&f, i + 1, self.page, s)?;
            for (name, text) in
                [("look", &s.look), ("predict", &s.predict), ("explain", &s.explain)]
            {
                for id in text_placeholders(&format!("{f}.{name}"), text)? {
                    if !quotable.contains(&id) {
                        return Err(format!(
                            "{f}.{name}: {{={id}}} names no claim of this step with a number as rhs"
                        ));
                    }
                }
            }
        }
        let parsed = Parsed { lesson: self, specs, spec_values };
        compute::check_costs(&parsed)?;
        Ok(parsed)
    }
}

/// The wasm export the pages call on a lesson from a file or a link: `""` when valid, else the
/// message naming the field (the same parser as `kplay lesson check`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = checkLesson)]
pub fn check_lesson(json: &str) -> String {
    match Lesson::parse(json) {
        Ok(_) => String::new(),
        Err(e) => e,
    }
}

/// The wasm export the pages open a lesson with: `{"lesson": …}`, the lesson as the parser
/// resolved it (every step's `patch` merged into a whole `spec`, so the page runs exactly what
/// `kplay lesson check` runs), or `{"error": "…"}` naming the field.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = resolveLesson)]
pub fn resolve_lesson(json: &str) -> String {
    match Lesson::parse(json) {
        Ok(p) => serde_json::json!({ "lesson": p.lesson }).to_string(),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}
