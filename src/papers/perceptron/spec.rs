//! Paper D's spec as a link, a lesson and `kplay` carry it (serde, strict): the 2-D data, the
//! kernel, the algorithm, the iteration cap, the margin search's settings and the race's ε, δ,
//! γ. Nothing here is checked: [`super::checked::PerceptronChecked::check`] holds every range
//! check of the spec, and a session accepts only its result.

use serde::{Deserialize, Serialize};

use crate::datasets::plane::Classification2d;
use crate::error::Result;
use crate::kernels::Kernel;
use crate::solvers::perceptron::margin::MarginOptions;
use crate::solvers::perceptron::PerceptronAlgorithm;

/// Where the 2-D points come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DataSpec {
    /// A seeded generated set (blobs with a margin / overlap knob, moons, circles, XOR).
    Generated { set: Classification2d },
    /// Points placed by the user: `[x₁, x₂, label ±1]`.
    Points { points: Vec<[f64; 3]> },
    /// A CSV file with two feature columns and a `y` column of ±1 labels.
    Csv(crate::data::CsvSource),
}

/// The page's experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerceptronSpec {
    pub data: DataSpec,
    pub kernel: Kernel,
    pub algorithm: PerceptronAlgorithm,
    /// Iteration cap (≥ 1; a safety net, no upper bound).
    #[serde(default = "default_max_iter")]
    pub max_iter: usize,
    /// Accuracy and effort of the margin search for ρ_K (absent: the page's, see
    /// [`page_margin_options`]); `kplay run` reports the certified interval it reaches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<MarginSpec>,
    /// The race's ε, δ, γ (page D's Race button and `kplay race`; see [`RaceSpec`]).
    #[serde(default, skip_serializing_if = "RaceSpec::is_empty")]
    pub race: RaceSpec,
}

/// The race's ε, δ, γ default to these where neither `race` nor the spec's algorithm gives
/// them (the page's form defaults; ours, not the paper's).
pub const RACE_DEFAULTS: (f64, f64, f64) = (0.01, 0.01, 2.0);

/// The parameters of paper D's race of the six algorithms: ε (NVN, ISNKPVN), δ (SNKPVN), γ
/// (ISNKPVN). Each absent one is the spec's algorithm's own where it has that parameter (the page
/// has one field for both), else [`RACE_DEFAULTS`]; so a page's race link reproduces its race.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RaceSpec {
    /// Certificate accuracy ε > 0 of NVN and ISNKPVN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// Certificate accuracy δ > 0 of SNKPVN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<f64>,
    /// ISNKPVN's shrink factor γ > 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gamma: Option<f64>,
}

impl RaceSpec {
    /// Whether no parameter is given (then the field is left out of the spec's JSON).
    pub fn is_empty(&self) -> bool {
        self.epsilon.is_none() && self.delta.is_none() && self.gamma.is_none()
    }
}

/// The spec's margin-search settings: each absent field takes the page's value
/// ([`page_margin_options`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct MarginSpec {
    /// Stop when the certified bracket's relative width is below this (0 < rel_tol < 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel_tol: Option<f64>,
    /// Call the data ε-inseparable when `min ‖p‖_G ≤ zero_tol` (Lemma 3: then ρ_K ≤ zero_tol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_tol: Option<f64>,
    /// Frank–Wolfe iterations at most (each O(n)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iter: Option<usize>,
    /// Direction-search iterations per start (inseparable case, rank ≥ 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_iter: Option<usize>,
}

fn default_max_iter() -> usize {
    100_000
}

impl Default for PerceptronSpec {
    fn default() -> Self {
        Self {
            data: DataSpec::Generated {
                set: Classification2d {
                    shape: crate::datasets::plane::Shape2d::Blobs { margin: 0.3, spread: 0.5 },
                    n: 60,
                    label_noise: 0.0,
                    seed: 1,
                },
            },
            kernel: Kernel::linear(),
            algorithm: PerceptronAlgorithm::Perceptron,
            max_iter: default_max_iter(),
            margin: None,
            race: RaceSpec::default(),
        }
    }
}

impl PerceptronSpec {
    /// Parse JSON (untagged, or tagged `"paper": "perceptron"`) with the failing field named.
    pub fn from_json(s: &str) -> Result<Self> {
        crate::spec_json::parse_as(crate::spec_json::Paper::Perceptron, s)
    }

    /// The spec as tagged JSON text (`"paper": "perceptron"` first), as the page's links hold it.
    pub fn to_tagged_json(&self) -> String {
        crate::spec_json::tagged_value(crate::spec_json::Paper::Perceptron, self).to_string()
    }

    /// JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Margin computation effort for the page (a bracket, not 1e-6 accuracy, is what it shows).
pub fn page_margin_options() -> MarginOptions {
    MarginOptions { rel_tol: 1e-3, zero_tol: 1e-6, max_iter: 20_000, search_iter: 500 }
}
