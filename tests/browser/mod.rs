//! Helpers shared by the wasm-bindgen tests (`tests/web*.rs`, headless Chromium): real canvases
//! in the test page, their pixels, and fields of the JS objects the exports return.
#![allow(dead_code)]

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A `w × h` canvas appended to the test page's body.
pub fn canvas(w: u32, h: u32) -> HtmlCanvasElement {
    let doc = web_sys::window().and_then(|w| w.document()).expect("a document");
    let c: HtmlCanvasElement =
        doc.create_element("canvas").expect("canvas").dyn_into().expect("a canvas element");
    c.set_width(w);
    c.set_height(h);
    doc.body().expect("body").append_child(&c).expect("append");
    c
}

/// All RGBA bytes of a canvas.
pub fn pixels(c: &HtmlCanvasElement) -> Vec<u8> {
    let ctx: CanvasRenderingContext2d =
        c.get_context("2d").ok().flatten().expect("2d").dyn_into().expect("ctx");
    ctx.get_image_data(0.0, 0.0, c.width() as f64, c.height() as f64).expect("image data").data().0
}

/// Sum of all RGBA bytes: changes when anything is painted.
pub fn pixel_sum(c: &HtmlCanvasElement) -> u64 {
    pixels(c).iter().map(|&b| b as u64).sum()
}

/// `v[path[0]][path[1]]…`, undefined where a step is missing.
pub fn get(v: &JsValue, path: &[&str]) -> JsValue {
    let mut cur = v.clone();
    for p in path {
        cur = js_sys::Reflect::get(&cur, &(*p).into()).unwrap_or(JsValue::UNDEFINED);
    }
    cur
}

/// A numeric field (NaN when missing or not a number).
pub fn num(v: &JsValue, name: &str) -> f64 {
    get(v, &[name]).as_f64().unwrap_or(f64::NAN)
}

/// A string field (None when missing or not a string).
pub fn text(v: &JsValue, name: &str) -> Option<String> {
    get(v, &[name]).as_string()
}

/// A boolean field (None when missing or not a boolean).
pub fn flag(v: &JsValue, name: &str) -> Option<bool> {
    get(v, &[name]).as_bool()
}

/// The message of an error an export returned.
pub fn err_text(e: wasm_bindgen::JsError) -> String {
    let v: JsValue = e.into();
    get(&v, &["message"]).as_string().unwrap_or_default()
}
