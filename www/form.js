// One rule for putting a spec into a page's controls (issue 20): the page writes the spec into
// its controls, reads them back, and the core compares the two specs in full
// (src/spec_diff.rs; each page's wasm `…ControlsLose`). A value a control cannot hold — a slider that
// snaps 0.05 to its 0.1 minimum, a generator field the page has no control for and fills with a
// constant — is refused with a message naming the field, and the controls go back to the run
// they showed: the page never silently runs another experiment than the link or lesson asked for.

/**
 * A page's binding of spec ↔ controls. `lose(asked, shown)`: the page's wasm `…ControlsLose`
 * (the core's comparison of two specs of its paper); `toControls(spec)` writes a spec into the controls; `fromControls(spec)` reads
 * the controls back into a spec (given the spec being shown, for the fields the page carries
 * without a control). Returns `show(spec, current)`: puts `spec` into the controls or throws the
 * core's message, after putting `current` (the spec of the run the page shows, or null) back.
 */
export function bindControls({ lose, toControls, fromControls }) {
  return function show(spec, current) {
    const restore = () => {
      if (!current) return;
      try {
        toControls(current);
      } catch {
        // the page's own run always fits its controls
      }
    };
    let msg;
    try {
      toControls(spec);
      msg = lose(JSON.stringify(spec), JSON.stringify(fromControls(spec)));
    } catch (e) {
      restore();
      throw e;
    }
    if (msg) {
      restore();
      throw new Error(msg);
    }
  };
}
