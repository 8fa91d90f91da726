//! Text in plots: one formatter for numbers ([`num`]), a size estimate without a font
//! ([`text_width`], [`text_box`]) and rich text with sub- and superscripts ([`rich_runs`],
//! [`draw_rich_text`]). Split from `plots::style` (re-exported there) so each file is one concept.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
// ---------------------------------------------------------------------------------------------
// Numbers.

/// `v` rounded to three significant digits (0.018903 → 0.0189), for labels that must stay narrow;
/// zero and non-finite values unchanged.
pub fn three_digits(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    // Scientific notation with two decimals rounds in decimal, as a reader would.
    format!("{v:.2e}").parse().unwrap_or(v)
}

/// A number as a reader writes it: plain with up to 5 significant digits and thin-space groups of
/// thousands (0.1, 4 861.4, −0.0035) from 10⁻³ to 10⁶, otherwise `m × 10ᵏ` with a Unicode
/// superscript exponent (2.71 × 10⁹). Zero is "0", non-finite values are written as such.
pub fn num(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return if v.is_nan() {
            "NaN".into()
        } else if v > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    let a = v.abs();
    let sign = if v < 0.0 { "−" } else { "" };
    if (1e-3..1e6).contains(&a) {
        // 5 significant digits, trailing zeros dropped.
        let decimals = (4 - a.log10().floor() as i32).clamp(0, 8) as usize;
        let mut t = format!("{a:.decimals$}");
        if t.contains('.') {
            t = t.trim_end_matches('0').trim_end_matches('.').to_string();
        }
        let (int, frac) = match t.split_once('.') {
            Some((i, f)) => (i.to_string(), Some(f.to_string())),
            None => (t.clone(), None),
        };
        let mut grouped = String::new();
        let digits: Vec<char> = int.chars().collect();
        for (k, c) in digits.iter().enumerate() {
            if k > 0 && (digits.len() - k).is_multiple_of(3) && digits.len() > 3 {
                grouped.push('\u{2009}');
            }
            grouped.push(*c);
        }
        match frac {
            Some(f) => format!("{sign}{grouped}.{f}"),
            None => format!("{sign}{grouped}"),
        }
    } else {
        let e = a.log10().floor() as i32;
        let mut m = a / 10f64.powi(e);
        let mut e = e;
        if format!("{m:.2}").starts_with("10") {
            m /= 10.0;
            e += 1;
        }
        let mt = format!("{m:.2}");
        let mt = mt.trim_end_matches('0').trim_end_matches('.');
        let exp = superscript(&e.to_string()).unwrap_or_else(|| format!("^{e}"));
        if mt == "1" {
            format!("{sign}10{exp}")
        } else {
            format!("{sign}{mt} × 10{exp}")
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Text: size estimate, sub- and superscripts.

/// Width of one character in em of a sans-serif font (DejaVu/Liberation Sans, rounded up), so
/// a text box estimated from it holds the text as drawn by a browser or an SVG renderer.
fn char_em(c: char) -> f64 {
    match c {
        '\u{300}'..='\u{36f}' => 0.0,
        ' ' | 'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '!' | '|' | '\'' | '\u{2009}' => 0.32,
        'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '/' | '-' | 'I' | '{' | '}' | '‖' => 0.42,
        'm' | 'M' | 'W' | '—' => 0.98,
        'w' | 'Σ' | '∑' | '×' | '%' => 0.84,
        '₀'..='₉'
        | 'ᵢ'
        | 'ⱼ'
        | 'ₖ'
        | 'ₘ'
        | 'ₙ'
        | 'ₚ'
        | 'ₐ'
        | 'ₑ'
        | 'ₒ'
        | 'ₓ'
        | 'ₕ'
        | 'ₗ'
        | 'ₛ'
        | 'ₜ'
        | 'ᵣ'
        | 'ᵤ'
        | 'ᵥ'
        | '⁰'
        | '¹'
        | '²'
        | '³'
        | '⁴'..='⁹'
        | '⁻'
        | '⁺'
        | 'ᵐ'
        | 'ⁿ'
        | 'ⁱ'
        | 'ᵏ'
        | 'ᵀ' => 0.45,
        c if c.is_ascii_digit() => 0.64,
        c if c.is_uppercase() => 0.76,
        _ => 0.64,
    }
}

/// Estimated width in pixels of `text` drawn at `size` pixels (sans-serif).
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().map(char_em).sum::<f64>() * size
}

/// The box `[left, top, right, bottom]` of a one-line text of `size` pixels anchored at `pos`
/// with `anchor` (height = `size`): what a label occupies.
pub fn text_box(text: &str, size: f64, pos: (i32, i32), anchor: Pos) -> [i32; 4] {
    let w = text_width(text, size).ceil() as i32;
    let h = size.ceil() as i32;
    let x0 = match anchor.h_pos {
        HPos::Left => pos.0,
        HPos::Center => pos.0 - w / 2,
        HPos::Right => pos.0 - w,
    };
    let y0 = match anchor.v_pos {
        VPos::Top => pos.1,
        VPos::Center => pos.1 - h / 2,
        VPos::Bottom => pos.1 - h,
    };
    [x0, y0, x0 + w, y0 + h]
}

fn sub_char(c: char) -> Option<char> {
    Some(match c {
        '0'..='9' => char::from_u32('₀' as u32 + (c as u32 - '0' as u32))?,
        '+' => '₊',
        '-' | '−' => '₋',
        '=' => '₌',
        '(' => '₍',
        ')' => '₎',
        'a' => 'ₐ',
        'e' => 'ₑ',
        'o' => 'ₒ',
        'x' => 'ₓ',
        'h' => 'ₕ',
        'k' => 'ₖ',
        'l' => 'ₗ',
        'm' => 'ₘ',
        'n' => 'ₙ',
        'p' => 'ₚ',
        's' => 'ₛ',
        't' => 'ₜ',
        'i' => 'ᵢ',
        'j' => 'ⱼ',
        'r' => 'ᵣ',
        'u' => 'ᵤ',
        'v' => 'ᵥ',
        _ => return None,
    })
}

fn sup_char(c: char) -> Option<char> {
    Some(match c {
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '4'..='9' => char::from_u32('⁴' as u32 + (c as u32 - '4' as u32))?,
        '+' => '⁺',
        '-' | '−' => '⁻',
        '=' => '⁼',
        '(' => '⁽',
        ')' => '⁾',
        'n' => 'ⁿ',
        'i' => 'ⁱ',
        'm' => 'ᵐ',
        'k' => 'ᵏ',
        'a' => 'ᵃ',
        'b' => 'ᵇ',
        'd' => 'ᵈ',
        'e' => 'ᵉ',
        'p' => 'ᵖ',
        't' => 'ᵗ',
        'x' => 'ˣ',
        'T' => 'ᵀ',
        '*' => '*',
        _ => return None,
    })
}

/// `text` in Unicode subscript characters, if every character has one.
pub fn subscript(text: &str) -> Option<String> {
    text.chars().map(sub_char).collect()
}

/// `text` in Unicode superscript characters, if every character has one.
pub fn superscript(text: &str) -> Option<String> {
    text.chars().map(sup_char).collect()
}

/// A run of rich text: on the baseline, lowered (subscript) or raised (superscript).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// On the baseline.
    Base,
    /// A subscript with no Unicode form, drawn smaller and lower.
    Sub,
    /// A superscript with no Unicode form, drawn smaller and higher.
    Sup,
}

/// Split plot text written with TeX-like marks — `x_i`, `x_{KRR(λ₂)}`, `λ‖f‖^m` — into runs:
/// a mark takes the braced group, or else the letters and digits after it. A sub- or
/// superscript whose every character has a Unicode form (₀–₉, ᵢ, ₖ, ², ᵐ…) joins the base
/// text; the others (K, G, H, α, MRLSR…) become their own smaller run.
pub fn rich_runs(text: &str) -> Vec<(Script, String)> {
    let mut out: Vec<(Script, String)> = vec![];
    let push = |out: &mut Vec<(Script, String)>, k: Script, t: &str| {
        if t.is_empty() {
            return;
        }
        match out.last_mut() {
            Some((lk, lt)) if *lk == k => lt.push_str(t),
            _ => out.push((k, t.to_string())),
        }
    };
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let mark = (c == '_' || c == '^') && i > 0 && i + 1 < chars.len();
        if !mark {
            push(&mut out, Script::Base, &c.to_string());
            i += 1;
            continue;
        }
        let (group, next) = if chars[i + 1] == '{' {
            let mut depth = 0;
            let mut j = i + 1;
            while j < chars.len() {
                match chars[j] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            (chars[i + 2..j.min(chars.len())].iter().collect::<String>(), j + 1)
        } else {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_alphanumeric() {
                j += 1;
            }
            (chars[i + 1..j].iter().collect::<String>(), j)
        };
        if group.is_empty() {
            push(&mut out, Script::Base, &c.to_string());
            i += 1;
            continue;
        }
        let (uni, kind) = if c == '_' {
            (subscript(&group), Script::Sub)
        } else {
            (superscript(&group), Script::Sup)
        };
        match uni {
            Some(u) => push(&mut out, Script::Base, &u),
            None => push(&mut out, kind, &group),
        }
        i = next;
    }
    out
}

/// The size of a smaller sub- or superscript run relative to the base text.
const SCRIPT_SCALE: f64 = 0.72;

/// Width and height in pixels of rich text (see [`rich_runs`]) at `size` pixels.
pub fn rich_size(text: &str, size: f64) -> (i32, i32) {
    let w: f64 = rich_runs(text)
        .iter()
        .map(|(k, t)| text_width(t, if *k == Script::Base { size } else { SCRIPT_SCALE * size }))
        .sum();
    (w.ceil() as i32, size.ceil() as i32)
}

/// Draw `text` with sub- and superscripts ([`rich_runs`]) on `area` at `pos` (pixels relative to
/// the area) with `anchor`, `size` pixels, in `color`. Returns the box it occupies (relative to
/// the area). Every plot draws its own text (titles, legends, labels) through this.
pub fn draw_rich_text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    pos: (i32, i32),
    anchor: Pos,
    size: f64,
    color: &RGBColor,
) -> DrawResult<[i32; 4], DB> {
    let runs = rich_runs(text);
    let (w, h) = rich_size(text, size);
    let x0 = match anchor.h_pos {
        HPos::Left => pos.0,
        HPos::Center => pos.0 - w / 2,
        HPos::Right => pos.0 - w,
    };
    // Every run is placed by its vertical centre, so the base runs share one line.
    let yc = match anchor.v_pos {
        VPos::Top => pos.1 + h / 2,
        VPos::Center => pos.1,
        VPos::Bottom => pos.1 - h / 2,
    };
    let mut x = x0 as f64;
    for (k, t) in &runs {
        let (sz, dy) = match k {
            Script::Base => (size, 0.0),
            Script::Sub => (SCRIPT_SCALE * size, 0.3 * size),
            Script::Sup => (SCRIPT_SCALE * size, -0.32 * size),
        };
        let style =
            ("sans-serif", sz).into_font().color(color).pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(t.as_str(), (x.round() as i32, yc + dy.round() as i32), style))?;
        x += text_width(t, sz);
    }
    Ok([x0, yc - h / 2, x0 + w, yc - h / 2 + h])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three significant digits, checked against the decimal digits written out by hand.
    #[test]
    fn three_digits_rounds_in_decimal() {
        for (v, want) in [
            (0.018903, 0.0189),
            (0.0021148, 0.00211),
            (0.044949, 0.0449),
            (-1234.5, -1230.0),
            (9.996e-5, 1.0e-4),
        ] {
            assert_eq!(three_digits(v), want, "{v}");
        }
        assert_eq!(three_digits(0.0), 0.0);
        assert!(three_digits(f64::NAN).is_nan());
        assert_eq!(num(three_digits(0.018903)), "0.0189");
    }

    /// The cases the page's JS twin (www/common.js `num`) is held to as well
    /// (tests/e2e/num.test.mjs): one format for plots, readouts and outcome boxes.
    #[test]
    fn numbers_as_the_shared_cases_say() {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/num-cases.json")).expect("json");
        let cases = v["cases"].as_array().expect("cases");
        assert!(cases.len() >= 20);
        for c in cases {
            let x = c[0].as_f64().expect("number");
            assert_eq!(num(x), c[1].as_str().expect("text"), "num({x})");
        }
    }

    #[test]
    fn numbers_plain_where_they_can_be() {
        assert_eq!(num(0.1), "0.1");
        assert_eq!(num(4861.4), "4\u{2009}861.4");
        assert_eq!(num(-0.0035), "−0.0035");
        assert_eq!(num(214.0), "214");
        assert_eq!(num(123456.7), "123\u{2009}457");
        assert_eq!(num(1e-7), "10⁻⁷");
        assert_eq!(num(2.71e9), "2.71 × 10⁹");
        assert_eq!(num(9.999e9), "10¹⁰");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(f64::NAN), "NaN");
    }

    #[test]
    fn sub_and_superscripts_in_unicode_where_they_exist() {
        let r = |t: &str| rich_runs(t);
        let base = |t: &str| vec![(Script::Base, t.to_string())];
        assert_eq!(r("α_i = 1/k_ii"), base("αᵢ = 1/kᵢᵢ"));
        assert_eq!(r("λ‖f‖^m"), base("λ‖f‖ᵐ"));
        assert_eq!(r("1/ρ^2"), base("1/ρ²"));
        assert_eq!(r("ρ_K"), vec![(Script::Base, "ρ".into()), (Script::Sub, "K".into())]);
        assert_eq!(
            r("‖p_k‖_G = 0.5"),
            vec![
                (Script::Base, "‖pₖ‖".into()),
                (Script::Sub, "G".into()),
                (Script::Base, " = 0.5".into())
            ]
        );
        assert_eq!(
            r("f_{KRR(λ₂)}‖_H"),
            vec![
                (Script::Base, "f".into()),
                (Script::Sub, "KRR(λ₂)".into()),
                (Script::Base, "‖".into()),
                (Script::Sub, "H".into())
            ]
        );
        // No mark: unchanged, a lone or trailing mark too.
        assert_eq!(r("duality gap F − D"), base("duality gap F − D"));
        assert_eq!(r("a_"), base("a_"));
        // The smaller run is narrower than the same text on the baseline.
        assert!(rich_size("ρ_K", 20.0).0 < rich_size("ρK", 20.0).0);
    }
}
