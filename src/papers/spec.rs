//! One experiment of any paper: the tagged [`Spec`], parsed strictly (`paper` names the paper).

use crate::error::Result;
use crate::papers::lp::LpSpec;
use crate::papers::perceptron::PerceptronSpec;
use serde_json::Value;

use crate::spec_json::{json_value, take_tag, typed, untagged, Paper};

/// One experiment of any paper.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// Paper A.
    Lp(LpSpec),
    /// Paper B.
    Mrlsr(crate::papers::mrlsr::MrlsrSpec),
    /// Paper C.
    Dinuzzo(crate::papers::dinuzzo::DinuzzoSpec),
    /// Paper D.
    Perceptron(PerceptronSpec),
}

impl Spec {
    /// Parse a spec of any paper: `{"paper": "lp" | "mrlsr" | "dinuzzo" | "perceptron", …}`,
    /// the paper's fields strictly (unknown fields rejected, one message naming the field). A
    /// spec without `paper` is an original paper-A spec, so old files and links keep working.
    pub fn from_json(text: &str) -> Result<Spec> {
        let mut value = json_value(text)?;
        let paper = take_tag(&mut value)?.unwrap_or(Paper::Lp);
        Spec::from_value(paper, value)
    }

    /// Parse a spec that a given paper's page accepts: its own tagged spec, or the untagged
    /// form of its own fields; another paper's tag is an error naming `paper`.
    pub fn from_json_for(paper: Paper, text: &str) -> Result<Spec> {
        Spec::from_value(paper, untagged(paper, text)?)
    }

    fn from_value(paper: Paper, value: Value) -> Result<Spec> {
        Ok(match paper {
            Paper::Lp => Spec::Lp(typed(value)?),
            Paper::Mrlsr => Spec::Mrlsr(typed(value)?),
            Paper::Dinuzzo => Spec::Dinuzzo(typed(value)?),
            Paper::Perceptron => Spec::Perceptron(typed(value)?),
        })
    }

    /// The default experiment of a paper (the page's default).
    pub fn default_for(paper: Paper) -> Spec {
        match paper {
            Paper::Lp => Spec::Lp(LpSpec::default()),
            Paper::Mrlsr => Spec::Mrlsr(crate::papers::mrlsr::MrlsrSpec::default()),
            Paper::Dinuzzo => Spec::Dinuzzo(crate::papers::dinuzzo::DinuzzoSpec::default()),
            Paper::Perceptron => Spec::Perceptron(PerceptronSpec::default()),
        }
    }

    /// Which paper.
    pub fn paper(&self) -> Paper {
        match self {
            Spec::Lp(_) => Paper::Lp,
            Spec::Mrlsr(_) => Paper::Mrlsr,
            Spec::Dinuzzo(_) => Paper::Dinuzzo,
            Spec::Perceptron(_) => Paper::Perceptron,
        }
    }

    /// The spec as a JSON value with its `paper` tag first.
    pub fn to_value(&self) -> Value {
        let paper = self.paper();
        match self {
            Spec::Lp(s) => crate::spec_json::tagged_value(paper, s),
            Spec::Mrlsr(s) => crate::spec_json::tagged_value(paper, s),
            Spec::Dinuzzo(s) => crate::spec_json::tagged_value(paper, s),
            Spec::Perceptron(s) => crate::spec_json::tagged_value(paper, s),
        }
    }

    /// The tagged spec as JSON text (what the pages put in their links).
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// Replace each CSV `path` by the file's text, read through `read` (the CLI reads files
    /// relative to the spec; the core itself does no I/O).
    pub fn resolve_csv(&mut self, read: &mut dyn FnMut(&str) -> Result<String>) -> Result<()> {
        match self {
            Spec::Lp(e) => {
                if let crate::papers::lp::DataSpec::Csv { text: t @ None, path: Some(p) } =
                    &mut e.data
                {
                    *t = Some(read(p)?);
                }
            }
            Spec::Mrlsr(s) => {
                if let crate::papers::mrlsr::DataSpec::Csv(c) = &mut s.data {
                    c.resolve(read)?;
                }
                let sel = s.selection.as_mut().and_then(|x| x.data.as_mut());
                if let Some(crate::papers::mrlsr::DataSpec::Csv(c)) = sel {
                    c.resolve(read)?;
                }
            }
            Spec::Dinuzzo(s) => {
                if let crate::papers::dinuzzo::DataSpec::Csv(c) = &mut s.data {
                    c.resolve(read)?;
                }
            }
            Spec::Perceptron(s) => {
                if let crate::papers::perceptron::DataSpec::Csv(c) = &mut s.data {
                    c.resolve(read)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_parse_and_reject() {
        let untagged = LpSpec::default().to_json();
        assert_eq!(Spec::from_json(&untagged).map(|s| s.paper()).ok(), Some(Paper::Lp));
        let e = Spec::from_json(r#"{"paper":"nope"}"#).unwrap_err().to_string();
        assert!(e.contains("paper") && e.contains("nope"), "{e}");
        let e = Spec::from_json(r#"{"paper":"lp"} trailing {{{"#).unwrap_err().to_string();
        assert!(e.contains("closing brace"), "{e}");
        let e = Spec::from_json_for(Paper::Dinuzzo, r#"{"paper":"perceptron"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("paper"), "{e}");
        for p in Paper::ALL {
            let s = Spec::default_for(p);
            let back = Spec::from_json(&s.to_json()).expect("round trip");
            assert_eq!(back, s);
        }
    }
}
