//! Steps that inherit (docs/lessons.md): a step's `patch`, a JSON merge patch (RFC 7386) on the
//! previous step's spec, resolved into a whole `spec` by the one parser, so the page (through
//! `resolveLesson`) and `kplay lesson check` run the same specs.

use serde_json::Value;

use super::format::Step;

/// RFC 7386 JSON merge patch: `patch`'s object fields replace `target`'s (recursively), a
/// `null` field removes one, and a patch that is not an object replaces `target` whole.
pub fn merge_patch(target: &Value, patch: &Value) -> Value {
    let Value::Object(p) = patch else { return patch.clone() };
    let mut out = match target {
        Value::Object(t) => t.clone(),
        _ => serde_json::Map::new(),
    };
    for (k, v) in p {
        if v.is_null() {
            out.remove(k);
        } else {
            let merged = merge_patch(out.get(k).unwrap_or(&Value::Null), v);
            out.insert(k.clone(), merged);
        }
    }
    Value::Object(out)
}

/// Resolve every step's `patch` against the previous step's spec into `spec` (docs/lessons.md).
pub(super) fn resolve(steps: &mut [Step]) -> Result<(), String> {
    let mut previous: Option<Value> = None;
    for (i, s) in steps.iter_mut().enumerate() {
        let f = format!("steps[{i}]");
        let spec = match (s.spec.take(), s.patch.take(), &previous) {
            (Some(_), Some(_), _) => {
                return Err(format!("{f}: give `spec` or `patch`, not both"));
            }
            (None, None, _) => return Err(format!("{f}: missing `spec` (or `patch`)")),
            (None, Some(_), None) => {
                return Err(format!("{f}.patch: the first step gives a whole `spec`"));
            }
            (None, Some(p), Some(_)) if !p.is_object() => {
                return Err(format!("{f}.patch: must be a JSON object"));
            }
            (None, Some(p), Some(prev)) => merge_patch(prev, &p),
            (Some(v), None, _) => v,
        };
        previous = Some(spec.clone());
        s.spec = Some(spec);
    }
    Ok(())
}
