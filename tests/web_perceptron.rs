//! wasm-bindgen tests of paper D's page API in headless Chromium: build, step to a verified
//! outcome, draw into real canvases (pixels change), reject bad input without panicking.
#![cfg(target_arch = "wasm32")]

use kernel_playground::web::perceptron::{
    draw_hand_points, perceptron_default_spec, PerceptronPlayground,
};
use wasm_bindgen_test::*;

mod browser;
use browser::{canvas, get, pixels};

wasm_bindgen_test_configure!(run_in_browser);

fn spec(data: &str, algorithm: &str) -> String {
    format!(
        r#"{{"data":{data},"kernel":{{"kind":"linear"}},"algorithm":{algorithm},"max_iter":100000}}"#
    )
}

#[wasm_bindgen_test]
fn default_run_ends_with_a_verified_separator_and_draws() {
    let mut pg = PerceptronPlayground::new(&perceptron_default_spec())
        .map_err(|_| ())
        .expect("default spec is valid");
    let s0 = pg.summary().map_err(|_| ()).expect("summary");
    assert_eq!(get(&s0, &["iter"]).as_f64(), Some(0.0));
    let b = canvas(480, 360);
    pg.draw_boundary(b.clone(), 1.0).map_err(|_| ()).expect("draw");
    let before = pixels(&b);
    let s1 = pg.step().map_err(|_| ()).expect("step");
    assert_eq!(get(&s1, &["iter"]).as_f64(), Some(1.0));
    let s = pg.run_for(10_000.0).map_err(|_| ()).expect("run");
    assert_eq!(get(&s, &["outcome", "kind"]).as_string().as_deref(), Some("separator"));
    assert_eq!(get(&s, &["outcome", "check", "verified"]).as_bool(), Some(true));
    let (c, n) = (get(&s, &["outcome", "check", "correct"]).as_f64(), get(&s, &["n"]).as_f64());
    assert_eq!(c, n);
    pg.draw_boundary(b.clone(), 1.0).map_err(|_| ()).expect("draw");
    assert_ne!(before, pixels(&b), "the boundary moved as α changed");
    let t = canvas(480, 300);
    let blank = pixels(&t);
    pg.draw_trace(t.clone(), 1.0).map_err(|_| ()).expect("trace");
    assert_ne!(blank, pixels(&t));
    // A click in the middle of the plot maps into the view.
    let xy = pg.data_at(240.0, 180.0);
    assert!(xy.len() == 2 && xy.iter().all(|v| v.is_finite()));
}

#[wasm_bindgen_test]
fn nvn_on_overlapping_blobs_gives_a_certificate_and_the_race_draws() {
    let data = r#"{"kind":"generated","set":{"shape":{"kind":"blobs","margin":-1.5,"spread":0.5},"n":80,"label_noise":0,"seed":1}}"#;
    let mut pg = PerceptronPlayground::new(&spec(data, r#"{"kind":"nvn","epsilon":0.01}"#))
        .map_err(|_| ())
        .expect("valid");
    let s = pg.run_for(20_000.0).map_err(|_| ()).expect("run");
    assert_eq!(get(&s, &["outcome", "kind"]).as_string().as_deref(), Some("certificate"));
    assert_eq!(get(&s, &["outcome", "check", "verified"]).as_bool(), Some(true));
    assert!(get(&s, &["outcome", "check", "norm_g"]).as_f64().unwrap() <= 0.01);
    pg.start_race().map_err(|_| ()).expect("race");
    let mut done = false;
    for _ in 0..200 {
        let r = pg.race_for(50.0).map_err(|_| ()).expect("race step");
        if get(&r, &["finished"]).as_bool() == Some(true) {
            done = true;
            break;
        }
    }
    assert!(done, "the race finishes");
    let c = canvas(480, 260);
    let blank = pixels(&c);
    pg.draw_race(c.clone(), 1.0).map_err(|_| ()).expect("draw race");
    assert_ne!(blank, pixels(&c));
}

#[wasm_bindgen_test]
fn bad_input_is_rejected_with_a_message_and_the_old_run_kept() {
    let one_class = r#"{"kind":"points","points":[[0.5,0.5,1],[1,-0.2,1]]}"#;
    let e = PerceptronPlayground::new(&spec(one_class, r#"{"kind":"snkp"}"#))
        .err()
        .expect("one class is an error");
    let msg: wasm_bindgen::JsValue = e.into();
    let text = js_sys::Reflect::get(&msg, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_default();
    assert!(text.contains("all labels are equal"), "{text}");
    assert!(PerceptronPlayground::new(&spec(
        r#"{"kind":"points","points":[[0.5,0.5,1]]}"#,
        r#"{"kind":"snkp"}"#
    ))
    .is_err());
    assert!(PerceptronPlayground::new(&spec(
        r#"{"kind":"points","points":[[0,0,1],[1,1,-1]]}"#,
        r#"{"kind":"snkp"}"#
    ))
    .is_err());
    let mut pg =
        PerceptronPlayground::new(&perceptron_default_spec()).map_err(|_| ()).expect("valid");
    let blobs = r#"{"kind":"generated","set":{"shape":{"kind":"blobs","margin":0.5,"spread":0.5},"n":60,"label_noise":0,"seed":1}}"#;
    assert!(pg.update(&spec(blobs, r#"{"kind":"nvn","epsilon":0}"#)).is_err());
    assert!(pg.update(&spec(blobs, r#"{"kind":"isnkpvn","gamma":1,"epsilon":0.1}"#)).is_err());
    assert!(pg.update("{not json").is_err());
    // The old run still works.
    let s = pg.run_for(10_000.0).map_err(|_| ()).expect("still runs");
    assert_eq!(get(&s, &["outcome", "check", "verified"]).as_bool(), Some(true));
    // Hand-made points that are not a valid set yet still draw.
    let c = canvas(300, 200);
    let blank = pixels(&c);
    draw_hand_points(c.clone(), 1.0, "[[0.5,0.5,1]]").map_err(|_| ()).expect("draw points");
    assert_ne!(blank, pixels(&c));
}
