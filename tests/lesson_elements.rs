//! The element catalogue of lesson steps (`src/lesson/elements.rs`) against the pages' HTML and
//! docs/lessons.md, and the parser's refusal of an unknown id (issue 35 §4).

use kernel_playground::lesson::{elements, measures, tex, Lesson, Page};
use std::collections::BTreeSet;

const PAGES: [Page; 4] = [Page::Lp, Page::Mrlsr, Page::Dinuzzo, Page::Perceptron];

fn root(rel: &str) -> String {
    format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// `(tag, id)` of every element with an id in a page's HTML.
fn html_ids(page: Page) -> Vec<(String, String)> {
    let html = std::fs::read_to_string(root(&format!("www/{}", page.file()))).expect("page");
    let mut out = Vec::new();
    for (i, _) in html.match_indices(" id=\"") {
        let start = html[..i].rfind('<').expect("an opening tag");
        let tag: String =
            html[start + 1..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let rest = &html[i + 5..];
        let id = &rest[..rest.find('"').expect("a closing quote")];
        out.push((tag, id.to_string()));
    }
    out
}

/// The ids of the fields page A builds from the tensor-kernel catalogue (one per parameter
/// name, www/common.js `buildTensorKernelControls`): elements of the page, not of its HTML.
fn built_ids(page: Page) -> BTreeSet<String> {
    if page != Page::Lp {
        return BTreeSet::new();
    }
    let cat: serde_json::Value =
        serde_json::from_str(&kernel_playground::tensor::kernel::catalogue_json())
            .expect("the tensor-kernel catalogue is JSON");
    let mut out = BTreeSet::new();
    for entry in cat.as_array().expect("a list of kernels") {
        for p in entry["parameters"].as_array().into_iter().flatten() {
            out.insert(p["name"].as_str().expect("a parameter name").to_string());
        }
    }
    out
}

#[test]
fn every_catalogued_id_is_an_element_of_its_page() {
    for page in PAGES {
        let mut ids: BTreeSet<String> = html_ids(page).into_iter().map(|(_, id)| id).collect();
        ids.extend(built_ids(page));
        for el in elements::elements(page) {
            assert!(
                ids.contains(el.id),
                "{}: `{}` is catalogued but not in the page",
                page.file(),
                el.id
            );
        }
    }
}

#[test]
fn every_control_readout_and_plot_of_a_page_is_catalogued() {
    for page in PAGES {
        for (tag, id) in html_ids(page) {
            let named = matches!(tag.as_str(), "input" | "select" | "canvas" | "table")
                || (tag == "dd" && id.starts_with("r-"));
            if named {
                assert!(
                    elements::known(page, &id),
                    "{}: <{tag} id=\"{id}\"> is not catalogued",
                    page.file()
                );
            }
        }
    }
}

#[test]
fn docs_lessons_md_lists_the_catalogue() {
    generated_section("elements", &elements::markdown());
}

/// The built-in lesson C with one `uses` id changed.
fn lesson_c_with(uses: &str, figures: Option<&str>) -> String {
    let text = std::fs::read_to_string(root("www/lessons/c.json")).expect("lesson c");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let step = &mut v["steps"][1];
    step["uses"] = serde_json::json!(["alpha-rule", uses]);
    if let Some(f) = figures {
        step["figures"] = serde_json::json!([f]);
    }
    v.to_string()
}

#[test]
fn a_misspelt_id_is_refused_naming_step_list_and_nearest_id() {
    let e = Lesson::parse(&lesson_c_with("r-suport", None)).unwrap_err();
    assert!(e.contains("steps[1].uses[1]"), "{e}");
    assert!(
        e.contains("\"r-suport\" is not an element of dinuzzo.html; did you mean \"r-support\"?"),
        "{e}"
    );
    let e = Lesson::parse(&lesson_c_with("conv", Some("mapp"))).unwrap_err();
    assert!(e.contains("steps[1].figures[0]") && e.contains("did you mean \"map\""), "{e}");
    // A loss parameter's field is an element of page C (built from the loss catalogue) …
    assert!(Lesson::parse(&lesson_c_with("eps", None)).is_ok());
    // … and an id of another page is not.
    let e = Lesson::parse(&lesson_c_with("spikes", None)).unwrap_err();
    assert!(e.contains("\"spikes\" is not an element of dinuzzo.html"), "{e}");
}

#[test]
fn the_built_in_lessons_name_only_catalogued_elements() {
    for id in ["a", "b", "c", "d"] {
        let text =
            std::fs::read_to_string(root(&format!("www/lessons/{id}.json"))).expect("lesson");
        if let Err(e) = Lesson::parse(&text) {
            panic!("lesson {id}: {e}");
        }
    }
}

/// Replace the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` of docs/lessons.md by
/// `want`, or fail naming the difference (`KPLAY_UPDATE_DOCS=1` writes it).
fn generated_section(name: &str, want: &str) {
    static DOC: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_writer = DOC.lock().unwrap_or_else(|e| e.into_inner());
    let doc = std::fs::read_to_string(root("docs/lessons.md")).expect("docs/lessons.md");
    let (begin, end) = (format!("<!-- {name}:begin -->\n"), format!("<!-- {name}:end -->"));
    let a = doc.find(&begin).expect("the begin marker") + begin.len();
    let b = doc.find(&end).expect("the end marker");
    if doc[a..b] != *want {
        assert!(
            std::env::var_os("KPLAY_UPDATE_DOCS").is_some(),
            "docs/lessons.md's `{name}` section differs from the core's catalogue: run this test with KPLAY_UPDATE_DOCS=1"
        );
        std::fs::write(root("docs/lessons.md"), format!("{}{want}{}", &doc[..a], &doc[b..]))
            .expect("write");
    }
}

#[test]
fn docs_lessons_md_lists_the_math_commands() {
    generated_section("tex", &tex::markdown());
}

#[test]
fn the_page_renderer_reads_the_same_math_commands() {
    let path = root("www/tex-commands.js");
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    let want = tex::javascript();
    if have != want {
        assert!(
            std::env::var_os("KPLAY_UPDATE_DOCS").is_some(),
            "www/tex-commands.js differs from src/lesson/tex.rs: run this test with KPLAY_UPDATE_DOCS=1"
        );
        std::fs::write(&path, want).expect("write www/tex-commands.js");
    }
}

/// A lesson C whose step 1 `look` is `look`.
fn lesson_c_look(look: &str) -> String {
    let text = std::fs::read_to_string(root("www/lessons/c.json")).expect("lesson c");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["steps"][0]["look"] = serde_json::json!(look);
    v.to_string()
}

#[test]
fn every_listed_math_command_parses_and_a_misspelt_one_is_refused() {
    for (name, _) in tex::TEX {
        let look = format!("Math: $\\{name}{{x}}_i^2$.");
        if let Err(e) = Lesson::parse(&lesson_c_look(&look)) {
            panic!("\\{name}: {e}");
        }
    }
    let e = Lesson::parse(&lesson_c_look("$\\exq(x)$")).unwrap_err();
    assert!(
        e.contains("steps[0].look")
            && e.contains("unknown math command \\exq; did you mean \\exp?"),
        "{e}"
    );
    let long = format!("$\\{}$", "z".repeat(7990));
    let e = Lesson::parse(&lesson_c_look(&long)).unwrap_err();
    assert!(e.chars().count() < 200, "a refusal echoes at most 40 characters of the name: {e}");
}

/// RFC 7386's own examples (its Appendix A): target, patch, result.
#[test]
fn merge_patch_gives_the_rfc_7386_examples() {
    use kernel_playground::lesson::merge_patch;
    use serde_json::json;
    let cases = [
        (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
        (json!({"a": "b"}), json!({"b": "c"}), json!({"a": "b", "b": "c"})),
        (json!({"a": "b"}), json!({"a": null}), json!({})),
        (json!({"a": "b", "b": "c"}), json!({"a": null}), json!({"b": "c"})),
        (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
        (json!({"a": "c"}), json!({"a": ["b"]}), json!({"a": ["b"]})),
        (json!({"a": {"b": "c"}}), json!({"a": {"b": "d", "c": null}}), json!({"a": {"b": "d"}})),
        (json!({"a": [{"b": "c"}]}), json!({"a": [1]}), json!({"a": [1]})),
        (json!(["a", "b"]), json!(["c", "d"]), json!(["c", "d"])),
        (json!({"a": "b"}), json!(["c"]), json!(["c"])),
        (json!({"a": "foo"}), json!(null), json!(null)),
        (json!({"a": "foo"}), json!("bar"), json!("bar")),
        (json!({"e": null}), json!({"a": 1}), json!({"e": null, "a": 1})),
        (json!([1, 2]), json!({"a": "b", "c": null}), json!({"a": "b"})),
        (json!({}), json!({"a": {"bb": {"ccc": null}}}), json!({"a": {"bb": {}}})),
    ];
    for (target, patch, want) in cases {
        assert_eq!(merge_patch(&target, &patch), want, "{target} + {patch}");
    }
}

#[test]
fn a_step_given_as_a_patch_runs_the_spec_written_out() {
    let text = std::fs::read_to_string(root("www/lessons/c.json")).expect("lesson c");
    let full: serde_json::Value = serde_json::from_str(&text).expect("json");
    let mut patched = full.clone();
    // Step 2 as what changes from step 1: its method only.
    let (s1, s2) = (&full["steps"][0]["spec"], &full["steps"][1]["spec"]);
    let mut diff = serde_json::Map::new();
    for (k, v) in s2.as_object().expect("object") {
        if s1.get(k) != Some(v) {
            diff.insert(k.clone(), v.clone());
        }
    }
    for k in s1.as_object().expect("object").keys() {
        if s2.get(k).is_none() {
            diff.insert(k.clone(), serde_json::Value::Null);
        }
    }
    let step = patched["steps"][1].as_object_mut().expect("step");
    step.remove("spec");
    step.insert("patch".into(), serde_json::Value::Object(diff));
    let a = Lesson::parse(&full.to_string()).expect("written out");
    let b = Lesson::parse(&patched.to_string()).expect("patched");
    assert_eq!(a.spec_values, b.spec_values);
    assert_eq!(b.lesson.steps[1].spec.as_ref(), Some(s2));
    // Refusals name the step.
    let mut both = patched.clone();
    both["steps"][1]["spec"] = s2.clone();
    let e = Lesson::parse(&both.to_string()).unwrap_err();
    assert!(e.contains("steps[1]: give `spec` or `patch`, not both"), "{e}");
    let mut first = full.clone();
    let s0 = first["steps"][0].as_object_mut().expect("step");
    let spec = s0.remove("spec").expect("spec");
    s0.insert("patch".into(), spec);
    let e = Lesson::parse(&first.to_string()).unwrap_err();
    assert!(e.contains("steps[0].patch: the first step gives a whole `spec`"), "{e}");
    let mut bad = patched.clone();
    bad["steps"][1]["patch"] = serde_json::json!({"lambda": "x"});
    let e = Lesson::parse(&bad.to_string()).unwrap_err();
    assert!(e.contains("steps[1].spec"), "a bad patched value names the step's spec: {e}");
}

#[test]
fn docs_lessons_md_lists_the_measures() {
    generated_section("measures", &measures::markdown());
}

/// The measures catalogue against real reports: every top-level and `solution.` field of the
/// built-in lessons' runs (and each paper's default spec) is catalogued, and every catalogued
/// field occurs in one of them.
#[test]
fn the_measures_catalogue_is_what_the_runs_report() {
    use std::collections::BTreeMap;
    let mut seen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for id in ["a", "b", "c", "d"] {
        let text =
            std::fs::read_to_string(root(&format!("www/lessons/{id}.json"))).expect("lesson");
        let parsed = Lesson::parse(&text).expect("lesson parses");
        let page = parsed.lesson.page;
        let mut specs: Vec<kernel_playground::papers::Spec> = parsed.specs;
        specs.push(kernel_playground::papers::Spec::default_for(page.paper()));
        let keys = seen.entry(page.file()).or_default();
        for spec in &specs {
            let Ok(report) = kernel_playground::papers::run(spec) else { continue };
            let v = report.to_json();
            for (k, x) in v.as_object().expect("a report is an object") {
                keys.insert(k.clone());
                if k == "solution" {
                    for s in x
                        .as_object()
                        .map(|o| o.keys().cloned().collect::<Vec<_>>())
                        .unwrap_or_default()
                    {
                        keys.insert(format!("solution.{s}"));
                    }
                }
            }
        }
        let mut listed: BTreeSet<String> =
            measures::top(page).iter().map(|m| m.field.to_string()).collect();
        listed.extend(measures::solution(page).iter().map(|m| format!("solution.{}", m.field)));
        let missing: Vec<_> = keys.difference(&listed).collect();
        assert!(missing.is_empty(), "{}: reported but not catalogued: {missing:?}", page.file());
        let never: Vec<_> = listed.difference(keys).collect();
        assert!(never.is_empty(), "{}: catalogued but never reported: {never:?}", page.file());
    }
}

#[test]
fn a_misspelt_measure_is_refused_naming_the_claim_and_the_nearest_measure() {
    let text = std::fs::read_to_string(root("www/lessons/c.json")).expect("lesson c");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["steps"][1]["claims"][0]["lhs"] = serde_json::json!({"run": "iteration"});
    let e = Lesson::parse(&v.to_string()).unwrap_err();
    assert!(e.contains("steps[1].claims[0].lhs.run: \"iteration\" is not a measure of dinuzzo.html runs; did you mean \"iterations\"?"), "{e}");
    v["steps"][1]["claims"][0]["lhs"] = serde_json::json!({"step": [1, "solution.suport.len"]});
    let e = Lesson::parse(&v.to_string()).unwrap_err();
    assert!(e.contains("did you mean \"solution.support\"?"), "{e}");
    v["steps"][1]["claims"][0]["lhs"] = serde_json::json!({"run": "solution.support.len"});
    assert!(Lesson::parse(&v.to_string()).is_ok(), "deeper segments are free");
}

/// The built-in lesson `id` with step `k` (1-based) changed by `edit`.
fn lesson_with(id: &str, k: usize, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let text = std::fs::read_to_string(root(&format!("www/lessons/{id}.json"))).expect("lesson");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    edit(&mut v["steps"][k - 1]);
    v.to_string()
}

#[test]
fn a_readout_that_shows_the_answer_before_the_run_is_refused() {
    // D13 answers with ρ_K's certified lower end, and its margin readout (computed from the data
    // when the step opens) is hidden until the run: without that, the answer is on screen.
    let e = Lesson::parse(&lesson_with("d", 13, |s| {
        s.as_object_mut().expect("step").remove("hide_until_run");
    }))
    .unwrap_err();
    assert!(e.contains("steps[12].claims[2]") && e.contains("claim \"pos\""), "{e}");
    assert!(e.contains("readout r-margin") && e.contains("hide_until_run"), "{e}");
    assert!(e.contains("step 13") && e.contains("solution.margin.lower"), "{e}");
    // A readout of an iterative run shows the start before the run, not the answer: D1 answers
    // with the iterations, and r-iter may be shown.
    let d1 =
        lesson_with("d", 1, |s| s["uses"] = serde_json::json!(["boundary", "outcome", "r-iter"]));
    assert!(Lesson::parse(&d1).is_ok());
    // Page B solves the fit when the step opens: B1 answers with C₀; while Run it moves m (to)
    // the readout shows another fit, and once `to` leaves m as it is, the answer is visible.
    let b1 = |to_m: f64| {
        lesson_with("b", 1, move |s| {
            s["to"] = serde_json::json!({ "m": to_m });
        })
    };
    assert!(Lesson::parse(&b1(2.0)).is_ok());
    let e = Lesson::parse(&b1(1.5)).unwrap_err();
    assert!(e.contains("steps[0].claims[0]") && e.contains("readout r-c0"), "{e}");
    // B9's answer reads this run's λ₂ (beside step 7's): with `to` leaving m as it is, the
    // readout gives it away.
    let b9 = lesson_with("b", 9, |s| s["to"] = serde_json::json!({ "m": 2 }));
    let e = Lesson::parse(&b9).unwrap_err();
    assert!(e.contains("solution.lambda2") && e.contains("r-lambda2"), "{e}");
}

#[test]
fn the_lesson_player_reads_the_readouts_as_the_core_does() {
    // www/lesson.js READOUT_MEASURES (the earlier step's value beside a readout) is a copy of
    // measures::readout_measures: the same pairs, page by page.
    let js = std::fs::read_to_string(root("www/lesson.js")).expect("lesson.js");
    let start = js.find("export const READOUT_MEASURES = {").expect("the table");
    let table = &js[start..start + js[start..].find("\n};").expect("its end")];
    for page in PAGES {
        let line = table
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("'{}':", page.file())))
            .unwrap_or_else(|| panic!("{} in READOUT_MEASURES", page.file()));
        let body = &line[line.find('{').expect("{") + 1..line.rfind('}').expect("}")];
        let pairs: Vec<(String, String)> = body
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| {
                let (k, v) = p.split_once(':').expect("id: path");
                (k.trim().trim_matches('\'').to_string(), v.trim().trim_matches('\'').to_string())
            })
            .collect();
        let want: Vec<(String, String)> = measures::readout_measures(page)
            .into_iter()
            .map(|(r, m)| (r.to_string(), m.to_string()))
            .collect();
        assert_eq!(pairs, want, "{}", page.file());
    }
}
