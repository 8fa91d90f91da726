//! What a page's controls can hold (issue 20, "one declarative form binding … refuses values a
//! control cannot hold"). A page puts a spec into its controls and reads the controls back; the two
//! specs, each parsed strictly and written back in full ([`crate::papers::Spec::to_value`]), must
//! be equal. Where they differ the page would silently run another experiment than the one asked
//! for (a slider snaps 0.05 to its 0.1 minimum, a generator field the page has no control for falls
//! back to the page's constant), so the page refuses the spec with the message built here, which
//! names the field. Ours, not the papers'.

use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;

use crate::error::{KpError, Result};
use crate::spec_json::{parse_as, Paper};

/// The first field (in key order) where two JSON values differ: its dotted path (`data.set.n`,
/// `points[3]`), and the value on each side (`None` when the field is absent there). Numbers
/// are compared as doubles, so `1` and `1.0` are equal.
pub fn first_difference(a: &Value, b: &Value) -> Option<(String, Option<Value>, Option<Value>)> {
    diff_at(String::new(), Some(a), Some(b))
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn diff_at(
    path: String,
    a: Option<&Value>,
    b: Option<&Value>,
) -> Option<(String, Option<Value>, Option<Value>)> {
    match (a, b) {
        (None, None) => None,
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| diff_at(join(&path, k), x.get(k), y.get(k)))
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| diff_at(format!("{path}[{i}]"), Some(u), Some(v))),
        (Some(Value::Number(x)), Some(Value::Number(y))) if x.as_f64() == y.as_f64() => None,
        (Some(x), Some(y)) if x == y => None,
        _ => Some((path, a.cloned(), b.cloned())),
    }
}

/// A value as a message shows it: JSON, shortened past 60 characters; "absent" when missing.
fn shown(v: &Option<Value>) -> String {
    match v {
        None => "absent".to_string(),
        Some(v) => {
            let t = v.to_string();
            if t.chars().count() > 60 {
                format!("{}…", t.chars().take(60).collect::<String>())
            } else {
                t
            }
        }
    }
}

/// `None` when the spec a page read back from its controls (`shown`) is the spec it was asked to
/// show (`asked`), both parsed as `paper`'s spec type `T` and compared in full; otherwise the
/// message a page shows, naming the first field that differs. An `asked` spec that does not
/// parse is its own parse error; a `shown` one that does not parse names its field too. Generic
/// in the spec type so that each page's wasm holds only its own paper's parser.
pub fn controls_lose_as<T: Serialize + DeserializeOwned>(
    paper: Paper,
    asked: &str,
    shown_json: &str,
) -> Result<Option<String>> {
    let value = |text: &str| -> Result<Value> {
        serde_json::to_value(parse_as::<T>(paper, text)?).map_err(|e| KpError::Spec(e.to_string()))
    };
    let (a, b) = (value(asked)?, value(shown_json)?);
    Ok(first_difference(&a, &b).map(|(path, x, y)| {
        format!(
            "{path}: this page's controls cannot hold {} (they would run {}); `kplay run` runs the spec as written",
            shown(&x),
            shown(&y)
        )
    }))
}

/// [`controls_lose_as`] for any paper, by its tag.
pub fn controls_lose(paper: Paper, asked: &str, shown_json: &str) -> Result<Option<String>> {
    use crate::papers::perceptron::PerceptronSpec;
    use crate::papers::{dinuzzo::DinuzzoSpec, lp::LpSpec, mrlsr::MrlsrSpec};
    match paper {
        Paper::Lp => controls_lose_as::<LpSpec>(paper, asked, shown_json),
        Paper::Mrlsr => controls_lose_as::<MrlsrSpec>(paper, asked, shown_json),
        Paper::Dinuzzo => controls_lose_as::<DinuzzoSpec>(paper, asked, shown_json),
        Paper::Perceptron => controls_lose_as::<PerceptronSpec>(paper, asked, shown_json),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_values_have_no_difference() {
        let a = json!({"x": 1, "y": [1.0, {"z": "s"}]});
        let b = json!({"y": [1, {"z": "s"}], "x": 1.0});
        assert_eq!(first_difference(&a, &b), None);
    }

    #[test]
    fn the_first_differing_field_is_named_with_both_values() {
        let a = json!({"data": {"set": {"n": 60, "spread": 0.3}}, "k": [1, 2]});
        let b = json!({"data": {"set": {"n": 60, "spread": 0.5}}, "k": [1, 3]});
        let (path, x, y) = first_difference(&a, &b).unwrap();
        assert_eq!(path, "data.set.spread");
        assert_eq!((x, y), (Some(json!(0.3)), Some(json!(0.5))));
        let (path, _, _) = first_difference(&json!({"k": [1, 2]}), &json!({"k": [1, 3]})).unwrap();
        assert_eq!(path, "k[1]");
        let (path, x, y) = first_difference(&json!({"a": 1}), &json!({})).unwrap();
        assert_eq!((path.as_str(), x, y), ("a", Some(json!(1)), None));
        let (path, _, _) = first_difference(&json!({"k": [1]}), &json!({"k": [1, 2]})).unwrap();
        assert_eq!(path, "k");
    }

    #[test]
    fn a_spec_and_its_own_defaults_are_the_same_experiment() {
        for paper in Paper::ALL {
            let full = crate::papers::Spec::default_for(paper).to_json();
            assert_eq!(controls_lose(paper, &full, &full).unwrap(), None, "{paper:?}");
        }
    }

    #[test]
    fn a_lost_field_is_refused_with_its_name() {
        let asked = r#"{"paper":"perceptron","algorithm":{"kind":"perceptron"},"data":{"kind":"generated","set":{"label_noise":0.0,"n":60,"seed":1,"shape":{"kind":"blobs","margin":0.05,"spread":0.3}}},"kernel":{"kind":"linear"},"max_iter":100000}"#;
        let shown =
            asked.replace("\"margin\":0.05,\"spread\":0.3", "\"margin\":0.05,\"spread\":0.5");
        let msg = controls_lose(Paper::Perceptron, asked, &shown).unwrap().unwrap();
        assert!(msg.starts_with("data.set.shape.spread: "), "{msg}");
        assert!(msg.contains("0.3") && msg.contains("0.5"), "{msg}");
        assert!(controls_lose(Paper::Perceptron, asked, "{").is_err());
    }
}
