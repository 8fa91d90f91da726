// The guided lessons' content: one lesson per paper, 8–12 steps each, from the papers (see
// ../shared/papers/DIGEST.md). Each step: the page's spec, what to look at, a question for the
// class to answer before the run, and the explanation shown after it, with the paper's formula
// in MathML. Every claim a step makes about its run is checked by tests/e2e/lessons.test.mjs,
// which walks the lesson and reads the page's readouts. Static text only (it is put in the page
// as markup); nothing here comes from the URL.

const M = (body) => `<math display="block">${body}</math>`;
const m = (body) => `<math>${body}</math>`;

// ---- paper A: ℓp regularization in the dual ---------------------------------------------------
const A_DATA = { kind: 'sparse_regression', n: 50, d: 300, k: 5, sigma: 0.05, seed: 1 };
const a = (p, solver, model = {}, data = A_DATA) => ({
  data, model: { problem: 'lp_regression', p, gamma: 10, ...model },
  solver: { tol: 1e-8, max_iter: 5000, ...solver },
});
const P43 = 4 / 3;
// Step 8: the tensor path where rule (19) says it pays, n ≤ 2·card(𝕂)^(1/3) (polynomial s = 2: card(𝕂) = d(d + 1)/2).
const A_POLY = { kind: 'polynomial', degree: 2 };
const A_TENSOR_DATA = { ...A_DATA, n: 30 };
const GAP = M('<mrow><mtext>gap</mtext><mo>(</mo><mi>α</mi><mo>)</mo><mo>=</mo><mi>F</mi><mo>(</mo><mi>w</mi><mo>(</mo><mi>α</mi><mo>)</mo><mo>)</mo><mo>+</mo><mi>Λ</mi><mo>(</mo><mi>α</mi><mo>)</mo><mo>≥</mo><mn>0</mn><mo>,</mo><mspace width="1em"></mspace><mi>w</mi><mo>(</mo><mi>α</mi><mo>)</mo><mo>=</mo><msub><mi>J</mi><mi>q</mi></msub><mo>(</mo><msup><mi>X</mi><mo>⊤</mo></msup><mi>α</mi><mo>)</mo></mrow>');
const JQ = M('<mrow><msub><mi>J</mi><mi>q</mi></msub><mo>(</mo><mi>u</mi><mo>)</mo><mo>=</mo><mtext>sign</mtext><mo>(</mo><mi>u</mi><mo>)</mo><msup><mrow><mo>|</mo><mi>u</mi><mo>|</mo></mrow><mrow><mi>q</mi><mo>−</mo><mn>1</mn></mrow></msup><mo>,</mo><mspace width="1em"></mspace><mfrac><mn>1</mn><mi>p</mi></mfrac><mo>+</mo><mfrac><mn>1</mn><mi>q</mi></mfrac><mo>=</mo><mn>1</mn></mrow>');

export const LESSONS = {
  a: {
    title: 'Lesson A · ℓp regularization in the dual',
    page: 'lp.html',
    steps: [
      {
        title: 'Two objectives that meet',
        spec: a(P43, { algorithm: 'dual_gradient' }),
        uses: ['conv'], speed: 15,
        look: `<p>Sparse regression: <i>n</i> = 50 samples, <i>d</i> = 300 features, only 5 of them matter. We minimize
          ${m('<mi>F</mi><mo>(</mo><mi>w</mi><mo>)</mo><mo>=</mo><mfrac><mi>γ</mi><mn>2</mn></mfrac><msup><mrow><mo>‖</mo><mi>X</mi><mi>w</mi><mo>−</mo><mi>y</mi><mo>‖</mo></mrow><mn>2</mn></msup><mo>+</mo><mfrac><mn>1</mn><mi>p</mi></mfrac><msubsup><mrow><mo>‖</mo><mi>w</mi><mo>‖</mo></mrow><mi>p</mi><mi>p</mi></msubsup>')}
          with <i>p</i> = 4/3, by gradient descent on the <b>dual</b> Λ(α) (Algorithm 2.1). Look at the top plot: the primal value
          F(w(α)) and the dual value −Λ(α) against the iteration, and the duality gap between them (log scale).</p>`,
        predict: '<p><b>Predict:</b> which curve stays on top, the primal or the dual? Will they meet?</p>',
        explain: `<p>The primal stays above, the dual below, and they meet. <b>Weak duality</b>: for every α,
          −Λ(α) ≤ min F ≤ F(w(α)); <b>strong duality</b>: min F = −min Λ. So the gap</p>${GAP}
          <p>is never negative and falls to 0. The run stopped when the relative gap (readout) fell below the tolerance 10⁻⁸.</p>`,
      },
      {
        title: 'The gap is a certificate',
        spec: a(P43, { algorithm: 'dual_gradient', tol: 1e-3 }),
        uses: ['tol', 'conv'], speed: 10,
        look: '<p>Same problem, but the run now stops as soon as the <b>relative gap</b> (F + Λ)/F is below 10⁻³ (the tolerance field).</p>',
        predict: '<p><b>Predict:</b> nobody has told the solver the optimal value F*. When it stops, how far from F* can F(w) be?</p>',
        explain: `<p>At most the gap. Since −Λ(α) ≤ F*,</p>
          ${M('<mrow><mfrac><mrow><mi>F</mi><mo>(</mo><mi>w</mi><mo>)</mo><mo>−</mo><msup><mi>F</mi><mo>*</mo></msup></mrow><mrow><mi>F</mi><mo>(</mo><mi>w</mi><mo>)</mo></mrow></mfrac><mo>≤</mo><mfrac><mrow><mi>F</mi><mo>(</mo><mi>w</mi><mo>)</mo><mo>+</mo><mi>Λ</mi><mo>(</mo><mi>α</mi><mo>)</mo></mrow><mrow><mi>F</mi><mo>(</mo><mi>w</mi><mo>)</mo></mrow></mfrac><mo>=</mo><mtext>relative gap</mtext></mrow>')}
          <p>a bound computed from the iterate alone: a <b>certificate</b> of precision. The run needed fewer iterations than in
          step 1, and F(w) is within the relative gap of the optimum (the test checks it against <code>kplay run</code> at 10⁻¹³).</p>`,
      },
      {
        title: 'Spikes: is w sparse?',
        spec: a(P43, { algorithm: 'dual_gradient' }),
        uses: ['threshold', 'spikes'], speed: 15,
        look: `<p>The second plot: the recovered <i>w</i> (blue) against the 5 true spikes <i>w*</i> (red circles); below it, how many
          entries of <i>w</i> rise above τ = 0.1·max|w| and how many true features the 5 largest |w<sub>j</sub>| find.</p>`,
        predict: '<p><b>Predict:</b> the dual gives w through w = J<sub>q</sub>(Xᵀα). Will w be exactly zero away from the spikes?</p>',
        explain: `<p>Not exactly, but nearly: only a few of the 300 entries rise above τ. With q = p/(p − 1) = 4,</p>${JQ}
          <p>is a cube: it flattens the small correlations (Xᵀα)<sub>j</sub> without making them zero. ℓ<sub>p</sub> with p &gt; 1
          gives an <b>approximately</b> sparse w; thresholding it cuts the dimension by one to two orders of magnitude.</p>`,
      },
      {
        title: 'p → 1: sparser, but slower',
        spec: a(1.1, { algorithm: 'dual_gradient' }),
        uses: ['p', 'spikes', 'conv'], speed: 500,
        look: '<p>Same data, p = 1.1 (q = 11), closer to the ℓ<sub>1</sub> norm (the p slider).</p>',
        predict: '<p><b>Predict:</b> compared with p = 4/3 — more or fewer iterations? A sparser w, or a denser one?</p>',
        explain: `<p><b>Many more iterations</b> (over ten times as many) and a <b>sparser</b> w: fewer entries above τ, and the 5 largest
          now find all 5 true features: J<sub>q</sub>(u) = sign(u)|u|<sup>10</sup> crushes every correlation but the largest. (It is not a
          polynomial: q = 11 is odd, and tensor kernels need q even, eq. 11, so p = 1.1 has none; the dual is computed from the
          features, Remark 2.5 of the later version.)</p>
          <p>Why slower? Theorem 2.2 (2.3 in the later version) gives a linear rate for every p, with constants that degrade as p → 1:
          C<sub>p</sub> → 0 in the bound on ‖w<sub>m</sub> − w̄‖<sub>p</sub>, which the duality-gap stop never sees. <i>Our reading</i> of
          the run: the curvature (q − 1)|u|<sup>q−2</sup> of |u|<sup>q</sup>/q makes Λ badly conditioned at q = 11 — steep along the few
          large correlations, little more than the 1/γ term elsewhere. The steep directions cap the accepted step λ (smaller than at
          q = 4: readout “step”); along the flat ones such a step gains little.</p>`,
      },
      {
        title: 'Why not the primal? Gradient descent',
        spec: a(P43, { algorithm: 'primal_gd', max_iter: 500 }),
        uses: ['algorithm', 'conv'], speed: 100,
        look: '<p>Back to p = 4/3, now gradient descent with Armijo backtracking on F itself, capped at 500 iterations (the algorithm menu).</p>',
        predict: '<p><b>Predict:</b> the dual method reached relative gap 10⁻⁸ in under 100 iterations. Will primal gradient descent in 500?</p>',
        explain: `<p>No: it stops at the cap with a relative gap still far above 10⁻² (for a primal method the gap uses α = γ(y − Xw)). The
          gradient of the penalty,</p>
          ${M('<mrow><mo>∇</mo><mfrac><mn>1</mn><mi>p</mi></mfrac><msubsup><mrow><mo>‖</mo><mi>w</mi><mo>‖</mo></mrow><mi>p</mi><mi>p</mi></msubsup><mo>=</mo><msub><mi>J</mi><mi>p</mi></msub><mo>(</mo><mi>w</mi><mo>)</mo><mo>=</mo><mtext>sign</mtext><mo>(</mo><mi>w</mi><mo>)</mo><msup><mrow><mo>|</mo><mi>w</mi><mo>|</mo></mrow><mrow><mi>p</mi><mo>−</mo><mn>1</mn></mrow></msup></mrow>')}
          <p>has an infinite slope at w<sub>j</sub> = 0 (p − 1 = 1/3): it is not Lipschitz, so the steps must stay tiny near the
          many zeros of a sparse w. The dual Λ is (1/γ)-strongly convex with a locally Lipschitz gradient.</p>`,
      },
      {
        title: 'FISTA on the primal',
        spec: a(P43, { algorithm: 'fista', max_iter: 3000 }),
        uses: ['algorithm', 'conv'], speed: 500,
        look: '<p>FISTA: accelerated proximal gradient on the primal, with the prox of (t/p)|·|<sup>p</sup>; capped at 3000 iterations.</p>',
        predict: '<p><b>Predict:</b> does acceleration let the primal catch the dual method (relative gap 10⁻⁸ in under 100 iterations)?</p>',
        explain: `<p>Not here: after 3000 iterations FISTA has reached the neighbourhood (relative gap below 10⁻⁴) but not 10⁻⁸,
          which the dual method reached in step 1 in under 100 iterations. FISTA's O(1/k²) rate on F − F* is sublinear (the
          primal is only uniformly convex on bounded sets); the dual method converges linearly (Theorem 2.2). These are our counts on
          these data: the paper's Table 1 reports other ones, which we could not reproduce (docs/paper-a.md).</p>`,
      },
      {
        title: 'Newton in the dual',
        spec: a(P43, { algorithm: 'dual_newton' }),
        uses: ['algorithm', 'conv'], speed: 2,
        look: '<p>The dual has only n = 50 variables (against d = 300 primal ones): Newton’s method on Λ, one small linear system per iteration. Dual Newton is <i>ours</i>, not the paper’s (the paper runs gradient descent, Algorithm 2.1).</p>',
        predict: '<p><b>Predict:</b> how many iterations to relative gap 10⁻⁸ — about 60 like step 1, or a handful?</p>',
        explain: `<p>A handful, and the same F(w) as step 1. The Hessian of the dual is an n × n matrix,</p>
          ${M('<mrow><msup><mo>∇</mo><mn>2</mn></msup><mi>Λ</mi><mo>(</mo><mi>α</mi><mo>)</mo><mo>=</mo><mo>(</mo><mi>q</mi><mo>−</mo><mn>1</mn><mo>)</mo><mi>X</mi><mspace width="0.2em"></mspace><mtext>diag</mtext><mo>(</mo><msup><mrow><mo>|</mo><msup><mi>X</mi><mo>⊤</mo></msup><mi>α</mi><mo>|</mo></mrow><mrow><mi>q</mi><mo>−</mo><mn>2</mn></mrow></msup><mo>)</mo><msup><mi>X</mi><mo>⊤</mo></msup><mo>+</mo><mfrac><mn>1</mn><mi>γ</mi></mfrac><mi>I</mi></mrow>')}
          <p>cheap when n ≪ d; near the optimum Newton converges quadratically (a textbook fact, not a theorem of the paper).</p>`,
      },
      {
        title: 'Tensor kernels: the dual without features',
        spec: a(P43, { algorithm: 'prox_dual' }, { path: 'tensor', kernel: A_POLY }, A_TENSOR_DATA),
        uses: ['build-box', 'path', 'kernel', 'conv'], speed: 15, action: 'build', until: ['status', 'converged'],
        look: `<p>For q = 4 the dual needs the data only through the <b>Gram tensor</b>
          K<sub>ijkl</sub> = K(x<sub>i</sub>, x<sub>j</sub>, x<sub>k</sub>, x<sub>l</sub>), here the polynomial tensor kernel of degree s = 2,
          (Σ<sub>t</sub> x<sub>it</sub>x<sub>jt</sub>x<sub>kt</sub>x<sub>lt</sub>)², on n = 30 points. Its features are the
          card(𝕂) = d(d + 1)/2 = 45 150 monomials of degree 2; rule (19) says the tensor pays when n ≤ 2·card(𝕂)<sup>1/3</sup> ≈ 71.
          The box shows what the tensor costs before it is built (in a background worker).</p>`,
        predict: '<p><b>Predict:</b> the solver never sees a feature again. Will it find the same minimum F as the feature path?</p>',
        explain: `<p>The same F(w), to the tolerance (the test compares it with <code>kplay run</code> on the features path). For q = 4,</p>
          ${M('<mrow><mfrac><mn>1</mn><mi>q</mi></mfrac><msubsup><mrow><mo>‖</mo><msup><mi>X</mi><mo>⊤</mo></msup><mi>α</mi><mo>‖</mo></mrow><mi>q</mi><mi>q</mi></msubsup><mo>=</mo><mfrac><mn>1</mn><mn>4</mn></mfrac><munder><mo>∑</mo><mrow><mi>i</mi><mi>j</mi><mi>k</mi><mi>l</mi></mrow></munder><msub><mi>K</mi><mrow><mi>i</mi><mi>j</mi><mi>k</mi><mi>l</mi></mrow></msub><msub><mi>α</mi><mi>i</mi></msub><msub><mi>α</mi><mi>j</mi></msub><msub><mi>α</mi><mi>k</mi></msub><msub><mi>α</mi><mi>l</mi></msub></mrow>')}
          <p>so a polynomial or exponential tensor kernel works in feature spaces too large to write down. The cost: a tensor whose
          size grows like n⁴, and n²(n + 1)²/4 products per gradient against about n·card(𝕂) on the features — worth it only when n is
          small against the feature dimension, n ≤ 2·card(𝕂)<sup>1/3</sup> (rule 19). With the linear kernel on these data
          (card(𝕂) = d = 300, 2·300<sup>1/3</sup> ≈ 13 &lt; 30) it would not pay.</p>`,
      },
    ],
  },
};

// ---- paper D: smoothed kernel perceptrons ------------------------------------------------------
const dset = (shape) => ({ kind: 'generated', set: { shape, n: 60, label_noise: 0, seed: 1 } });
const blobs = (margin) => dset({ kind: 'blobs', margin, spread: 0.5 });
const circles = dset({ kind: 'circles', noise: 0.05, factor: 0.45 });
const LIN = { kind: 'linear' };
const GAUSS = { kind: 'gaussian', bandwidth: { fixed: 0.5 } };
const d = (data, algorithm, kernel = LIN, max_iter = 100000) => ({ data, kernel, algorithm, max_iter });
const GORDAN = M('<mrow><mo>∃</mo><mi>α</mi><mo>:</mo><mi>G</mi><mi>α</mi><mo>&gt;</mo><mn>0</mn><mspace width="1em"></mspace><mtext>or</mtext><mspace width="1em"></mspace><mo>∃</mo><mi>p</mi><mo>∈</mo><msub><mi>Δ</mi><mi>n</mi></msub><mo>:</mo><msub><mrow><mo>‖</mo><mi>p</mi><mo>‖</mo></mrow><mi>G</mi></msub><mo>=</mo><mn>0</mn></mrow>');
const RHO = M('<mrow><msub><mi>ρ</mi><mi>K</mi></msub><mo>=</mo><munder><mo>sup</mo><mrow><msub><mrow><mo>‖</mo><mi>α</mi><mo>‖</mo></mrow><mi>G</mi></msub><mo>=</mo><mn>1</mn></mrow></munder><munder><mo>min</mo><mi>i</mi></munder><mo>(</mo><mi>G</mi><mi>α</mi><msub><mo>)</mo><mi>i</mi></msub></mrow>');

LESSONS.d = {
  title: 'Lesson D · separators and certificates',
  page: 'perceptron.html',
  steps: [
    {
      title: 'A separator, verified',
      spec: d(blobs(0.3), { kind: 'perceptron' }),
      uses: ['boundary', 'outcome'], speed: 1,
      look: `<p>Two clouds of 60 points with a gap between them, a linear kernel. The big plot shows the perceptron's decision
        function f(x) = Σ α<sub>i</sub>y<sub>i</sub>K(x<sub>i</sub>, x)/√K<sub>ii</sub> (blue &gt; 0, red &lt; 0).</p>`,
      predict: '<p><b>Predict:</b> will the perceptron find a line with every point on its side? After how many updates?</p>',
      explain: `<p>Yes, in a few updates, and the page <b>verifies</b> it: every (Gα)<sub>i</sub> &gt; 0 with
        G<sub>ij</sub> = y<sub>i</sub>y<sub>j</sub>K(x<sub>i</sub>,x<sub>j</sub>)/√(K<sub>ii</sub>K<sub>jj</sub>), so all 60 points are classified correctly (the box
        under the buttons). The perceptron adds a misclassified point to α on each mistake.</p>`,
    },
    {
      title: 'A narrower gap: the margin ρ_K',
      spec: d(blobs(0.05), { kind: 'perceptron' }),
      uses: ['margin', 'r-margin', 'boundary', 'trace'], speed: 2,
      look: '<p>The same clouds, pushed together (margin 0.05). Watch the readout ρ<sub>K</sub>, the margin of the normalized data.</p>',
      predict: '<p><b>Predict:</b> smaller margin — more iterations or fewer?</p>',
      explain: `<p>More: ρ<sub>K</sub> shrank, and the perceptron needed more updates than in step 1, still within Novikoff’s
        bound 1/ρ<sub>K</sub>² (the black line in the lower plot). The margin is</p>${RHO}
        <p>the best worst-case normalized score a classifier can reach.</p>`,
    },
    {
      title: 'The normalized perceptron is a subgradient method',
      spec: d(blobs(0.05), { kind: 'nkp' }),
      uses: ['algo', 'trace'], speed: 10,
      look: '<p>NKP (Algorithm 3): α ← (1 − θ)α + θe<sub>j</sub> with θ = 1/(k + 1) and j the worst point — an average, not a sum.</p>',
      predict: '<p><b>Predict:</b> will NKP stay within its bound 1/ρ<sub>K</sub>²? Faster or slower than the perceptron?</p>',
      explain: `<p>Within the bound, but slower than the plain perceptron on these data. NKP is a subgradient method on
        L(α) = max<sub>p∈Δ</sub>(−pᵀGα) + ½‖α‖<sub>G</sub>², whose minimum is −ρ<sub>K</sub>²/2: subgradient methods need
        O(1/ρ<sub>K</sub>²) steps.</p>`,
    },
    {
      title: 'Smoothing: SNKP',
      spec: d(blobs(0.05), { kind: 'snkp' }),
      uses: ['algo', 'trace'], speed: 2,
      look: '<p>SNKP (Algorithm 4) replaces the hard “worst point” by a softmax p<sub>μ</sub>(α) = softmax(−Gα/μ) and lets μ → 0 (Nesterov smoothing).</p>',
      predict: '<p><b>Predict:</b> fewer iterations than NKP’s subgradient steps?</p>',
      explain: `<p>Far fewer. Smoothing turns the non-smooth max into a smooth function, and on separable data (ρ<sub>K</sub> &gt; 0) the accelerated scheme halts within (Theorem 1)</p>
        ${M('<mrow><mfrac><mrow><mn>2</mn><msqrt><mrow><mn>2</mn><mi>log</mi><mi>n</mi></mrow></msqrt></mrow><msub><mi>ρ</mi><mi>K</mi></msub></mfrac></mrow>')}
        <p>iterations: 1/ρ instead of 1/ρ².</p>`,
    },
    {
      title: 'No separator: the perceptron never stops',
      spec: d(blobs(-0.4), { kind: 'perceptron' }, LIN, 3000),
      uses: ['r-margin', 'outcome'], speed: 500,
      look: '<p>Overlapping clouds: no line separates them. The iteration cap is 3000.</p>',
      predict: '<p><b>Predict:</b> what will the perceptron do?</p>',
      explain: '<p>It runs into the cap: a perceptron on inseparable data never halts, and it cannot tell us that it never will. The margin readout (computed apart from the run) says why: ρ<sub>K</sub> &lt; 0, the data are <b>inseparable</b>.</p>',
    },
    {
      title: 'An ε-certificate: what it proves',
      spec: d(blobs(-0.4), { kind: 'nvn', epsilon: 0.01 }),
      uses: ['algo', 'epsilon', 'outcome', 'boundary', 'r-margin'], speed: 1,
      look: '<p>The normalized von Neumann algorithm (NVN, Algorithm 5) looks for weights p in the simplex instead of α, and stops when ‖p‖<sub>G</sub> ≤ ε = 0.01: an <b>ε-certificate</b>. The point sizes show p<sub>i</sub>.</p>',
      predict: '<p><b>Predict:</b> NVN will return weights p with ‖p‖<sub>G</sub> ≤ 0.01. Does that prove that no separator exists?</p>',
      explain: `<p>No — it proves something weaker. <b>Weak duality</b> (Lemma 3): ρ<sub>K</sub> ≤ ‖p‖<sub>G</sub> for every p in the simplex,
        so the verified certificate proves ρ<sub>K</sub> ≤ ε = 0.01: no classifier has a normalized margin above 0.01
        (“near-infeasibility”, in the paper's words). Separable data with 0 &lt; ρ<sub>K</sub> ≤ ε admit an ε-certificate too.
        Only ‖p‖<sub>G</sub> = 0 proves that no separator exists — Gordan’s theorem in an RKHS (Theorem 2): exactly one of</p>${GORDAN}
        <p>Here the margin readout, computed apart from NVN, says more: ρ<sub>K</sub> &lt; 0, so these data are indeed inseparable, and
        |ρ<sub>K</sub>| is the radius of the largest ball about the origin inside the convex hull of the y<sub>i</sub>φ̃(x<sub>i</sub>) (Theorem 3).</p>`,
    },
    {
      title: 'Circles with a linear kernel',
      spec: d(circles, { kind: 'nvn', epsilon: 0.01 }),
      uses: ['data', 'outcome'], speed: 1,
      look: '<p>One class on a small circle inside the other. Linear kernel, NVN.</p>',
      predict: '<p><b>Predict:</b> separator or certificate?</p>',
      explain: '<p>A verified ε-certificate, so ρ<sub>K</sub> ≤ ε (Lemma 3); the margin readout shows more, ρ<sub>K</sub> &lt; 0: no line separates a ring from its centre.</p>',
    },
    {
      title: 'The same circles, a Gaussian kernel',
      spec: d(circles, { kind: 'perceptron' }, GAUSS),
      uses: ['kernel', 'mu', 'boundary', 'r-margin'], speed: 2,
      look: '<p>Same points; the kernel is now Gaussian, K(x, x′) = exp(−‖x − x′‖²/width) with width = 0.5 (the field “width”; μ stays SNKP’s smoothing parameter). The perceptron again.</p>',
      predict: '<p><b>Predict:</b> separable now?</p>',
      explain: `<p>Yes: a verified separator and ρ<sub>K</sub> &gt; 0. For distinct points the Gaussian Gram matrix K is positive definite, so is
        G = D<sub>y</sub>D<sup>−½</sup>KD<sup>−½</sup>D<sub>y</sub>, and α = G<sup>−1</sup>1 gives Gα = 1 &gt; 0: a Gaussian kernel separates any
        labelling of distinct points.</p>`,
    },
    {
      title: 'One algorithm for both answers (overlap)',
      spec: d(blobs(-0.4), { kind: 'isnkpvn', gamma: 2, epsilon: 0.01 }),
      uses: ['algo', 'outcome'], speed: 5,
      look: '<p>ISNKPVN(γ, ε) (Algorithm 7) runs SNKPVN with shrinking δ. Theorem 4: if the data are separable with ε &lt; ρ<sub>K</sub> it returns a separator; if they are inseparable, or ε &gt; ρ<sub>K</sub>, it returns an ε-certificate.</p>',
      predict: '<p><b>Predict:</b> on the overlapping clouds, which answer will it give?</p>',
      explain: '<p>A verified ε-certificate (so ρ<sub>K</sub> ≤ ε, Lemma 3), within O(min{√n/ε, √n/|ρ<sub>K</sub>|}·log(1/ε)) iterations (Theorem 4, part 2: here ρ<sub>K</sub> &lt; 0).</p>',
    },
    {
      title: 'One algorithm for both answers (Gaussian circles)',
      spec: d(circles, { kind: 'isnkpvn', gamma: 2, epsilon: 0.01 }, GAUSS),
      uses: ['algo', 'outcome', 'boundary'], speed: 2,
      look: '<p>The same algorithm, ε = 0.01, on the separable problem of step 8 (its margin readout showed ρ<sub>K</sub>).</p>',
      predict: '<p><b>Predict:</b> separator or certificate?</p>',
      explain: '<p>A verified separator. Theorem 4 (part 1) promises one because its hypothesis holds: step 8’s certified ρ<sub>K</sub> is above ε = 0.01; the total is O(√n/ρ<sub>K</sub>·log(1/ρ<sub>K</sub>)) iterations. With ε above ρ<sub>K</sub> it could have returned an ε-certificate instead, on separable data. The same code decides either way, and each answer is checked.</p>',
    },
  ],
};

// ---- paper C: fixed point and coordinate descent ------------------------------------------------
const MOONS = { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 100, label_noise: 0.05, seed: 1 };
const c = (loss, method, lambda = 0.1, data = MOONS) => ({
  data, loss, lambda, kernel: { kind: 'gaussian', bandwidth: { fixed: 0.5 } }, method: { tol: 1e-8, max_sweeps: 20000, ...method }, race: false,
});
const FP = (step) => ({ kind: 'fixed_point', step });
const CD = { kind: 'coordinate', rule: 'cyclic', seed: 1 };
const FIXED = M('<mrow><mi>c</mi><mo>=</mo><mo>−</mo><msub><mi>J</mi><mi>α</mi></msub><mo>(</mo><mi>α</mi><mi>K</mi><mi>c</mi><mo>−</mo><mi>c</mi><mo>)</mo><mo>,</mo><mspace width="1em"></mspace><msub><mi>J</mi><mi>α</mi></msub><mo>=</mo><msup><mrow><mo>(</mo><mi>I</mi><mo>+</mo><mi>α</mi><msup><mrow><mo>(</mo><mo>∂</mo><mi>f</mi><mo>)</mo></mrow><mrow><mo>−</mo><mn>1</mn></mrow></msup><mo>)</mo></mrow><mrow><mo>−</mo><mn>1</mn></mrow></msup></mrow>');
const BOUND = M('<mrow><mn>0</mn><mo>&lt;</mo><mi>α</mi><mo>&lt;</mo><mfrac><mn>2</mn><msub><mrow><mo>‖</mo><mi>K</mi><mo>‖</mo></mrow><mn>2</mn></msub></mfrac></mrow>');

LESSONS.c = {
  title: 'Lesson C · fixed point and coordinate descent',
  page: 'dinuzzo.html',
  steps: [
    {
      title: 'A kernel method as a fixed point',
      spec: c({ kind: 'square' }, FP({ kind: 'inverse_norm' })),
      uses: ['map', 'conv', 'r-support'], speed: 500,
      look: `<p>100 points on two moons, a Gaussian kernel, the square loss (regularized least squares). We minimize
        F(c) = f(Kc) + cᵀKc/2 with f(z) = Σ L(y<sub>i</sub>, z<sub>i</sub>)/λ by iterating one map, with the step α = 1/‖K‖<sub>2</sub>.
        The map shows f(x) = Σ c<sub>i</sub>k(x<sub>i</sub>, x); ringed points have c<sub>i</sub> ≠ 0.</p>`,
      predict: '<p><b>Predict:</b> with the square loss, how many of the 100 points will end up with c<sub>i</sub> ≠ 0 (support vectors)?</p>',
      explain: `<p>All of them (readout “support vectors”). The optimum is a fixed point of (Theorem 1)</p>${FIXED}
        <p>for every α &gt; 0. Theorem 1 covers a convex loss with the squared-norm regularizer cᵀKc/2 = ‖f‖²<sub>H</sub>/2 (problem (2)),
        not every kernel method. For the square loss the solution is the closed form c = (K + λI)<sup>−1</sup>y, and nothing forces a c<sub>i</sub> to 0.</p>`,
    },
    {
      title: 'A cheaper step rule, a slower run',
      spec: c({ kind: 'square' }, FP({ kind: 'inverse_trace' })),
      uses: ['alpha-rule', 'conv'], speed: 1000,
      look: '<p>Same problem; the step is now α = 1/tr(K), which needs no eigenvalue (tr K = Σ k<sub>ii</sub>).</p>',
      predict: '<p><b>Predict:</b> tr(K) ≥ ‖K‖<sub>2</sub>, so this α is smaller. More sweeps or fewer?</p>',
      explain: '<p>Several times more sweeps. For the square loss the map is linear, c ← ((I − αK)c + αy)/(1 + αλ) (our derivation from J<sub>α</sub>, as in the digest), so each sweep multiplies the error along an eigenvector of K with eigenvalue k by (1 − αk)/(1 + αλ); along K’s tiny eigenvalues that is about 1/(1 + αλ), closer to 1 for a smaller α. 1/tr(K) is safe (it is below 2/‖K‖<sub>2</sub>, since tr K ≥ ‖K‖<sub>2</sub>) but slow.</p>',
    },
    {
      title: 'Over the edge: a step too large',
      spec: c({ kind: 'square' }, FP({ kind: 'fixed', value: 0.1 })),
      uses: ['alpha-rule', 'alpha', 'r-alpha', 'conv'], speed: 10,
      look: '<p>A typed step α = 0.1. The readout α shows it next to 2/‖K‖<sub>2</sub> for these data (about 0.087), the bound of Theorem 2’s condition (11).</p>',
      predict: '<p><b>Predict:</b> α is above 2/‖K‖<sub>2</sub>. Will the iteration converge or diverge?</p>',
      explain: `<p>It diverges within a few dozen sweeps: |Δc| grows geometrically. Theorem 2 guarantees convergence when</p>${BOUND}
        <p>but condition (11) is <b>sufficient, not necessary</b>. For the square loss the iteration matrix is (I − αK)/(1 + αλ); its
        largest eigenvalue in modulus, (α‖K‖<sub>2</sub> − 1)/(1 + αλ) once α‖K‖<sub>2</sub> &gt; 1, is below 1 exactly when
        α &lt; 2/(‖K‖<sub>2</sub> − λ). Here λ = 0.1 and ‖K‖<sub>2</sub> ≈ 23.1, so that limit is about 0.0870, a hair above
        2/‖K‖<sub>2</sub> ≈ 0.0866: a step between the two converges; α = 0.1 is 15 % above both, and |Δc| grows by
        (0.1·‖K‖<sub>2</sub> − 1)/1.01 ≈ 1.3 per sweep. (The exact limit is our derivation for the square loss, not the paper’s.)</p>`,
    },
    {
      title: 'Coordinate descent: no step to choose',
      spec: c({ kind: 'square' }, CD),
      uses: ['algorithm', 'conv'], speed: 500,
      look: '<p>Coordinate descent (Algorithm 1) updates one c<sub>i</sub> at a time, in order, with its own step α<sub>i</sub> = 1/k<sub>ii</sub>.</p>',
      predict: '<p><b>Predict:</b> compared with the fixed point at α = 1/‖K‖<sub>2</sub> (step 1) — more sweeps or fewer? The same solution?</p>',
      explain: `<p>Fewer sweeps here, and the same objective F(c) as step 1. Each update solves the i-th equation exactly,</p>
        ${M('<mrow><msub><mi>c</mi><mi>i</mi></msub><mo>←</mo><msub><mi>S</mi><mi>i</mi></msub><mo>(</mo><msub><mi>z</mi><mi>i</mi></msub><mo>/</mo><msub><mi>k</mi><mrow><mi>i</mi><mi>i</mi></mrow></msub><mo>−</mo><msub><mi>c</mi><mi>i</mi></msub><mo>)</mo><mo>,</mo><mspace width="1em"></mspace><msub><mi>S</mi><mi>i</mi></msub><mo>=</mo><mo>−</mo><msubsup><mi>J</mi><mrow><mn>1</mn><mo>/</mo><msub><mi>k</mi><mrow><mi>i</mi><mi>i</mi></mrow></msub></mrow><mi>i</mi></msubsup></mrow>')}
        <p>and uses the new values at once (Gauss–Seidel instead of Jacobi); the stopping test is max|h<sub>i</sub>| &lt; δ. Theorem 4: with an
        essentially cyclic order and every k<sub>ii</sub> &gt; 0, cluster points are optimal. Each update is the exact maximization of the
        Fenchel dual along one coordinate — not, as the paper’s proof says, an exact line search on F (that holds only for a diagonal K;
        docs/errata.md).</p>`,
    },
    {
      title: 'The hinge loss: support vectors',
      spec: c({ kind: 'hinge' }, CD),
      uses: ['loss', 'map', 'r-support'], speed: 200,
      look: '<p>The same points with the hinge loss (1 − yf)<sub>+</sub>: a support vector machine, solved by coordinate descent.</p>',
      predict: '<p><b>Predict:</b> how many points will keep c<sub>i</sub> ≠ 0 now — all, about half, or a few?</p>',
      explain: `<p>Under a third of them: the ringed points on or inside the margin (grey lines f = ±1). With f(z) = Σ L/λ, the optimality
        condition 0 ∈ ∂f(Kc) + c (Theorem 1; Table 1’s operator y ⊙ min(1/λ, (1 − y ⊙ v)<sub>+</sub>) at α = 1) fixes every c<sub>i</sub>:
        c<sub>i</sub> = y<sub>i</sub>/λ <b>exactly</b> for points strictly inside the margin or misclassified (y<sub>i</sub>f(x<sub>i</sub>) &lt; 1),
        y<sub>i</sub>c<sub>i</sub> between 0 and 1/λ for points on it (y<sub>i</sub>f(x<sub>i</sub>) = 1), and c<sub>i</sub> = 0 beyond it
        (y<sub>i</sub>f(x<sub>i</sub>) &gt; 1), where the hinge loss is flat — so the solution is sparse.</p>`,
    },
    {
      title: 'The hinge loss with the fixed point',
      spec: c({ kind: 'hinge' }, FP({ kind: 'inverse_norm' })),
      uses: ['algorithm', 'conv'], speed: 2000,
      look: '<p>The SVM again, now with the fixed-point iteration at α = 1/‖K‖<sub>2</sub> (at most 20 000 sweeps).</p>',
      predict: '<p><b>Predict:</b> coordinate descent needed about 1200 sweeps. The fixed point?</p>',
      explain: '<p>It reaches the sweep cap with a duality gap still orders of magnitude above the one coordinate descent reached in step 5. Theorem 3 even applies here — K is positive definite (a Gaussian kernel on distinct points), one of its two sufficient conditions for a linear rate — but its factor is ‖αK − I‖<sub>2</sub> = 1 − α·k<sub>min</sub> = 1 − k<sub>min</sub>/‖K‖<sub>2</sub>, and K’s smallest eigenvalue is below 10⁻¹⁰ of its largest: a linear rate of no use. Coordinate descent solves each coordinate exactly.</p>',
    },
    {
      title: 'More regularization, more support vectors',
      spec: c({ kind: 'hinge' }, CD, 1.0),
      uses: ['lambda', 'map', 'r-support'], speed: 100,
      look: '<p>The SVM with λ = 1 instead of 0.1 (f(z) = Σ L/λ: a larger λ weighs the loss less).</p>',
      predict: '<p><b>Predict:</b> more or fewer support vectors than in step 5?</p>',
      explain: '<p>More: with the loss weighed less the margin widens, more points fall inside it, and each of those has c<sub>i</sub> ≠ 0. The run also needs fewer sweeps.</p>',
    },
    {
      title: 'Regression: the ε-tube',
      spec: c({ kind: 'eps_insensitive', eps: 0.2 }, CD, 0.1, { kind: 'regression', n: 60, noise: 0.1, outliers: 0, seed: 1 }),
      uses: ['loss', 'eps', 'map', 'r-support'], speed: 10,
      look: '<p>1-D regression, 60 noisy points, the ε-insensitive loss (|y − f| − ε)<sub>+</sub> with ε = 0.2 (support vector regression).</p>',
      predict: '<p><b>Predict:</b> which points will be support vectors?</p>',
      explain: '<p>Only the few on or outside the ε-tube around the curve. The optimality condition 0 ∈ ∂f(Kc) + c gives c<sub>i</sub> = 0 strictly inside the tube, where the loss is zero and flat; |c<sub>i</sub>| = 1/λ exactly strictly outside it; and |c<sub>i</sub>| between 0 and 1/λ on its edge, |y<sub>i</sub> − f(x<sub>i</sub>)| = ε. Here every support vector lies on the edge. A sparse regression function, from the same fixed-point equation.</p>',
    },
  ],
};

// ---- paper B: M-RLSR and kernel ridge -----------------------------------------------------------
// A step loads the data and kernel at the previous (m, λ); "Run it" refits at the step's (m, λ).
const SINE = { kind: 'sine', n: 100, sigma: 0.2, seed: 1 };
const bspec = (m, lambda = 1e-3) => ({ data: SINE, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m, lambda });
const THM1 = M('<mrow><mi>F</mi><mo>(</mo><mi>C</mi><mo>)</mo><mo>=</mo><msup><mrow><mo>(</mo><munder><mo>∑</mo><mi>i</mi></munder><mfrac><mrow><mn>4</mn><msub><mi>d</mi><mi>i</mi></msub><msubsup><mi>y</mi><mi>i</mi><mrow><mo>′</mo><mn>2</mn></mrow></msubsup></mrow><msup><mrow><mo>(</mo><mn>2</mn><msub><mi>d</mi><mi>i</mi></msub><mo>+</mo><mi>λ</mi><mi>m</mi><mi>n</mi><mi>C</mi><mo>)</mo></mrow><mn>2</mn></msup></mfrac><mo>)</mo></mrow><mrow><mi>m</mi><mo>/</mo><mn>2</mn><mo>−</mo><mn>1</mn></mrow></msup><mo>−</mo><mi>C</mi><mo>,</mo><mspace width="1em"></mspace><msup><mi>α</mi><mo>′</mo></msup><mo>=</mo><mfrac><mrow><mn>2</mn><msup><mi>y</mi><mo>′</mo></msup></mrow><mrow><mn>2</mn><mi>d</mi><mo>+</mo><mi>λ</mi><mi>m</mi><mi>n</mi><msub><mi>C</mi><mn>0</mn></msub></mrow></mfrac></mrow>');
const WEAK = M('<mrow><msub><mi>λ</mi><mn>2</mn></msub><mo>=</mo><mfrac><mi>m</mi><mn>2</mn></mfrac><msub><mi>C</mi><mn>0</mn></msub><mo>(</mo><mi>Z</mi><mo>,</mo><mi>m</mi><mo>,</mo><mi>λ</mi><mo>)</mo><mspace width="0.2em"></mspace><mi>λ</mi></mrow>');

LESSONS.b = {
  title: 'Lesson B · M-RLSR and kernel ridge',
  page: 'mrlsr.html',
  steps: [
    {
      title: 'Kernel ridge is M-RLSR at m = 2',
      spec: bspec(1.5), to: { m: 2 }, action: 'fit',
      uses: ['m', 'fit', 'r-c0', 'r-lambda2'],
      look: `<p>100 noisy samples of sin(2πx), a Gaussian kernel. M-RLSR minimizes
        ${m('<mfrac><mn>1</mn><mi>n</mi></mfrac><mo>∑</mo><msup><mrow><mo>(</mo><msub><mi>y</mi><mi>i</mi></msub><mo>−</mo><mi>f</mi><mo>(</mo><msub><mi>x</mi><mi>i</mi></msub><mo>)</mo><mo>)</mo></mrow><mn>2</mn></msup><mo>+</mo><mi>λ</mi><msubsup><mrow><mo>‖</mo><mi>f</mi><mo>‖</mo></mrow><mi>H</mi><mi>m</mi></msubsup>')}.
        Run it sets m = 2 (λ = 10⁻³). Watch the readouts C₀ and λ₂.</p>`,
      predict: '<p><b>Predict:</b> at m = 2 this is kernel ridge regression. What will C₀ be, and λ₂?</p>',
      explain: `<p>C₀ = 1 and λ₂ = λ. By Theorem 1 the whole solution follows from one scalar, the positive root C₀ of</p>${THM1}
        <p>with K = QDQᵀ, y′ = Qᵀy. At m = 2 the exponent is 0, so F(C) = 1 − C and α = (K + nλI)<sup>−1</sup>y: kernel ridge.</p>`,
    },
    {
      title: 'm = 1.5: one scalar equation',
      spec: bspec(2), to: { m: 1.5 }, action: 'fit',
      uses: ['m', 'fplot', 'r-c0', 'r-norm'],
      look: '<p>Run it moves m to 1.5. The lower plot shows F(C); C₀ is where it crosses zero.</p>',
      predict: '<p><b>Predict:</b> will C₀ be above or below 1? How is it related to ‖f‖<sub>H</sub>?</p>',
      explain: `<p>Below 1, and C₀ = ‖f‖<sub>H</sub><sup>m−2</sup> (compare the readouts: ‖f‖<sub>H</sub><sup>−0.5</sup> = C₀). F(0) &gt; 0, and for
        1 &lt; m &lt; 2 F is strictly concave, so the root is unique. (For m &gt; 2 — step 4 — F is strictly convex and decreasing
        instead, and the root is unique because F is monotone: the paper’s Appendix C calls F concave for every m &gt; 1, which is
        false for m &gt; 2; docs/errata.md.) A safeguarded Newton solve finds the root in a few dozen iterations, and every refit
        after that reuses the eigendecomposition.</p>`,
    },
    {
      title: 'The kernel ridge twin',
      spec: bspec(2), to: { m: 1.5 }, action: 'fit',
      uses: ['m', 'fit', 'r-lambda2'],
      look: '<p>The upper plot draws M-RLSR at (m, λ) in red and kernel ridge at λ₂ in blue.</p>',
      predict: '<p><b>Predict:</b> which kernel-ridge parameter λ₂ reproduces the M-RLSR curve on these data?</p>',
      explain: `<p>The curves coincide at (Prop. 5.1)</p>${WEAK}<p>(readout λ₂; here smaller than λ because m/2 · C₀ &lt; 1).</p>`,
    },
    {
      title: 'm = 3: above kernel ridge',
      spec: bspec(1.5), to: { m: 3 }, action: 'fit',
      uses: ['m', 'r-c0', 'r-norm', 'r-lambda2'],
      look: '<p>Run it moves m to 3.</p>',
      predict: '<p><b>Predict:</b> C₀ above or below 1 now? λ₂ above or below λ?</p>',
      explain: '<p>Both above: C₀ = ‖f‖<sub>H</sub><sup>m−2</sup> = ‖f‖<sub>H</sub> &gt; 1 here, and λ₂ = (3/2)C₀λ &gt; λ. A larger m penalizes large norms more and small ones less. For m &gt; 2 the exponent m/2 − 1 of F is positive: F is strictly convex and decreasing (not concave, as the paper’s Appendix C says), so its root is still unique.</p>',
    },
    {
      title: 'Less regularization',
      spec: bspec(1.5), to: { lambda: 1e-6 }, action: 'fit',
      uses: ['loglambda', 'fit', 'r-norm'],
      look: '<p>Run it lowers λ from 10⁻³ to 10⁻⁶ at m = 1.5.</p>',
      predict: '<p><b>Predict:</b> will ‖f‖<sub>H</sub> grow or shrink? What happens to the curve?</p>',
      explain: '<p>‖f‖<sub>H</sub> grows by more than ten times and the curve starts to chase the noise: the penalty λ‖f‖<sup>m</sup> no longer holds it back (λ₂ shrinks too).</p>',
    },
    {
      title: 'm = 1: the edge of Theorem 1',
      spec: bspec(1.5), to: { m: 1 }, action: 'fit',
      uses: ['m', 'outside', 'fplot'],
      look: '<p>Run it sets m = 1: the penalty λ‖f‖ is convex but not strictly.</p>',
      predict: '<p><b>Predict:</b> does the root C₀ still exist?</p>',
      explain: '<p>Here yes (the box above the readouts says why): at m = 1 a root exists only if Σ4d<sub>i</sub>y′<sub>i</sub>² &gt; (λn)², which these data satisfy — our analysis, not the paper’s: Theorem 1 itself needs m &gt; 1.</p>',
    },
    {
      title: 'm < 1: outside the theory',
      spec: bspec(1.5), to: { m: 0.5 }, action: 'fit',
      uses: ['m', 'outside', 'fplot'],
      look: '<p>Run it sets m = 0.5, a value the paper’s experiments use although the objective is then not convex.</p>',
      predict: '<p><b>Predict:</b> how many positive roots will F have?</p>',
      explain: '<p>Two: the smaller gives the minimizer, the larger a saddle point near α = 0, and f = 0 is always a local minimum. This is our numerical analysis, not the paper’s: Theorem 1 stops at m &gt; 1, although the paper’s experiments use m down to 0.1. The page says so instead of silently returning a number.</p>',
    },
    {
      title: 'Weak, not strong, equivalence',
      spec: bspec(1.5), action: 'equivalence',
      uses: ['eq-run', 'eq-table', 'eq-bars'],
      look: '<p>The data split into four parts Z₁…Z₄; λ is chosen by cross-validation on Z₁ and λ₂ computed there. Then the same (λ, λ₂) fit M-RLSR and kernel ridge on each part.</p>',
      predict: '<p><b>Predict:</b> on Z₂, Z₃, Z₄, will M-RLSR(λ) and KRR(λ₂) still give the same function?</p>',
      explain: `<p>Only on Z₁: ‖f<sub>M-RLSR</sub> − f<sub>KRR</sub>‖ is 0 there and positive on the other parts (the table). λ₂ depends on the
        sample through C₀(Z, m, λ), so the two methods are equivalent on each data set (weakly, Definition 3.3), not as methods (strongly, Definition 3.4).</p>`,
    },
  ],
};
