//! wasm-bindgen tests of paper C's page shell in headless Chromium: the exported API builds a
//! run, steps it to convergence, draws into real canvases and rejects bad input without dying.
//! `wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver -- --test web_dinuzzo`
#![cfg(target_arch = "wasm32")]

use kernel_playground::web::dinuzzo::{dinuzzo_default_spec, DinuzzoPlayground};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

mod browser;
use browser::{canvas, err_text, num, pixels, text};

wasm_bindgen_test_configure!(run_in_browser);

fn spec(data: &str, loss: &str, lambda: &str, method: &str, race: bool) -> String {
    format!(
        r#"{{"data":{data},"loss":{loss},"lambda":{lambda},"kernel":{{"kind":"gaussian","bandwidth":{{"fixed":0.5}}}},"method":{method},"race":{race}}}"#
    )
}

const MOONS: &str = r#"{"kind":"classification","shape":{"kind":"moons","noise":0.15},"n":60,"label_noise":0.0,"seed":3}"#;
const CD: &str = r#"{"kind":"coordinate","rule":"cyclic","seed":1,"tol":1e-8,"max_sweeps":20000}"#;

#[wasm_bindgen_test]
fn default_run_converges_and_draws() {
    let mut pg = DinuzzoPlayground::new(&dinuzzo_default_spec())
        .map_err(|_| ())
        .expect("default spec is valid");
    let s0 = pg.summary().map_err(|_| ()).expect("summary");
    assert_eq!(num(&s0, "sweep"), 0.0);
    let g0 = num(&s0, "gap");
    assert!(g0 > 0.0);
    let s1 = pg.step().map_err(|_| ()).expect("step");
    assert_eq!(num(&s1, "sweep"), 1.0);
    let s = pg.run_for(20_000.0).map_err(|_| ()).expect("run");
    assert_eq!(text(&s, "status").unwrap_or_default(), "converged");
    assert!(num(&s, "max_h") < 1e-8);
    assert!(
        num(&s, "gap") >= -1e-9 && num(&s, "gap") < 1e-6 * g0,
        "gap {} from {g0}",
        num(&s, "gap")
    );
    // Hinge: some coefficients are exactly zero, the support is a strict subset.
    let sv = num(&s, "support");
    assert!(sv > 0.0 && sv < num(&s, "n"), "support {sv}");
    let c = pg.coefficients();
    assert_eq!(c.iter().filter(|v| **v != 0.0).count() as f64, sv);

    let map = canvas(420, 360);
    let before = pixels(&map);
    pg.draw_map(map.clone(), 1.0).map_err(|_| ()).expect("map");
    let after = pixels(&map);
    assert_ne!(before, after, "map canvas unchanged");
    // The heatmap has both classes' colours: some red-dominant and some blue-dominant pixels.
    let (mut red, mut blue) = (0, 0);
    for px in after.chunks(4) {
        if px[0] as i32 > px[2] as i32 + 40 {
            red += 1;
        }
        if px[2] as i32 > px[0] as i32 + 40 {
            blue += 1;
        }
    }
    assert!(red > 1000 && blue > 1000, "red {red} blue {blue}");
    // A click in the middle of the plotting area maps into the view; the margins do not.
    let xy = pg.to_data(210.0, 180.0);
    let v = pg.view();
    assert_eq!(xy.len(), 2);
    assert!(xy[0] > v[0] && xy[0] < v[1] && xy[1] > v[2] && xy[1] < v[3]);
    assert!(pg.to_data(1.0, 1.0).is_empty());

    for which in 0..2 {
        let cv = canvas(400, 260);
        let b = pixels(&cv);
        if which == 0 {
            pg.draw_convergence(cv.clone(), 2.0).map_err(|_| ()).expect("conv");
        } else {
            pg.draw_theorem5(cv.clone(), 1.0).map_err(|_| ()).expect("t5");
        }
        assert_ne!(b, pixels(&cv), "canvas {which} unchanged");
    }
}

#[wasm_bindgen_test]
fn bad_input_is_an_error_and_the_run_survives() {
    let cases = [
        ("{not json", "spec"),
        (&spec(MOONS, r#"{"kind":"hinge"}"#, "0", CD, false) as &str, "λ"),
        (&spec(MOONS, r#"{"kind":"hinge"}"#, "-2", CD, false), "λ"),
        (&spec(MOONS, r#"{"kind":"eps_insensitive","eps":-0.1}"#, "1", CD, false), "ε"),
        (
            &spec(
                MOONS,
                r#"{"kind":"hinge"}"#,
                "1",
                r#"{"kind":"fixed_point","step":{"kind":"fixed","value":-1},"tol":1e-8,"max_sweeps":100}"#,
                false,
            ),
            "α",
        ),
        (
            &spec(
                r#"{"kind":"regression","n":30,"noise":0.1,"outliers":0,"seed":1}"#,
                r#"{"kind":"hinge"}"#,
                "1",
                CD,
                false,
            ),
            "±1",
        ),
        (
            &spec(
                r#"{"kind":"points","points":[[0,0,1],[1,1,2]],"view":[-2,2,-2,2]}"#,
                r#"{"kind":"hinge"}"#,
                "1",
                CD,
                false,
            ),
            "label",
        ),
        (
            &spec(
                MOONS,
                r#"{"kind":"hinge"}"#,
                "1",
                r#"{"kind":"coordinate","rule":"cyclic","seed":1,"tol":0,"max_sweeps":10}"#,
                false,
            ),
            "δ",
        ),
    ];
    for (bad, needle) in cases {
        match DinuzzoPlayground::new(bad) {
            Ok(_) => panic!("accepted {bad}"),
            Err(e) => {
                let m = err_text(e);
                assert!(m.contains(needle), "message for {bad}: {m}");
            }
        }
    }
    let mut pg = DinuzzoPlayground::new(&dinuzzo_default_spec()).map_err(|_| ()).expect("valid");
    assert!(pg.update(&spec(MOONS, r#"{"kind":"hinge"}"#, "-1", CD, false)).is_err());
    let s = pg.step().map_err(|_| ()).expect("still steps after a rejected update");
    assert_eq!(num(&s, "sweep"), 1.0);
}

#[wasm_bindgen_test]
fn k_ii_zero_rows_are_dropped_and_reported() {
    // Linear kernel: the point at the origin has k_ii = 0.
    let s = r#"{"data":{"kind":"points","points":[[0,0,1],[1,0.5,1],[-1,-0.2,-1],[-0.5,-1,-1]],"view":[-2,2,-2,2]},"loss":{"kind":"hinge"},"lambda":1,"kernel":{"kind":"linear"},"method":{"kind":"coordinate","rule":"cyclic","seed":1,"tol":1e-8,"max_sweeps":1000}}"#;
    let mut pg = DinuzzoPlayground::new(s).map_err(|_| ()).expect("valid");
    let r = pg.run_for(5000.0).map_err(|_| ()).expect("run");
    assert_eq!(num(&r, "dropped"), 1.0);
    let w = js_sys::Reflect::get(&r, &"warnings".into()).expect("warnings");
    let w: js_sys::Array = w.dyn_into().expect("array");
    assert!(w.iter().any(|m| m.as_string().unwrap_or_default().contains("k_ii = 0")));
    assert_eq!(text(&r, "status").unwrap_or_default(), "converged");
    assert_eq!(pg.coefficients()[0], 0.0);
}

#[wasm_bindgen_test]
fn alpha_above_two_over_norm_diverges_with_a_message() {
    let fp = r#"{"kind":"fixed_point","step":{"kind":"fixed","value":5.0},"tol":1e-8,"max_sweeps":20000}"#;
    let mut pg = DinuzzoPlayground::new(&spec(MOONS, r#"{"kind":"square"}"#, "1", fp, false))
        .map_err(|_| ())
        .expect("valid");
    let s = pg.run_for(20_000.0).map_err(|_| ()).expect("run");
    assert_eq!(text(&s, "status").unwrap_or_default(), "diverged");
    assert!(num(&s, "alpha") > num(&s, "alpha_limit"));
    let msg = text(&s, "message").unwrap_or_default();
    assert!(msg.contains("diverged") && msg.contains("2/‖K‖₂"), "{msg}");
}

#[wasm_bindgen_test]
fn race_runs_five_solvers_to_the_same_optimum() {
    let mut pg =
        DinuzzoPlayground::new(&spec(MOONS, r#"{"kind":"squared_hinge"}"#, "0.5", CD, true))
            .map_err(|_| ())
            .expect("valid");
    let s = pg.run_for(30_000.0).map_err(|_| ()).expect("run");
    let race: js_sys::Array =
        js_sys::Reflect::get(&s, &"race".into()).expect("race").dyn_into().expect("array");
    assert_eq!(race.length(), 5);
    for r in race.iter() {
        assert_eq!(
            text(&r, "status").unwrap_or_default(),
            "converged",
            "{}",
            text(&r, "algorithm").unwrap_or_default()
        );
        let last = js_sys::Reflect::get(&r, &"last".into()).expect("last");
        assert!(num(&last, "gap") < 1e-6);
    }
    let cv = canvas(400, 260);
    let b = pixels(&cv);
    pg.draw_convergence(cv.clone(), 1.0).map_err(|_| ()).expect("conv");
    assert_ne!(b, pixels(&cv));
}

#[wasm_bindgen_test]
fn clicked_points_and_regression_draw() {
    // Empty point list: no solver, but the map shows where to click.
    let empty = spec(
        r#"{"kind":"points","points":[],"view":[-2,2,-2,2]}"#,
        r#"{"kind":"hinge"}"#,
        "1",
        CD,
        false,
    );
    let mut pg = DinuzzoPlayground::new(&empty).map_err(|_| ()).expect("empty is fine");
    assert_eq!(text(&pg.summary().map_err(|_| ()).expect("s"), "status").as_deref(), Some("empty"));
    let c = canvas(300, 300);
    let b = pixels(&c);
    pg.draw_map(c.clone(), 1.0).map_err(|_| ()).expect("map");
    assert_ne!(b, pixels(&c));
    assert_eq!(pg.to_data(150.0, 150.0).len(), 2);
    // Two clicked points of opposite classes: the decision function separates them.
    let two = spec(
        r#"{"kind":"points","points":[[-1,0,1],[1,0,-1]],"view":[-2,2,-2,2]}"#,
        r#"{"kind":"hinge"}"#,
        "1",
        CD,
        false,
    );
    pg.update(&two).map_err(|_| ()).expect("two points");
    let s = pg.run_for(5000.0).map_err(|_| ()).expect("run");
    assert_eq!(text(&s, "status").unwrap_or_default(), "converged");
    let c2 = pg.coefficients();
    assert!(c2[0] > 0.0 && c2[1] < 0.0);
    assert_eq!(pg.points(), vec![-1.0, 0.0, 1.0, 1.0, 0.0, -1.0]);
    // Regression with SVR: the curve plot draws.
    let reg = spec(
        r#"{"kind":"regression","n":50,"noise":0.1,"outliers":0.1,"seed":2}"#,
        r#"{"kind":"eps_insensitive","eps":0.2}"#,
        "0.2",
        CD,
        false,
    );
    pg.update(&reg).map_err(|_| ()).expect("regression");
    let s = pg.run_for(10_000.0).map_err(|_| ()).expect("run");
    assert!(num(&s, "sweep") > 0.0);
    let c3 = canvas(300, 200);
    let b3 = pixels(&c3);
    pg.draw_map(c3.clone(), 1.0).map_err(|_| ()).expect("curve");
    assert_ne!(b3, pixels(&c3));
}
