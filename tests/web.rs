//! wasm-bindgen tests in headless Chromium: the exported API steps the solver and draws into a
//! real canvas. Run with `wasm-pack test --headless --chrome` (or `make test-wasm`).
#![cfg(target_arch = "wasm32")]

use kernel_playground::web::run_worker::RunWorker;
use kernel_playground::web::tensor_worker::TensorBuilder;
use kernel_playground::web::{default_spec, Playground};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

wasm_bindgen_test_configure!(run_in_browser);

fn canvas(w: u32, h: u32) -> HtmlCanvasElement {
    let doc = web_sys::window().and_then(|w| w.document()).expect("a document");
    let c: HtmlCanvasElement =
        doc.create_element("canvas").expect("canvas").dyn_into().expect("a canvas element");
    c.set_width(w);
    c.set_height(h);
    doc.body().expect("body").append_child(&c).expect("append");
    c
}

/// Sum of all RGBA bytes: changes when anything is painted.
fn pixel_sum(c: &HtmlCanvasElement) -> u64 {
    let ctx: CanvasRenderingContext2d =
        c.get_context("2d").ok().flatten().expect("2d").dyn_into().expect("ctx");
    let img =
        ctx.get_image_data(0.0, 0.0, c.width() as f64, c.height() as f64).expect("image data");
    img.data().0.iter().map(|&b| b as u64).sum()
}

fn field(v: &wasm_bindgen::JsValue, name: &str) -> f64 {
    js_sys::Reflect::get(v, &name.into()).ok().and_then(|x| x.as_f64()).unwrap_or(f64::NAN)
}

#[wasm_bindgen_test]
fn steps_lower_the_gap_and_draw_into_canvases() {
    let mut pg = Playground::new(&default_spec()).map_err(|_| ()).expect("default spec is valid");
    let s0 = pg.summary().map_err(|_| ()).expect("summary");
    assert_eq!(field(&s0, "iter"), 0.0);
    let g0 = field(&s0, "gap");
    let s1 = pg.step().map_err(|_| ()).expect("step");
    assert_eq!(field(&s1, "iter"), 1.0);
    let s = pg.run_for(10_000.0).map_err(|_| ()).expect("run");
    assert!(field(&s, "gap") < 1e-6 * g0, "gap {} from {}", field(&s, "gap"), g0);
    assert!(field(&s, "gap") >= 0.0);

    for draw in [0, 1] {
        let c = canvas(400, 250);
        let before = pixel_sum(&c);
        if draw == 0 {
            pg.draw_convergence(c.clone(), 1.0).map_err(|_| ()).expect("draw");
        } else {
            pg.draw_spikes(c.clone(), 2.0, None).map_err(|_| ()).expect("draw");
        }
        let after = pixel_sum(&c);
        assert_ne!(before, after, "canvas {draw} unchanged");
    }
}

#[wasm_bindgen_test]
fn bad_specs_are_errors_and_the_module_keeps_working() {
    for bad in [
        "{not json",
        r#"{"data":{"kind":"sparse_regression","n":10,"d":5,"k":9,"sigma":0,"seed":1},"model":{"problem":"lp_regression","p":1.5,"gamma":1}}"#,
        r#"{"data":{"kind":"sparse_regression","n":10,"d":5,"k":1,"sigma":0,"seed":1},"model":{"problem":"lp_regression","p":2.5,"gamma":1}}"#,
        r#"{"data":{"kind":"csv","text":"a,y\n1,NaN\n"},"model":{"problem":"lp_regression","p":1.5,"gamma":1}}"#,
    ] {
        assert!(Playground::new(bad).is_err(), "accepted {bad}");
    }
    let mut pg = Playground::new(&default_spec()).map_err(|_| ()).expect("valid");
    assert!(pg.update(r#"{"data":{"kind":"sparse_regression","n":0,"d":5,"k":1,"sigma":0,"seed":1},"model":{"problem":"lp_regression","p":1.5,"gamma":1}}"#).is_err());
    let s = pg.step().map_err(|_| ()).expect("still steps after a rejected update");
    assert_eq!(field(&s, "iter"), 1.0);
}

#[wasm_bindgen_test]
fn csv_data_run_in_the_browser() {
    let spec = r#"{"data":{"kind":"csv","text":"x1,x2,y\n1,0,1\n0,1,-1\n1,1,0.5\n"},"model":{"problem":"lp_regression","p":1.5,"gamma":2}}"#;
    let mut pg = Playground::new(spec).map_err(|_| ()).expect("csv spec");
    let s = pg.run_for(5_000.0).map_err(|_| ()).expect("run");
    assert_eq!(
        js_sys::Reflect::get(&s, &"status".into()).ok().and_then(|v| v.as_string()).as_deref(),
        Some("converged")
    );
    assert_eq!(pg.w().len(), 2);
}

fn flag(v: &wasm_bindgen::JsValue, name: &str) -> Option<bool> {
    js_sys::Reflect::get(v, &name.into()).ok().and_then(|x| x.as_bool())
}

fn text(v: &wasm_bindgen::JsValue, name: &str) -> Option<String> {
    js_sys::Reflect::get(v, &name.into()).ok().and_then(|x| x.as_string())
}

fn err_text(e: wasm_bindgen::JsError) -> String {
    let v: wasm_bindgen::JsValue = e.into();
    js_sys::Reflect::get(&v, &"message".into()).ok().and_then(|m| m.as_string()).unwrap_or_default()
}

#[wasm_bindgen_test]
fn a_tensor_built_by_the_worker_api_solves_like_the_features_path() {
    let data = r#""data":{"kind":"sparse_regression","n":12,"d":6,"k":2,"sigma":0.1,"seed":4}"#;
    let tensor = format!(
        r#"{{{data},"model":{{"problem":"lp_regression","p":1.3333333333333333,"gamma":3,"path":"tensor"}},"solver":{{"algorithm":"prox_dual","tol":1e-12}}}}"#
    );
    let feats = tensor.replace(r#","path":"tensor""#, "");
    let mut t = Playground::new(&tensor).map_err(|_| ()).expect("tensor spec");
    let cost = t.tensor_cost().map_err(|_| ()).expect("cost");
    assert_eq!(field(&cost, "entries"), 1365.0); // C(12 + 3, 4)
    assert_eq!(
        text(&t.summary().map_err(|_| ()).expect("summary"), "phase").as_deref(),
        Some("needs_build")
    );
    // What the worker does, here on one thread: build in small slices, take the values.
    let mut b = TensorBuilder::new(&tensor, None).map_err(|_| ()).expect("builder");
    assert!(b.take_values().is_err(), "values before the build is finished");
    let (mut last, mut calls) = (-1.0, 0);
    loop {
        let st = b.advance(0.01).map_err(|_| ()).expect("advance");
        let done = field(&st, "done");
        assert!(done > last && done <= 1365.0, "progress {done} after {last}");
        assert_eq!(field(&st, "total"), 1365.0);
        assert!((field(&st, "fraction") - done / 1365.0).abs() < 1e-15);
        last = done;
        calls += 1;
        if flag(&st, "finished") == Some(true) {
            break;
        }
        assert!(calls < 100_000);
    }
    let values = b.take_values().map_err(|_| ()).expect("values");
    assert_eq!(values.len(), 1365);
    assert!(b.take_values().is_err(), "values are moved out once");
    // The page's Playground refuses a tensor that does not fit, and keeps waiting.
    assert_eq!(t.tensor_key(), Some(b.key()));
    let e = t
        .adopt_tensor(values[1..].to_vec(), 1.0, &b.key())
        .err()
        .map(err_text)
        .expect("wrong count refused");
    assert!(e.contains("1365"), "{e}");
    let mut nan = values.clone();
    nan[7] = f64::NAN;
    assert!(t.adopt_tensor(nan, 1.0, &b.key()).is_err());
    let e = t
        .adopt_tensor(values.clone(), 1.0, "0000/linear/q=4")
        .err()
        .map(err_text)
        .expect("foreign key refused");
    assert!(e.contains("build it again"), "{e}");
    assert!(!t.has_tensor());
    assert_eq!(
        text(&t.summary().map_err(|_| ()).expect("summary"), "phase").as_deref(),
        Some("needs_build")
    );
    t.adopt_tensor(values.clone(), b.build_ms(), &b.key()).map_err(|_| ()).expect("adopted");
    assert!(t.has_tensor());
    assert_eq!(t.build_ms(), b.build_ms());
    let st = t.run_for(10_000.0).map_err(|_| ()).expect("solve");
    assert_eq!(text(&st, "phase").as_deref(), Some("solving"));
    let mut f = Playground::new(&feats).map_err(|_| ()).expect("features spec");
    let sf = f.run_for(10_000.0).map_err(|_| ()).expect("solve");
    let (a, c) = (field(&st, "primal"), field(&sf, "primal"));
    assert!((a - c).abs() <= 1e-10 * c.abs(), "tensor {a} vs features {c}");
    // A γ change keeps the tensor (same key); a new seed drops it.
    t.update(&tensor.replace(r#""gamma":3"#, r#""gamma":4"#)).map_err(|_| ()).expect("retune");
    assert!(t.has_tensor());
    t.update(&tensor.replace(r#""seed":4"#, r#""seed":5"#)).map_err(|_| ()).expect("new data");
    assert!(!t.has_tensor());
    assert!(t.adopt_tensor(values, 1.0, &b.key()).is_err(), "the old data's tensor no longer fits");
    // The features path adopts nothing.
    assert!(f.tensor_key().is_none());
}

#[wasm_bindgen_test]
fn the_builder_refuses_bad_requests_and_reports_overflow() {
    let spec = |extra: &str, d: usize| {
        format!(
            r#"{{"data":{{"kind":"sparse_regression","n":10,"d":{d},"k":2,"sigma":0.1,"seed":4}},"model":{{"problem":"lp_regression","p":1.3333333333333333,"gamma":3,"path":"tensor"{extra}}},"solver":{{"algorithm":"prox_dual"}}}}"#
        )
    };
    let msg =
        |r: Result<TensorBuilder, wasm_bindgen::JsError>| r.err().map(err_text).expect("refused");
    assert!(msg(TensorBuilder::new(&spec("", 5), Some(100.0))).contains("budget"));
    assert!(msg(TensorBuilder::new(&spec("", 5), Some(f64::NAN))).contains("budget"));
    assert!(msg(TensorBuilder::new(&spec("", 5).replace(r#","path":"tensor""#, ""), None))
        .contains("features path"));
    assert!(TensorBuilder::new("{not json", None).is_err());
    // exp(Σ x⁴) over d = 3000 standard normal coordinates overflows: an error, not a panic.
    let mut b = TensorBuilder::new(&spec(r#","kernel":{"kind":"exponential"}"#, 3000), None)
        .map_err(|_| ())
        .expect("builder");
    let e = b.advance(10_000.0).err().map(err_text).expect("overflow");
    assert!(e.contains("exp"), "{e}");
    assert!(b.advance(1.0).is_err(), "a failed build stays failed");
    assert!(b.take_values().is_err());
}

#[wasm_bindgen_test]
fn the_race_reaches_the_reference_optimum_and_draws() {
    let spec = r#"{"data":{"kind":"sparse_regression","n":20,"d":40,"k":3,"sigma":0.1,"seed":4},"model":{"problem":"lp_regression","p":1.3333333333333333,"gamma":3},"solver":{"max_iter":3000}}"#;
    let mut pg = Playground::new(spec).map_err(|_| ()).expect("spec");
    pg.start_race().map_err(|_| ()).expect("race");
    let st = pg.race_for(60_000.0).map_err(|_| ()).expect("race step");
    let st =
        if js_sys::Reflect::get(&st, &"phase".into()).ok().and_then(|v| v.as_string()).as_deref()
            == Some("done")
        {
            st
        } else {
            pg.race_for(60_000.0).map_err(|_| ()).expect("race step")
        };
    let lanes: js_sys::Array =
        js_sys::Reflect::get(&st, &"lanes".into()).expect("lanes").dyn_into().expect("array");
    assert_eq!(lanes.length(), 5);
    for l in lanes.iter() {
        let e = field(&l, "rel_err");
        assert!(e > -1e-12, "below F*: {e}");
    }
    let c = canvas(400, 300);
    pg.draw_race(c.clone(), 1.0).map_err(|_| ()).expect("draw");
    assert!(pixel_sum(&c) > 0);
}

/// Drive a `RunWorker` as www/run-worker.js does (small slices) until the job is done.
fn run_job(rw: &mut RunWorker, spec: &str) -> wasm_bindgen::JsValue {
    rw.start(spec).map_err(|_| ()).expect("job accepted");
    let mut phases: Vec<String> = vec![];
    for _ in 0..1_000_000 {
        let st = rw.advance(0.5).map_err(|_| ()).expect("advance");
        let ph = text(&st, "phase").unwrap_or_default();
        if phases.last() != Some(&ph) {
            phases.push(ph.clone());
        }
        if ph == "done" {
            return st;
        }
    }
    panic!("the job did not finish: phases {phases:?}");
}

#[wasm_bindgen_test]
fn the_preset_worker_api_ends_where_a_playground_run_ends() {
    let data = r#""data":{"kind":"sparse_regression","n":14,"d":30,"k":3,"sigma":0.05,"seed":6}"#;
    let feats = format!(
        r#"{{{data},"model":{{"problem":"lp_regression","p":1.25,"gamma":10}},"solver":{{"algorithm":"dual_gradient","tol":1e-8,"max_iter":5000}}}}"#
    );
    let tensor = format!(
        r#"{{{data},"model":{{"problem":"lp_regression","p":1.3333333333333333,"gamma":10,"path":"tensor"}},"solver":{{"algorithm":"prox_dual","tol":1e-8,"max_iter":5000}}}}"#
    );
    let newton = tensor.replace("prox_dual", "dual_newton");
    let mut rw = RunWorker::new();
    assert!(rw.advance(1.0).is_err(), "no job yet");
    // Features path: same iterations and objective as the page's Playground.
    let st = run_job(&mut rw, &feats);
    let first_iter = field(&st, "iter");
    let mut pg = Playground::new(&feats).map_err(|_| ()).expect("spec");
    let sp = pg.run_for(60_000.0).map_err(|_| ()).expect("run");
    assert_eq!(text(&st, "status"), text(&sp, "status"));
    assert_eq!(text(&st, "status").as_deref(), Some("converged"));
    assert_eq!(field(&st, "iter"), field(&sp, "iter"));
    assert_eq!(field(&st, "primal"), field(&sp, "primal"));
    assert_eq!(field(&st, "rel_gap"), field(&sp, "rel_gap"));
    assert_eq!(flag(&st, "tensor_path"), Some(false));
    assert_eq!(rw.tensor_values().len(), 0);
    // Tensor path: the worker builds the tensor; the page adopts a copy and solves the same way.
    let st = run_job(&mut rw, &tensor);
    assert_eq!(flag(&st, "data_reused"), Some(true), "same data as the previous job");
    assert_eq!(flag(&st, "tensor_reused"), Some(false));
    assert_eq!(field(&st, "build_fraction"), 1.0);
    let values = rw.tensor_values();
    assert_eq!(values.len(), 2380); // C(14 + 3, 4)
    let mut t = Playground::new(&tensor).map_err(|_| ()).expect("spec");
    t.adopt_tensor(values, 1.0, &rw.tensor_key())
        .map_err(|_| ())
        .expect("the worker's tensor fits the page's spec");
    let sp = t.run_for(60_000.0).map_err(|_| ()).expect("run");
    assert_eq!(field(&st, "iter"), field(&sp, "iter"));
    assert_eq!(field(&st, "primal"), field(&sp, "primal"));
    // The next job on the same tensor reuses it and reaches the same optimum.
    let sn = run_job(&mut rw, &newton);
    assert_eq!(flag(&sn, "tensor_reused"), Some(true));
    assert_eq!(field(&sn, "build_ms"), 0.0);
    let (a, b) = (field(&sn, "primal"), field(&sp, "primal"));
    assert!((a - b).abs() <= 1e-7 * b.abs(), "Newton {a} vs Algorithm 3.3 {b}");
    // A bad spec is refused with a message and the worker keeps working.
    let e = rw.start(&feats.replace("1.25", "2.5")).err().map(err_text).expect("refused");
    assert!(e.contains('p'), "{e}");
    let again = run_job(&mut rw, &feats);
    assert_eq!(field(&again, "iter"), first_iter);
    assert_eq!(flag(&again, "data_reused"), Some(true));
}
