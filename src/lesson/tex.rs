//! The math subset of lesson text, declared once: the parser (`Lesson::parse`) accepts exactly
//! these commands, `www/tex-commands.js` (which the page's renderer `www/lesson-text.js` reads) is
//! generated from this table, and so is the list in docs/lessons.md; `tests/lesson_elements.rs`
//! keeps both generated files equal to it.

/// How a command renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tex {
    /// Handled by the renderer's grammar (`\frac{a}{b}`, `\sqrt{a}`, `\text{…}`, accents, …).
    Structure,
    /// An upright function name (`\exp` → exp).
    Word(&'static str),
    /// An operator or relation (`\leq` → ≤).
    Symbol(&'static str),
    /// A letter (`\alpha` → α).
    Letter(&'static str),
    /// A large operator whose limits go under and over it in display math (`\sum`).
    Large(&'static str),
}

use Tex::{Large as G, Letter as L, Structure as S, Symbol as Y, Word as W};

/// Every TeX command lesson math may use.
pub const TEX: &[(&str, Tex)] = &[
    ("frac", S),
    ("sqrt", S),
    ("text", S),
    ("mathrm", S),
    ("operatorname", S),
    ("mathbb", S),
    ("bar", S),
    ("tilde", S),
    ("hat", S),
    ("quad", S),
    ("left", S),
    ("right", S),
    ("sum", G("∑")),
    ("prod", G("∏")),
    ("max", W("max")),
    ("min", W("min")),
    ("sup", W("sup")),
    ("inf", W("inf")),
    ("lim", W("lim")),
    ("argmin", W("argmin")),
    ("argmax", W("argmax")),
    ("log", W("log")),
    ("ln", W("ln")),
    ("exp", W("exp")),
    ("sign", W("sign")),
    ("diag", W("diag")),
    ("tr", W("tr")),
    ("card", W("card")),
    ("top", Y("⊤")),
    ("nabla", Y("∇")),
    ("partial", Y("∂")),
    ("infty", Y("∞")),
    ("cdot", Y("·")),
    ("times", Y("×")),
    ("le", Y("≤")),
    ("leq", Y("≤")),
    ("ge", Y("≥")),
    ("geq", Y("≥")),
    ("neq", Y("≠")),
    ("approx", Y("≈")),
    ("to", Y("→")),
    ("mapsto", Y("↦")),
    ("in", Y("∈")),
    ("subset", Y("⊂")),
    ("mid", Y("∣")),
    ("pm", Y("±")),
    ("ldots", Y("…")),
    ("cdots", Y("⋯")),
    ("lVert", Y("‖")),
    ("rVert", Y("‖")),
    ("lvert", Y("|")),
    ("rvert", Y("|")),
    ("langle", Y("⟨")),
    ("rangle", Y("⟩")),
    ("alpha", L("α")),
    ("beta", L("β")),
    ("gamma", L("γ")),
    ("delta", L("δ")),
    ("epsilon", L("ϵ")),
    ("varepsilon", L("ε")),
    ("eta", L("η")),
    ("theta", L("θ")),
    ("kappa", L("κ")),
    ("lambda", L("λ")),
    ("mu", L("μ")),
    ("nu", L("ν")),
    ("xi", L("ξ")),
    ("pi", L("π")),
    ("rho", L("ρ")),
    ("sigma", L("σ")),
    ("tau", L("τ")),
    ("phi", L("ϕ")),
    ("varphi", L("φ")),
    ("chi", L("χ")),
    ("psi", L("ψ")),
    ("omega", L("ω")),
    ("Gamma", L("Γ")),
    ("Delta", L("Δ")),
    ("Theta", L("Θ")),
    ("Lambda", L("Λ")),
    ("Phi", L("Φ")),
    ("Psi", L("Ψ")),
    ("Omega", L("Ω")),
    ("Sigma", L("Σ")),
];

/// Whether `name` (without the backslash) is a command of the subset.
pub fn known(name: &str) -> bool {
    TEX.iter().any(|(n, _)| *n == name)
}

fn js_object(pick: impl Fn(Tex) -> Option<&'static str>) -> String {
    let items: Vec<String> =
        TEX.iter().filter_map(|(n, t)| pick(*t).map(|v| format!("{n}: '{v}'"))).collect();
    format!("{{ {} }}", items.join(", "))
}

/// `www/tex-commands.js`, the renderer's table (generated; a test keeps the file equal).
pub fn javascript() -> String {
    let structure: Vec<String> =
        TEX.iter().filter(|(_, t)| *t == S).map(|(n, _)| format!("'{n}'")).collect();
    format!(
        "// Generated from src/lesson/tex.rs (the one list of lesson math commands) by\n\
         // tests/lesson_elements.rs with KPLAY_UPDATE_DOCS=1: do not edit by hand.\n\
         export const TEX_STRUCTURE = [{}];\n\
         export const TEX_WORDS = {};\n\
         export const TEX_SYMBOLS = {};\n\
         export const TEX_LETTERS = {};\n\
         export const TEX_LARGE = {};\n",
        structure.join(", "),
        js_object(|t| if let W(v) = t { Some(v) } else { None }),
        js_object(|t| if let Y(v) = t { Some(v) } else { None }),
        js_object(|t| if let L(v) = t { Some(v) } else { None }),
        js_object(|t| if let G(v) = t { Some(v) } else { None }),
    )
}

/// docs/lessons.md's list of the commands (generated; a test keeps the doc equal).
pub fn markdown() -> String {
    let list = |pick: &dyn Fn(Tex) -> Option<String>| -> String {
        TEX.iter()
            .filter_map(|(n, t)| pick(*t).map(|v| format!("`\\{n}`{v}")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "- structure: `\\frac{{a}}{{b}}`, `\\sqrt{{a}}`, `\\text{{…}}`, `\\mathrm{{…}}` and \
         `\\operatorname{{…}}` (upright text), `\\mathbb{{K}}` (𝕂, ℝ, ℕ …), `\\bar{{w}}`, \
         `\\tilde{{φ}}`, `\\hat{{f}}`, `\\quad`, `\\left( … \\right)` (the delimiters only);\n\
         - large operators (limits under and over in display math): {};\n\
         - function names: {};\n\
         - symbols: {};\n\
         - letters: {}.\n",
        list(&|t| if let G(v) = t { Some(format!(" {v}")) } else { None }),
        list(&|t| if let W(_) = t { Some(String::new()) } else { None }),
        list(&|t| if let Y(v) = t { Some(format!(" {v}")) } else { None }),
        list(&|t| if let L(v) = t { Some(format!(" {v}")) } else { None }),
    )
}
