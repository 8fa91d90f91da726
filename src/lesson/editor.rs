//! What the page's lesson editor (www/lesson-editor.js, through www/lesson-worker.js) asks the
//! core: the page's catalogue (the elements a step may name, the measures a claim may read, the
//! readouts that show a measure) and a claim evaluated as it is written, by the evaluator
//! `kplay lesson check` uses ([`check::check_claim`]), never by a second one in JavaScript.

use serde_json::{json, Value};

use super::{check, elements, measures, Lesson, Page};

/// A page from its file name (`dinuzzo.html`), or a message naming the field.
pub fn page_of(file: &str) -> Result<Page, String> {
    serde_json::from_value(Value::String(file.to_string()))
        .map_err(|_| format!("page: \"{}\" is not a paper page", crate::error::clip(file)))
}

/// The page's catalogue as JSON: `elements` (id, role, what, and `measure` for a readout that
/// shows one), `measures` (path, what: the top-level fields and `solution.` fields).
pub fn catalogue(page: Page) -> Value {
    let mut els: Vec<Value> = elements::elements(page)
        .iter()
        .map(|e| {
            let mut v = json!({ "id": e.id, "role": e.role.word(), "what": e.what });
            if let Some(m) = measures::readout_measure(page, e.id) {
                v["measure"] = m.into();
            }
            v
        })
        .collect();
    if elements::has_loss_fields(page) {
        for id in elements::loss_parameter_ids() {
            els.push(json!({ "id": id, "role": "control", "what": "a loss parameter" }));
        }
    }
    let mut ms: Vec<Value> =
        measures::top(page).iter().map(|m| json!({ "path": m.field, "what": m.what })).collect();
    for m in measures::solution(page) {
        ms.push(json!({ "path": format!("solution.{}", m.field), "what": m.what }));
    }
    json!({ "page": page.file(), "elements": els, "measures": ms })
}

/// A claim that holds, standing in for the claims of the steps before the one evaluated (the
/// parser asks every step for an answering claim; a draft may not have one yet).
fn stand_in() -> Value {
    json!({ "id": "draft", "says": "draft", "lhs": { "value": 0 }, "rel": "==",
            "rhs": { "value": 0 }, "reference": "ours", "answers": true })
}

/// Evaluate `claim` (a claim's JSON) as a claim of step `step` (0-based) of the draft lesson
/// `lesson` (its JSON): the draft is cut after that step, its texts and element lists set aside
/// (checked when the lesson is saved) and the other steps' claims replaced by one that holds;
/// then the one parser and [`check::check_claim`]. The answer: `{pass, measured, rhs, says}` or
/// `{error}` naming the field.
pub fn evaluate_claim(lesson: &str, step: usize, claim: &str) -> Value {
    match draft(lesson, step, claim) {
        Ok(text) => match Lesson::parse(&text) {
            Ok(parsed) => {
                let c = &parsed.lesson.steps[step].claims[0];
                let r = check::check_claim(&parsed, step, c);
                let measured = match &r.lhs {
                    Ok(v) => v.to_string(),
                    Err(e) => format!("error: {e}"),
                };
                json!({ "pass": r.pass, "measured": measured, "rhs": r.rhs, "says": r.says,
                        "not_run": r.not_run })
            }
            Err(e) => json!({ "error": e }),
        },
        Err(e) => json!({ "error": e }),
    }
}

fn draft(lesson: &str, step: usize, claim: &str) -> Result<String, String> {
    if lesson.len() > super::MAX_BYTES {
        return Err(format!("the lesson is over {} bytes", super::MAX_BYTES));
    }
    let mut v: Value = crate::spec_json::parse_json(lesson)?;
    let c: Value = crate::spec_json::parse_json(claim).map_err(|e| format!("claim: {e}"))?;
    let Some(steps) = v.get_mut("steps").and_then(Value::as_array_mut) else {
        return Err("steps: the lesson has no steps".into());
    };
    if step >= steps.len() {
        return Err(format!("step {}: the lesson has {} steps", step + 1, steps.len()));
    }
    steps.truncate(step + 1);
    for (i, s) in steps.iter_mut().enumerate() {
        let Some(m) = s.as_object_mut() else {
            return Err(format!("steps[{i}]: must be a JSON object"));
        };
        for f in ["title", "look", "predict", "explain", "reference"] {
            m.insert(f.into(), "draft".into());
        }
        m.insert("uses".into(), json!([]));
        for f in ["figures", "hide_until_run", "speed"] {
            m.remove(f);
        }
        let mut claim = c.clone();
        if let Some(o) = claim.as_object_mut() {
            o.insert("answers".into(), true.into());
        }
        m.insert("claims".into(), json!([if i == step { claim } else { stand_in() }]));
    }
    if let Some(o) = v.as_object_mut() {
        o.insert("title".into(), "draft".into());
    }
    Ok(v.to_string())
}

/// Every claim of a lesson evaluated, as `kplay lesson check` does: `{results: [{step, id,
/// says, measured, rhs, pass}]}`, or `{error}` naming the field.
pub fn check_all(lesson: &str) -> Value {
    match Lesson::parse(lesson) {
        Ok(parsed) => {
            let rs: Vec<Value> = check::check(&parsed)
                .iter()
                .map(|r| {
                    let measured = match &r.lhs {
                        Ok(v) => v.to_string(),
                        Err(e) => format!("error: {e}"),
                    };
                    json!({ "step": r.step, "id": r.id, "says": r.says, "measured": measured,
                            "rhs": r.rhs, "pass": r.pass, "not_run": r.not_run })
                })
                .collect();
            json!({ "results": rs })
        }
        Err(e) => json!({ "error": e }),
    }
}

/// The wasm export of [`catalogue`]: JSON, or `{error}`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = lessonCatalogue)]
pub fn lesson_catalogue(page: &str) -> String {
    match page_of(page) {
        Ok(p) => catalogue(p).to_string(),
        Err(e) => json!({ "error": e }).to_string(),
    }
}

/// The wasm export of [`evaluate_claim`].
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = evaluateClaim)]
pub fn evaluate_claim_export(lesson: &str, step: usize, claim: &str) -> String {
    evaluate_claim(lesson, step, claim).to_string()
}

/// The wasm export of [`check_all`].
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = checkLessonClaims)]
pub fn check_lesson_claims(lesson: &str) -> String {
    check_all(lesson).to_string()
}
