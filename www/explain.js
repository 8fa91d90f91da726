// Explanations where the numbers are: every readout and every plot gets a small “?” button that
// shows a definition (what it is, its formula in MathML, why it matters) on hover, on keyboard
// focus and on tap (a tap or click pins it open; Escape closes it). Static text only.

const M = (b) => `<math>${b}</math>`;
const gapA = M('<mi>F</mi><mo>(</mo><mi>w</mi><mo>(</mo><mi>α</mi><mo>)</mo><mo>)</mo><mo>+</mo><mi>Λ</mi><mo>(</mo><mi>α</mi><mo>)</mo>');

/** Per page: element id → [what, formula (MathML or ''), why]. */
export const EXPLAIN = {
  a: {
    'r-iter': ['The number of iterations k made so far.', '', 'One step of the chosen algorithm: on the dual Λ (Algorithm 2.1 or 3.3; dual Newton is ours) or, for primal GD and FISTA, on F.'],
    'r-gap': ['The duality gap at the current α.', gapA, 'It is ≥ 0 since min F = −min Λ (strong duality, Theorem 3.1(i)) and bounds F(w) − F*, computable without knowing F*: a certificate of precision.'],
    'r-relgap': ['The gap relative to the primal value; the run stops when it reaches the tolerance.', M('<mfrac><mrow><mi>F</mi><mo>+</mo><mi>Λ</mi></mrow><mi>F</mi></mfrac>'), 'It bounds the relative error (F(w) − F*)/F(w).'],
    'r-step': ['The step size λ accepted by the backtracking line search, and how many times it was halved.', M('<mi>λ</mi><mo>=</mo><mover><mi>λ</mi><mo>¯</mo></mover><msup><mi>θ</mi><mi>j</mi></msup>'), 'Λ’s gradient is only locally Lipschitz: no global 1/L step exists, so a line search picks λ (Algorithm 2.1).'],
    'r-primal': ['The primal objective (eq. 20) at w = J_q(Φ_n*α), for the chosen loss L.', M('<mi>F</mi><mo>(</mo><mi>w</mi><mo>)</mo><mo>=</mo><mi>γ</mi><munder><mo>∑</mo><mi>i</mi></munder><mi>L</mi><mo>(</mo><msub><mi>y</mi><mi>i</mi></msub><mo>,</mo><mo>⟨</mo><mi>Φ</mi><mo>(</mo><msub><mi>x</mi><mi>i</mi></msub><mo>)</mo><mo>,</mo><mi>w</mi><mo>⟩</mo><mo>)</mo><mo>+</mo><mfrac><mn>1</mn><mi>p</mi></mfrac><msubsup><mrow><mo>‖</mo><mi>w</mi><mo>‖</mo></mrow><mi>p</mi><mi>p</mi></msubsup>'), 'Square loss (L = (y − t)²/2): F(w) = (γ/2)‖Xw − y‖² + ‖w‖ₚᵖ/p. What we want to minimize; it stays above the optimum.'],
    'r-dual': ['Minus the dual objective (eq. 22), for the chosen loss L (L* its conjugate).', M('<mo>−</mo><mi>Λ</mi><mo>(</mo><mi>α</mi><mo>)</mo><mo>=</mo><mo>−</mo><mfrac><mn>1</mn><mi>q</mi></mfrac><msubsup><mrow><mo>‖</mo><msubsup><mi>Φ</mi><mi>n</mi><mo>*</mo></msubsup><mi>α</mi><mo>‖</mo></mrow><mi>q</mi><mi>q</mi></msubsup><mo>−</mo><mi>γ</mi><munder><mo>∑</mo><mi>i</mi></munder><msup><mi>L</mi><mo>*</mo></msup><mo>(</mo><msub><mi>y</mi><mi>i</mi></msub><mo>,</mo><mo>−</mo><msub><mi>α</mi><mi>i</mi></msub><mo>/</mo><mi>γ</mi><mo>)</mo>'), 'Square loss: −Λ(α) = −‖Xᵀα‖_q^q/q − ‖α‖²/(2γ) + ⟨y, α⟩. A lower bound on min F for every α (weak duality).'],
    'r-status': ['Whether the run is going, converged (relative gap ≤ tolerance) or stopped at the iteration cap.', '', 'Step after the end advances nothing; Reset starts again.'],
    'r-time': ['Wall-clock milliseconds per iteration in this browser.', '', 'Measured, not asserted: it depends on the machine.'],
    'r-digest': ['A 64-bit digest of the generated data’s bits.', '', '“kplay digest spec.json” prints the same digest: the page and the CLI solve the very same numbers.'],
    conv: ['The duality gap, F(w(α)) and −Λ(α) against the iteration, log scale.', gapA, 'The primal curve stays above the dual one; their distance is the certificate.'],
    spikes: ['The entries w_j of the current iterate against the true sparse w*.', M('<mi>w</mi><mo>=</mo><msub><mi>J</mi><mi>q</mi></msub><mo>(</mo><msup><mi>X</mi><mo>⊤</mo></msup><mi>α</mi><mo>)</mo><mo>,</mo><msub><mi>J</mi><mi>q</mi></msub><mo>(</mo><mi>u</mi><mo>)</mo><mo>=</mo><mtext>sign</mtext><mo>(</mo><mi>u</mi><mo>)</mo><msup><mrow><mo>|</mo><mi>u</mi><mo>|</mo></mrow><mrow><mi>q</mi><mo>−</mo><mn>1</mn></mrow></msup>'), 'ℓp with p near 1 gives an approximately sparse w: feature selection.'],
    predictor: ['The predictor for 1-D or 2-D inputs.', M('<mi>f</mi><mo>(</mo><mi>x</mi><mo>)</mo><mo>=</mo><mo>⟨</mo><mi>w</mi><mo>,</mo><mi>Φ</mi><mo>(</mo><mi>x</mi><mo>)</mo><mo>⟩</mo>'), 'With a tensor kernel (q even, eq. 11) it is computed from α alone (eq. 14 and 31; Remark 2.4 of the later version).'],
    race: ['Relative error of each algorithm against the iteration (solid) and time (dashed); dual Newton is ours, not the paper’s.', M('<mfrac><mrow><mi>F</mi><mo>(</mo><msub><mi>w</mi><mi>k</mi></msub><mo>)</mo><mo>−</mo><msup><mi>F</mi><mo>*</mo></msup></mrow><msup><mi>F</mi><mo>*</mo></msup></mfrac>'), 'Why the paper expects the dual to win (§2.3): primal GD’s gradient is not locally Lipschitz (the penalty’s, at 0), so its line-search steps may get arbitrarily close to zero, with no explicit rate; FISTA, with the penalty’s prox, has only a sublinear guarantee, O(1/k²) (§2.3’s reason, “only uniformly convex on bounded sets”, is too weak: F is strongly convex on bounded sets, ours, lesson A step 8). The dual is 1/γ-strongly convex.'],
  },
  b: {
    'r-nd': ['Number of training points n and features d.', '', 'The eigendecomposition costs O(n³), the refit O(n²).'],
    'r-c0': ['The positive root C₀ of F (Theorem 1, m > 1): the one scalar the whole solution depends on.', M('<mi>F</mi><mo>(</mo><mi>C</mi><mo>)</mo><mo>=</mo><msup><mrow><mo>(</mo><munder><mo>∑</mo><mi>i</mi></munder><mfrac><mrow><mn>4</mn><msub><mi>d</mi><mi>i</mi></msub><msubsup><mi>y</mi><mi>i</mi><mo>′</mo></msubsup><msup><mrow></mrow><mn>2</mn></msup></mrow><msup><mrow><mo>(</mo><mn>2</mn><msub><mi>d</mi><mi>i</mi></msub><mo>+</mo><mi>λ</mi><mi>m</mi><mi>n</mi><mi>C</mi><mo>)</mo></mrow><mn>2</mn></msup></mfrac><mo>)</mo></mrow><mrow><mi>m</mi><mo>/</mo><mn>2</mn><mo>−</mo><mn>1</mn></mrow></msup><mo>−</mo><mi>C</mi>'), 'For m > 1 it is the unique positive root and equals ‖f‖_H^(m−2) (Theorem 1 and its proof, Appendix C).'],
    'r-norm': ['The RKHS norm of the fitted function.', M('<msub><mrow><mo>‖</mo><mi>f</mi><mo>‖</mo></mrow><mi>H</mi></msub><mo>=</mo><msqrt><mrow><msup><mi>α</mi><mo>⊤</mo></msup><mi>K</mi><mi>α</mi></mrow></msqrt>'), 'The regularizer is λ‖f‖^m.'],
    'r-lambda2': ['The kernel-ridge parameter that gives the same function on these data (Prop. 5.1).', M('<msub><mi>λ</mi><mn>2</mn></msub><mo>=</mo><mfrac><mi>m</mi><mn>2</mn></mfrac><msub><mi>C</mi><mn>0</mn></msub><mi>λ</mi>'), 'Weak equivalence (Prop. 5.1): for m ≠ 2, λ₂ depends on the sample, so the equivalence is not strong; at m = 2, λ₂ = λ on every sample (strong).'],
    'r-fres': ['F at the computed root: how well the root solve converged.', '', 'Should be near machine precision.'],
    'r-obj': ['The M-RLSR objective.', M('<mfrac><mn>1</mn><mi>n</mi></mfrac><mo>∑</mo><msup><mrow><mo>(</mo><msub><mi>y</mi><mi>i</mi></msub><mo>−</mo><mi>f</mi><mo>(</mo><msub><mi>x</mi><mi>i</mi></msub><mo>)</mo><mo>)</mo></mrow><mn>2</mn></msup><mo>+</mo><mi>λ</mi><msubsup><mrow><mo>‖</mo><mi>f</mi><mo>‖</mo></mrow><mi>H</mi><mi>m</mi></msubsup>'), 'What M-RLSR minimizes.'],
    'r-iters': ['Iterations of the safeguarded Newton / bisection solve for C₀.', '', 'How many depends on m and the data (ours). F(0) > 0, and F is strictly concave for 1 < m < 2 (F = 1 − C at m = 2): one root (Theorem 1, m > 1). Outside Theorem 1, at m ≤ 1, there may be none (ours).'],
    'r-refit': ['Time to refit for a new m or λ from the cached eigendecomposition.', '', 'Why dragging m is instantaneous.'],
    'r-eigen': ['Time of the Gram matrix’s eigendecomposition K = QDQᵀ, in a background worker.', '', 'Done once per data set and kernel.'],
    fit: ['The data, M-RLSR at (m, λ) and kernel ridge at λ₂.', '', 'Trained on these data, the two give the same function (everywhere, not only at the points): weak equivalence (Prop. 5.1).'],
    'nscan-stability': ['§4’s Example: the largest ‖f_Z − f_Zⁱ‖_H over every removed point against n, log–log, for A (kernel ridge at λ) and B (the regularizer λ_B/|Z|); dashed: least-squares slopes.', '', 'Ours: one sample per n; a change of f in H, not of the loss β bounds (Definition 4.2): a slope, not a limit.'],
    'nscan-lambda2': ['The largest |λ₂(λ, Zⁱ) − λ₂(λ, Z)| over every removed point against n, log–log (λ₂ = (m/2)C₀(Z)λ, Proposition 5.1); dashed: the least-squares slope.', '', 'Ours: one sample per n, one λ. Part 2 of Assumption 1 asks one C(|Z|) → 0 bounding this move for every λ and Z; four sizes: a slope, not a limit.'],
    fplot: ['The sign of F(C) (Theorem 1), drawn as ln(G(C)/C); C₀ is where it crosses zero.', '', 'F(0) > 0. For 1 < m < 2 F is strictly concave (Appendix C), so it has exactly one positive root; lesson B steps 3, 5 and 6 look at m > 2, m = 1 and m < 1.'],
  },
  c: {
    'r-method': ['The solver shown: fixed point (Jacobi) or coordinate descent (Gauss–Seidel) and its rule.', '', 'Both solve the same optimality condition: eq. (7) (Theorem 1), coordinate-wise eq. (8) (Corollary 1).'],
    'r-sweep': ['Sweeps so far: one fixed-point iteration, or one pass of coordinate updates: n for the greedy rules (the last sweep may end early, at the stop), n − 1 on the Aitken rule’s reverse sweeps, only the active coordinates when a cyclic rule shrinks.', '', 'Comparable work per sweep for both solvers.'],
    'r-objective': ['The regularized objective.', M('<mi>F</mi><mo>(</mo><mi>c</mi><mo>)</mo><mo>=</mo><mi>f</mi><mo>(</mo><mi>K</mi><mi>c</mi><mo>)</mo><mo>+</mo><mfrac><mrow><msup><mi>c</mi><mo>⊤</mo></msup><mi>K</mi><mi>c</mi></mrow><mn>2</mn></mfrac>'), 'f(z) = Σ L(yᵢ, zᵢ)/λ.'],
    'r-gap': ['The duality gap F(c) − D(c) with the Fenchel dual D.', '', 'An upper bound on F(c) − min F.'],
    'r-residual': ['How far c is from satisfying the fixed-point equation (at α = 1).', M('<munder><mo>max</mo><mi>i</mi></munder><mrow><mo>|</mo><msub><mi>c</mi><mi>i</mi></msub><mo>+</mo><msub><mi>J</mi><mn>1</mn></msub><mo>(</mo><msub><mrow><mo>(</mo><mi>K</mi><mi>c</mi><mo>)</mo></mrow><mi>i</mi></msub><mo>−</mo><msub><mi>c</mi><mi>i</mi></msub><mo>)</mo><mo>|</mo></mrow>'), 'Zero exactly when c satisfies (7), i.e. 0 ∈ ∂f(Kc) + c (eq. 14), which makes c a solution. Theorem 1 says only that some solutions do: for a singular K (linear, polynomial kernels) a solution plus a null vector of K is one too (Lemma 1), in general with a non-zero residual (always for a differentiable loss).'],
    'r-maxh': ['The largest coordinate change in the last sweep; the stopping test is max|h| < δ.', '', 'Algorithm 1’s stopping rule.'],
    'r-skipped': ['Updates with h = 0: they skip the next w update (Algorithm 2) or, here, the update of z = Kc (ours).', '', 'Sparsity of the updates.'],
    'r-support': ['Points with cᵢ ≠ 0: the support vectors.', '', 'Only they enter f(x) = Σ cᵢ k(xᵢ, x).'],
    'r-alpha': ['The fixed-point step α and, in brackets, 2/‖K‖₂, the bound of condition (11).', M('<mn>0</mn><mo>&lt;</mo><mi>α</mi><mo>&lt;</mo><mfrac><mn>2</mn><msub><mrow><mo>‖</mo><mi>K</mi><mo>‖</mo></mrow><mn>2</mn></msub></mfrac>'), 'Below it Theorem 2 gives F(cᵏ) → min F and optimal cluster points (the iterates converge under Theorem 3’s conditions); the condition is sufficient, not necessary: for the square loss the iteration converges exactly when α(‖K‖₂ − λ) < 2 (ours): for α < 2/(‖K‖₂ − λ) when ‖K‖₂ > λ, for every α > 0 when λ ≥ ‖K‖₂; above the limit it diverges.'],
    'r-status': ['Running, converged (max|h| < δ), at the sweep cap, or diverged.', '', 'Step after the end advances nothing; Reset starts again.'],
    'r-time': ['Milliseconds per sweep in this browser.', '', 'Measured, not asserted.'],
    map: ['The decision function (or regression curve) of the current c.', M('<mi>f</mi><mo>(</mo><mi>x</mi><mo>)</mo><mo>=</mo><munder><mo>∑</mo><mi>i</mi></munder><msub><mi>c</mi><mi>i</mi></msub><mi>k</mi><mo>(</mo><msub><mi>x</mi><mi>i</mi></msub><mo>,</mo><mi>x</mi><mo>)</mo>'), 'Rings mark support vectors (cᵢ ≠ 0), drawn when some cᵢ = 0; click to add points.'],
    conv: ['Gap, residual, max|h| and objective against the sweep, log scale.', '', 'Linear convergence shows as a straight line.'],
    fd: ['The primal F(c) and the Fenchel dual D(c) against the sweep.', '', 'D ≤ min F ≤ F (weak duality). Each coordinate-descent update maximizes D exactly along one coordinate, so D never falls while F can rise (ours; the proof of Theorem 4 calls it an exact line search on F — docs/errata.md).'],
    theorem5: ['The loss next to its Moreau–Yosida envelope (Theorem 5).', '', 'A solution of the non-smooth problem that satisfies (7) is a stationary point of a smooth functional (Theorem 5; its printed functional α⁻¹f_α(K_αc) + cᵀK_αc/2 is stationary there at α = 1, at other α the stationary one is α·f_α(K_αc/α) + cᵀK_αc/2: ours, docs/errata.md) — not necessarily a minimizer: K_α = αK − I is not positive semidefinite as soon as α·k_min < 1 (indefinite when also α‖K‖₂ > 1).'],
  },
  d: {
    'r-n': ['Number of points.', '', 'The bounds grow with n only through log n or √n.'],
    'r-iter': ['Iterations k of the selected algorithm.', '', 'Compare with the bounds in the lower plot.'],
    'r-mingalpha': ['The worst normalized score of the current α.', M('<munder><mo>min</mo><mi>i</mi></munder><msub><mrow><mo>(</mo><mi>G</mi><mi>α</mi><mo>)</mo></mrow><mi>i</mi></msub><mo>,</mo><msub><mi>G</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>=</mo><mfrac><mrow><msub><mi>y</mi><mi>i</mi></msub><msub><mi>y</mi><mi>j</mi></msub><mi>K</mi><mo>(</mo><msub><mi>x</mi><mi>i</mi></msub><mo>,</mo><msub><mi>x</mi><mi>j</mi></msub><mo>)</mo></mrow><msqrt><mrow><msub><mi>K</mi><mrow><mi>i</mi><mi>i</mi></mrow></msub><msub><mi>K</mi><mrow><mi>j</mi><mi>j</mi></mrow></msub></mrow></msqrt></mfrac>'), 'Positive means every point is classified correctly: a separator.'],
    'r-normp': ['The G-norm of the von Neumann weights p in the simplex.', M('<msub><mrow><mo>‖</mo><mi>p</mi><mo>‖</mo></mrow><mi>G</mi></msub><mo>=</mo><msqrt><mrow><msup><mi>p</mi><mo>⊤</mo></msup><mi>G</mi><mi>p</mi></mrow></msqrt>'), '‖p‖_G ≤ ε is an ε-certificate: since ρ_K ≤ ‖p‖_G for every p in the simplex (Lemma 3), it proves ρ_K ≤ ε. Only ‖p‖_G = 0 proves that no separator exists (Gordan, Theorem 2).'],
    'r-margin': ['The margin ρ_K in α-form (Lemma 3; equal to eq. 5 when ρ_K > 0 or when the yᵢφ̃(xᵢ) span the feature space, as in the plane with a linear kernel) with certified lower and upper ends.', M('<msub><mi>ρ</mi><mi>K</mi></msub><mo>=</mo><munder><mo>sup</mo><mrow><msub><mrow><mo>‖</mo><mi>α</mi><mo>‖</mo></mrow><mi>G</mi></msub><mo>=</mo><mn>1</mn></mrow></munder><munder><mo>min</mo><mi>i</mi></munder><msub><mrow><mo>(</mo><mi>G</mi><mi>α</mi><mo>)</mo></mrow><mi>i</mi></msub>'), 'Positive: separable; negative: inseparable, and |ρ_K| is the radius of the largest ball about 0 inside the hull of the yᵢφ̃(xᵢ) (Theorem 3). It sets the perceptrons’ bounds and, with ε, the von Neumann algorithms’ (NVN’s 1/ε² does not depend on it).'],
    'r-status': ['Running, separator, certificate, or the iteration cap.', '', 'Every outcome is verified before it is shown.'],
    boundary: ['The decision function of the current α and the points sized by p.', M('<mi>f</mi><mo>(</mo><mi>x</mi><mo>)</mo><mo>=</mo><munder><mo>∑</mo><mi>i</mi></munder><msub><mi>α</mi><mi>i</mi></msub><msub><mi>y</mi><mi>i</mi></msub><mi>K</mi><mo>(</mo><msub><mi>x</mi><mi>i</mi></msub><mo>,</mo><mi>x</mi><mo>)</mo><mo>/</mo><msqrt><msub><mi>K</mi><mrow><mi>i</mi><mi>i</mi></mrow></msub></msqrt>'), 'Linear kernel, von Neumann algorithms: the grey polygon is the hull of the yᵢxᵢ/‖xᵢ‖ (the arrow Σ pᵢyᵢxᵢ/‖xᵢ‖ stays in it); once the run ends, the green circle has radius |ρ_K|: the largest ball about 0 inside the hull when ρ_K < 0 (Theorem 3), the hull’s distance from 0 when ρ_K > 0 (Lemma 3). Click to add points (shift-click: class −1).'],
    trace: ['min (Gα)ᵢ and ‖p‖_G against k with iteration bounds. Separable data: the paper’s, at ρ = the certified lower end of ρ_K. Inseparable: NVN’s 1/ε², and Lemma 9’s with its lost √2 restored (ours) at |ρ_K| = −(certified upper end).', '', 'Perceptron 1/ρ², SNKP √log n/ρ, SNKPVN √n/ρ.'],
    racec: ['Iterations to the outcome for each algorithm on the same data.', '', 'Not always the same answer. Inseparable data: the perceptrons (Alg. 1, 3, 4) hit the cap; the von Neumann algorithms (5–7) end with an ε-certificate when the cap allows (NVN within 1/ε² iterations, §5; ISNKPVN within Theorem 4 part 2’s O(·) bound), else at the cap too. Separable data: a separator (NVN’s separator exit is the page’s addition), except that for 0 < ρ_K < ε (or δ) the von Neumann algorithms may certify instead (Lemma 3).'],
  },
};

let seq = 0;

/** Attach the explanations of `paper` ('a'…'d') to its page. */
export function attachExplanations(paper) {
  const table = EXPLAIN[paper] ?? {};
  for (const [id, [what, formula, why]] of Object.entries(table)) {
    const el = document.getElementById(id);
    if (!el) continue;
    const pop = document.createElement('div');
    pop.className = 'explain-pop';
    pop.id = `explain-${++seq}`;
    pop.setAttribute('role', 'tooltip');
    pop.hidden = true;
    // Static text from the table above; never URL text.
    // In a lesson the "why" (what the number shows, often a step's answer) waits for the step's run
    // (style.css: .why hidden, .why-wait shown until the explanation shows).
    pop.innerHTML = `<p>${what}</p>${formula ? `<p class="f">${formula}</p>` : ''}<p class="why">${why}</p><p class="why-wait">What it shows: after this step’s run.</p>`;
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'info';
    b.textContent = '?';
    b.dataset.explains = id;
    b.setAttribute('aria-describedby', pop.id);
    b.setAttribute('aria-expanded', 'false');
    let pinned = false;
    const show = (on) => {
      pop.hidden = !on;
      b.setAttribute('aria-expanded', String(on));
    };
    b.addEventListener('mouseenter', () => show(true));
    b.addEventListener('mouseleave', () => { if (!pinned) show(false); });
    b.addEventListener('focus', () => show(true));
    b.addEventListener('blur', () => { pinned = false; show(false); });
    b.addEventListener('click', () => { pinned = !pinned; show(pinned); });
    b.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') { pinned = false; show(false); } });
    if (el.tagName === 'DD') {
      const dt = el.previousElementSibling;
      b.setAttribute('aria-label', `what is ${dt ? dt.textContent.trim() : id}?`);
      // In the <dt> (a <dl> may hold only dt/dd groups, and the page rewrites the <dd>), floating.
      (dt ?? el).appendChild(b);
      (dt ?? el).appendChild(pop);
    } else {
      const fig = el.closest('figure');
      b.setAttribute('aria-label', `what does the plot “${el.getAttribute('aria-label') || id}” show?`);
      let tools = fig?.querySelector('.fig-tools');
      if (fig && !tools) {
        tools = document.createElement('div');
        tools.className = 'fig-tools';
        fig.appendChild(tools);
      }
      (tools ?? el.parentElement).prepend(b);
      (tools ?? el.parentElement).after(pop);
    }
  }
}
