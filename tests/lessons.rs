//! Lessons as data (docs/lessons.md): the four built-in lessons pass `kplay lesson check`
//! (every step run natively, every claim evaluated); a lesson with one claim made false fails,
//! naming its step and claim (the library and the CLI's exit status 1); malformed lesson files
//! are refused with a message naming the field.

use std::path::PathBuf;
use std::process::Command;

use kernel_playground::lesson::{check, Lesson};
use serde_json::{json, Value};

fn lesson_text(id: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("www/lessons/{id}.json"));
    std::fs::read_to_string(p).expect("lesson file")
}

fn lesson_value(id: &str) -> Value {
    serde_json::from_str(&lesson_text(id)).expect("lesson JSON")
}

fn parse_err(v: &Value, case: usize) -> String {
    match Lesson::parse(&v.to_string()) {
        Ok(_) => panic!("case {case}: accepted a malformed lesson"),
        Err(e) => e,
    }
}

#[test]
fn the_four_lessons_pass_every_claim() {
    for id in ["a", "b", "c", "d"] {
        let parsed = Lesson::parse(&lesson_text(id)).unwrap_or_else(|e| panic!("lesson {id}: {e}"));
        let n = parsed.lesson.steps.len();
        assert!((8..=17).contains(&n), "lesson {id}: {n} steps");
        let results = check::check(&parsed);
        let claims: usize = parsed.lesson.steps.iter().map(|s| s.claims.len()).sum();
        assert_eq!(results.len(), claims, "lesson {id}: every claim evaluated");
        let failed: Vec<String> = results
            .iter()
            .filter(|r| !r.pass)
            .map(|r| format!("step {} claim {}: {:?} {}", r.step, r.id, r.lhs, r.rhs))
            .collect();
        assert!(failed.is_empty(), "lesson {id}: {failed:?}");
        for s in &parsed.lesson.steps {
            assert!(
                s.claims.iter().any(|c| c.answers),
                "lesson {id}: a prediction without an answer"
            );
        }
    }
}

/// Flip a claim's relation (`<` ↔ `>=`, …) and the check fails there, naming the step and the claim.
#[test]
fn a_false_claim_fails_naming_step_and_claim() {
    let flip = |rel: &str| match rel {
        "<" => ">=",
        "<=" => ">",
        ">" => "<=",
        ">=" => "<",
        "==" => "!=",
        "!=" => "==",
        other => panic!("not flippable: {other}"),
    };
    // Lesson B (fast): step 7's claim `smaller` (λ₂ < λ), step 3's `above` (C₀ > 1), step 9's
    // `moved` (one point removed moves λ₂ by > 1 %) and step 12's `bound` (Theorem 3).
    for (step, claim) in [(6usize, "smaller"), (2, "above"), (8, "moved"), (11, "bound")] {
        let mut v = lesson_value("b");
        let claims = v["steps"][step]["claims"].as_array_mut().expect("claims");
        let c = claims.iter_mut().find(|c| c["id"] == claim).expect("the claim");
        let rel = c["rel"].as_str().expect("rel").to_string();
        c["rel"] = json!(flip(&rel));
        let parsed = Lesson::parse(&v.to_string()).expect("still a valid lesson");
        let results = check::check(&parsed);
        let failed: Vec<(usize, String)> =
            results.iter().filter(|r| !r.pass).map(|r| (r.step, r.id.clone())).collect();
        assert_eq!(failed, vec![(step + 1, claim.to_string())], "only the flipped claim fails");
        let text = check::render(&parsed, &results);
        assert!(text.contains(&format!("FAIL step {} claim {claim}", step + 1)), "{text}");
    }
}

/// The CLI: exit 0 on a built-in lesson, 1 with the step and claim named on a false one, 2 on a
/// malformed file.
#[test]
fn kplay_lesson_check_exit_status() {
    let kplay = env!("CARGO_BIN_EXE_kplay");
    let dir = std::env::temp_dir().join(format!("kplay-lessons-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("www/lessons/b.json");
    let out = Command::new(kplay).args(["lesson", "check"]).arg(&good).output().expect("kplay");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("PASS step 1 claim c0") && stdout.contains("0 failed"), "{stdout}");

    let mut v = lesson_value("b");
    v["steps"][0]["claims"][0]["rhs"] = json!({"value": 2}); // C₀ = 2 at m = 2: false
    let bad = dir.join("false.json");
    std::fs::write(&bad, v.to_string()).expect("write");
    let out = Command::new(kplay).args(["lesson", "check"]).arg(&bad).output().expect("kplay");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("step 1 claim c0"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAIL step 1 claim c0"));

    let mut v = lesson_value("b");
    v["steps"][3]["claims"][1]["rel"] = json!("≈");
    let bad = dir.join("malformed.json");
    std::fs::write(&bad, v.to_string()).expect("write");
    let out = Command::new(kplay).args(["lesson", "check"]).arg(&bad).output().expect("kplay");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("steps[3].claims[1].rel"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A change to a lesson's JSON.
type Mutation = Box<dyn Fn(&mut Value)>;

#[test]
fn malformed_lessons_name_the_field() {
    let base = lesson_value("c");
    let cases: Vec<(Mutation, &str)> = vec![
        (Box::new(|v| v["steps"][3]["claims"][1]["rel"] = json!("=~")), "steps[3].claims[1].rel"),
        (Box::new(|v| v["steps"][3]["claims"][1]["extra"] = json!(1)), "steps[3].claims[1]"),
        (Box::new(|v| v["steps"][2]["spec"]["lambda"] = json!("x")), "steps[2].spec"),
        (Box::new(|v| v["steps"][2]["spec"]["bogus"] = json!(1)), "steps[2].spec"),
        (
            Box::new(|v| v["steps"][1]["claims"][0]["lhs"] = json!({"step": [5, "iterations"]})),
            "steps[1].claims[0].lhs.step",
        ),
        (Box::new(|v| v["steps"][0]["look"] = json!("see {=nope}")), "steps[0].look"),
        (Box::new(|v| v["steps"][0]["look"] = json!("an $x open")), "steps[0].look"),
        (Box::new(|v| v["steps"][0]["explain"] = json!("$\\href{x}$")), "steps[0].explain"),
        (Box::new(|v| v["steps"][0]["look"] = json!("x".repeat(9000))), "steps[0].look"),
        (Box::new(|v| v["page"] = json!("evil.html")), "page"),
        (Box::new(|v| v["format"] = json!(2)), "format"),
        (Box::new(|v| v["steps"] = json!([])), "steps"),
        (
            Box::new(|v| {
                for c in v["steps"][4]["claims"].as_array_mut().expect("claims") {
                    c.as_object_mut().expect("claim").remove("answers");
                }
            }),
            "steps[4].claims",
        ),
        (Box::new(|v| v["steps"][2]["claims"][2]["tol"] = json!(-1)), "steps[2].claims[2].tol"),
        (Box::new(|v| v["steps"][2]["claims"][0]["id"] = json!("Bad Id")), "steps[2].claims[0].id"),
        (Box::new(|v| v["steps"][2]["uses"] = json!(["a\"><img"])), "steps[2].uses"),
        (
            Box::new(|v| v["steps"][2]["hide_until_run"] = json!(["fd-caption", "a b"])),
            "steps[2].hide_until_run[1]",
        ),
        (
            Box::new(|v| v["steps"][2]["hide_until_run"] = json!(vec!["x"; 25])),
            "steps[2].hide_until_run",
        ),
        (Box::new(|v| v["steps"][2]["hide_until_run"] = json!("fd-caption")), "steps[2]"),
        (Box::new(|v| v["steps"][2]["speed"] = json!("fast")), "steps[2].speed"),
    ];
    for (i, (mutate, field)) in cases.iter().enumerate() {
        let mut v = base.clone();
        mutate(&mut v);
        let msg = parse_err(&v, i);
        assert!(msg.contains(field), "case {i}: `{msg}` does not name {field}");
    }
    // Not JSON, and too large.
    assert!(Lesson::parse("{").unwrap_err().contains("JSON"));
    let huge = format!("{{\"title\": \"{}\"}}", "x".repeat(300_000));
    assert!(Lesson::parse(&huge).unwrap_err().contains("at most"));
}

/// Issue 36 item 3: a lesson's claims are bounded when the file is parsed. Lesson B's step 12
/// asks `loo_max_lambda2_change` (n refits, ≈ 10·n⁴ operations); at n = 2 000 (the file:
/// n = 400 already took 34 s) the lesson is refused naming the step, the claim, the computation
/// and the largest n that fits — and that n is accepted.
#[test]
fn a_lesson_claim_over_its_cost_bound_is_refused_at_parse_time() {
    let mut v = lesson_value("b");
    v["steps"][11]["spec"]["data"]["n"] = json!(2000);
    let e = parse_err(&v, 0);
    for needle in ["steps[11].claims[0]", "moves", "loo_max_lambda2_change", "n ≤"] {
        assert!(e.contains(needle), "{needle:?} not in {e}");
    }
    assert!(e.len() < 400, "a line or two: {e}");
    let fit: usize = e.rsplit("n ≤ ").next().unwrap().trim().replace(' ', "").parse().unwrap();
    assert!((100..2000).contains(&fit), "{e}");
    v["steps"][11]["spec"]["data"]["n"] = json!(fit);
    assert!(Lesson::parse(&v.to_string()).is_ok(), "n = {fit} fits");
    v["steps"][11]["spec"]["data"]["n"] = json!(fit + 20);
    assert!(Lesson::parse(&v.to_string()).is_err(), "n = {} does not", fit + 20);
}

/// Issue 36 item 3: `--time-limit` applies to `kplay lesson check`: the claims it cuts are
/// reported as not run, and the check exits 1 with a message saying why.
#[test]
fn the_time_limit_applies_to_lesson_check() {
    let kplay = env!("CARGO_BIN_EXE_kplay");
    let good = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("www/lessons/b.json");
    let out = Command::new(kplay)
        .args(["--time-limit", "1e-9", "lesson", "check"])
        .arg(&good)
        .output()
        .expect("kplay");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("NOT RUN step 1 claim c0"), "{stdout}");
    assert!(!stdout.contains("PASS"), "nothing ran after the limit: {stdout}");
    assert!(stderr.contains("time limit") && stderr.contains("not run"), "{stderr}");
}
