// The guided lessons, walked as a class would: open the first step from a lesson link, press
// Run it, wait for the explanation, check every claim the step makes against the page's
// readouts (and against the native kplay where the claim is about an optimum), press Next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, text, KPLAY, readNum, NUM_RE } from './harness.mjs';
import { LESSONS } from './lesson-files.mjs';

const env = useBrowser();
// A readout's value: its data-value when it keeps one (page B's λ₂, written 5.5 × 10⁻⁴), else its text.
const num = async (page, sel) => Number((await page.locator(sel).getAttribute('data-value')) ?? await text(page, sel));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'kplay-lesson-'));

/** `kplay run` on a spec (paper A): the native run's JSON. */
function native(spec) {
  const file = path.join(tmp, `spec-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 28 }).toString());
}

/** `kplay gen` on a spec: the data as { X: rows of features, y } (the y column of the CSV). */
function nativeData(spec) {
  const file = path.join(tmp, `spec-${Math.random().toString(36).slice(2)}.json`);
  const out = `${file}.csv`;
  writeFileSync(file, JSON.stringify(spec));
  execFileSync(KPLAY, ['gen', file, '-o', out]);
  const [head, ...rows] = readFileSync(out, 'utf8').trim().split(/\r?\n/);
  const cols = head.split(',').map((c) => c.trim());
  const iy = cols.indexOf('y');
  assert.ok(iy >= 0, `a y column in ${head}`);
  const X = [];
  const y = [];
  for (const r of rows) {
    const v = r.split(',').map(Number);
    y.push(v[iy]);
    X.push(v.filter((_, j) => j !== iy));
  }
  return { X, y };
}

/** The Gaussian Gram matrix exp(−‖xᵢ − xⱼ‖²/μ), computed here, apart from the engine. */
function gaussGram(X, mu) {
  return X.map((a) => X.map((b) => Math.exp(-a.reduce((s, ai, t) => s + (ai - b[t]) ** 2, 0) / mu)));
}

/** Eigenvalues (ascending) and eigenvectors (columns of V) of a symmetric matrix by cyclic Jacobi
 *  rotations: an independent eigensolver for the claims about ‖K‖₂, cond(K) and paper B's F. */
function jacobiEigen(A0) {
  const n = A0.length;
  const A = A0.map((r) => Float64Array.from(r));
  const V = Array.from({ length: n }, (_, i) => { const r = new Float64Array(n); r[i] = 1; return r; });
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) off += A[i][j] ** 2;
    if (off < 1e-60) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        if (A[p][q] === 0) continue;
        const theta = (A[q][q] - A[p][p]) / (2 * A[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const sn = t * c;
        for (let k = 0; k < n; k++) {
          const akp = A[k][p], akq = A[k][q];
          A[k][p] = c * akp - sn * akq;
          A[k][q] = sn * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = A[p][k], aqk = A[q][k];
          A[p][k] = c * apk - sn * aqk;
          A[q][k] = sn * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = V[k][p], vkq = V[k][q];
          V[k][p] = c * vkp - sn * vkq;
          V[k][q] = sn * vkp + c * vkq;
        }
      }
    }
  }
  const order = [...Array(n).keys()].sort((i, j) => A[i][i] - A[j][j]);
  return { values: order.map((i) => A[i][i]), vectors: order.map((i) => V.map((r) => r[i])) };
}

/** Wait for step k to be shown (a lesson is fetched and validated after the page is ready). */
const atStep = (page, k) => page.waitForFunction((k) => document.body.dataset.lessonStep === String(k), k);

async function runStep(page, k, total) {
  await atStep(page, k);
  assert.equal(await text(page, '#lesson-count'), `Step ${k} of ${total}`);
  assert.equal(await page.evaluate(() => document.body.dataset.lessonPhase), 'predict');
  assert.ok(await page.locator('#lesson-explain').isHidden(), 'the explanation waits for the run');
  await page.click('#lesson-run');
  await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 120000 });
  assert.ok(await page.locator('#lesson-explain').isVisible());
}

async function next(page, k) {
  await page.click('#lesson-next');
  await page.waitForFunction((k) => document.body.dataset.lessonStep === String(k), k + 1);
}

const recovery = async (page) => {
  const m = (await text(page, '#recovery')).match(/recovers (\d+) of the (\d+) true features; (\d+) entries above/);
  assert.ok(m, 'recovery readout');
  return { recovered: Number(m[1]), k: Number(m[2]), above: Number(m[3]) };
};

test('lesson A can be walked from the first step to the last, each claim checked', async () => {
  const L = LESSONS.a;
  const n = L.steps.length;
  assert.ok(n >= 8 && n <= 16);
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html#lesson=a&step=1`);
  const r = [];
  // 1. Primal above dual, they meet: converged, relative gap ≤ 1e-8, F(w) ≥ −Λ(α).
  await runStep(page, 1, n);
  r[1] = { iter: await num(page, '#r-iter'), primal: await num(page, '#r-primal'), dual: await num(page, '#r-dual'), rec: await recovery(page) };
  assert.equal(await text(page, '#r-status'), 'converged');
  assert.ok(await num(page, '#r-relgap') <= 1e-8);
  assert.ok(r[1].primal >= r[1].dual, 'primal above dual');
  // Steps 6–9 quote this run: "under 100 iterations", "about 60".
  assert.ok(r[1].iter >= 40 && r[1].iter < 100, `step 1: ${r[1].iter} iterations`);
  assert.ok(await num(page, '#r-gap') >= 0);
  await next(page, 1);
  // 2. The relative gap at 1e-3 bounds the true relative error (F* from kplay at 1e-13); fewer iterations.
  await runStep(page, 2, n);
  const rg = await num(page, '#r-relgap');
  assert.ok(rg <= 1e-3);
  const fStar = native({ ...L.steps[1].spec, solver: { ...L.steps[1].spec.solver, tol: 1e-13 } }).primal;
  const f2 = await num(page, '#r-primal');
  assert.ok((f2 - fStar) / f2 <= rg && f2 >= fStar * (1 - 1e-12), `(F − F*)/F = ${(f2 - fStar) / f2} vs rel gap ${rg}`);
  assert.ok(await num(page, '#r-iter') < r[1].iter);
  await next(page, 2);
  // 3. Proposition 3.2: stopped at relative gap ≤ 1e-4, more iterations than step 2, fewer than step 1;
  //    the page's F(w) is within the relative gap of F* (kplay at 1e-13).
  await runStep(page, 3, n);
  const rg3 = await num(page, '#r-relgap');
  assert.ok(rg3 <= 1e-4);
  const it3 = await num(page, '#r-iter');
  assert.ok(it3 < r[1].iter, `step 3: ${it3} iterations`);
  const f3 = await num(page, '#r-primal');
  assert.ok((f3 - fStar) / f3 <= rg3, `(F − F*)/F = ${(f3 - fStar) / f3} vs rel gap ${rg3}`);
  await next(page, 3);
  // 4. Approximately sparse: few of the 300 entries above τ; the top 5 find most true features.
  await runStep(page, 4, n);
  r[3] = { iter: await num(page, '#r-iter'), rec: await recovery(page) };
  assert.ok(r[3].rec.above < 30, `entries above τ: ${r[3].rec.above}`);
  assert.ok(r[3].rec.recovered >= 3);
  await next(page, 4);
  // 5. Theorem 2.2: step 1's run again — the same iterations and F.
  await runStep(page, 5, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  assert.equal(await num(page, '#r-iter'), r[1].iter);
  assert.ok(Math.abs(await num(page, '#r-primal') - r[1].primal) <= 1e-12 * r[1].primal);
  await next(page, 5);
  // 6. p = 1.1: over ten times the iterations, fewer entries above τ, all 5 true features found.
  await runStep(page, 6, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  r[4] = { iter: await num(page, '#r-iter'), rec: await recovery(page) };
  assert.ok(r[4].iter > 10 * r[3].iter, `${r[4].iter} vs ${r[3].iter}`);
  assert.ok(r[4].rec.above < r[3].rec.above);
  assert.equal(r[4].rec.recovered, 5);
  assert.ok(r[4].rec.recovered > r[3].rec.recovered);
  // The explanation's reading: at q = 11 the line search accepts smaller steps λ than at q = 4
  // (median accepted step of each native run).
  const median = (v) => { const w = [...v].sort((x, y) => x - y); return w[w.length >> 1]; };
  const step3 = median(native(L.steps[3].spec).trace.map((t) => t.step).filter((x) => x > 0));
  const step4 = median(native(L.steps[5].spec).trace.map((t) => t.step).filter((x) => x > 0));
  assert.ok(step4 < step3, `median accepted step: p = 1.1 ${step4}, p = 4/3 ${step3}`);
  await next(page, 6);
  // 7. Primal GD: stops at the 500 cap with a relative gap above 1e-2.
  await runStep(page, 7, n);
  assert.equal(await text(page, '#r-status'), 'max iterations');
  assert.equal(await num(page, '#r-iter'), 500);
  assert.ok(await num(page, '#r-relgap') > 1e-2);
  await next(page, 7);
  // 8. FISTA: 3000 iterations, relative gap between 1e-8 and 1e-4.
  await runStep(page, 8, n);
  assert.equal(await text(page, '#r-status'), 'max iterations');
  assert.equal(await num(page, '#r-iter'), 3000);
  const g6 = await num(page, '#r-relgap');
  assert.ok(g6 > 1e-8 && g6 < 1e-4, `FISTA rel gap ${g6}`);
  await next(page, 8);
  // 9. Dual Newton (ours): a handful of iterations, the same F as step 1.
  await runStep(page, 9, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  assert.ok(await num(page, '#r-iter') <= 10);
  assert.ok(Math.abs(await num(page, '#r-primal') - r[1].primal) <= 2e-8 * r[1].primal);
  await next(page, 9);
  // 10, 11, 12, 14. Rule (19), n ≤ 2·card(𝕂)^(1/3), holds for each polynomial tensor step
  //    (card(𝕂) = C(d+s−1, s)); step 10's n would fail it for the linear kernel, as its text says.
  const binom = (a, b) => { let r = 1; for (let i = 1; i <= b; i++) r = (r * (a - b + i)) / i; return r; };
  for (const k of [10, 11, 12, 14]) {
    const sp = L.steps[k - 1].spec;
    const card = binom(sp.data.d + sp.model.kernel.degree - 1, sp.model.kernel.degree);
    assert.equal(sp.model.kernel.kind, 'polynomial');
    assert.equal(sp.model.path, 'tensor');
    assert.ok(sp.data.n <= 2 * Math.cbrt(card), `step ${k}, rule (19): n = ${sp.data.n} vs 2·card^(1/3) = ${2 * Math.cbrt(card)}`);
  }
  assert.ok(L.steps[9].spec.data.n > 2 * Math.cbrt(L.steps[9].spec.data.d), 'with the linear kernel the tensor would not pay');
  // Each tensor step: the cost is shown before the build; the same F as the features path
  // (kplay), or, for step 13's exponential kernel (no features), as dual Newton at 1e-13 (kplay).
  for (const k of [10, 11, 12, 13, 14]) {
    if (k > 10) await next(page, k - 1);
    assert.equal(await page.evaluate(() => document.body.dataset.build), 'needed');
    assert.match(await text(page, '#tensor-cost'), /Before the build/);
    await runStep(page, k, n);
    assert.equal(await text(page, '#r-status'), 'converged');
    const ref = structuredClone(L.steps[k - 1].spec);
    if (ref.model.kernel.kind === 'exponential') ref.solver = { ...ref.solver, algorithm: 'dual_newton', tol: 1e-13 };
    else delete ref.model.path;
    const fRef = native(ref).primal;
    const fk = await num(page, '#r-primal');
    assert.ok(Math.abs(fk - fRef) <= 1e-7 * fRef, `step ${k}: tensor ${fk} vs reference ${fRef}`);
  }
  // 15. The hinge loss on the features path (Algorithm 3.3): converged, the page's F and
  //     iterations those of kplay's run of the same spec.
  await next(page, 14);
  await runStep(page, 15, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  assert.ok(await num(page, '#r-relgap') <= 1e-8);
  const hinge = native(L.steps[14].spec);
  assert.equal(await num(page, '#r-iter'), hinge.iterations);
  assert.ok(Math.abs(await num(page, '#r-primal') - hinge.primal) <= 1e-9 * Math.abs(hinge.primal));
  assert.ok(await page.locator('#lesson-next').isDisabled(), 'the last step has no Next');
  assert.deepEqual(errors, []);
  await ctx.close();
});

const outcome = async (page) => ({
  kind: await page.locator('#outcome').getAttribute('data-kind'),
  verified: await page.locator('#outcome').getAttribute('data-verified'),
  // textContent: the box's notation is MathML, whose innerText splits ‖p‖_G over lines.
  text: (await page.locator('#outcome').textContent()).replace(/\s+/g, ' '),
});
const margin = async (page) => {
  const t = await text(page, '#r-margin');
  const m = t.match(/^(-?[0-9.e+-]+) ∈ \[(-?[0-9.e+-]+), (-?[0-9.e+-]+)\] \((\w+)\)/);
  assert.ok(m, `margin readout ${t}`);
  return { rho: Number(m[1]), lower: Number(m[2]), upper: Number(m[3]), sep: m[4] };
};
async function separator(page) {
  const o = await outcome(page);
  assert.equal(o.kind, 'separator');
  assert.equal(o.verified, 'true');
  const n = await num(page, '#r-n');
  assert.match(o.text, new RegExp(`correctly classified ${n}/${n}`));
}
async function certificate(page) {
  const o = await outcome(page);
  assert.equal(o.kind, 'certificate');
  assert.equal(o.verified, 'true');
  const m = o.text.match(new RegExp(`‖p‖_?G = (${NUM_RE}) ≤ ε = (${NUM_RE})`));
  assert.ok(m && readNum(m[1]) <= readNum(m[2]), o.text);
  return { normG: readNum(m[1]), eps: readNum(m[2]) };
}

test('lesson D can be walked from the first step to the last, each claim checked', async () => {
  const n = LESSONS.d.steps.length;
  assert.ok(n >= 8 && n <= 17);
  const { page, errors, ctx } = await openPage(env.b, `${env.url}perceptron.html#lesson=d&step=1`);
  const it = [];
  await runStep(page, 1, n);
  await separator(page);
  it[1] = await num(page, '#r-iter');
  const m1 = await margin(page);
  await next(page, 1);
  // 2. Narrower gap: smaller ρ_K, more iterations, within 1/ρ².
  await runStep(page, 2, n);
  await separator(page);
  it[2] = await num(page, '#r-iter');
  const m2 = await margin(page);
  assert.ok(m2.upper < m1.lower, `ρ ${m2.rho} vs ${m1.rho}`);
  assert.ok(it[2] > it[1]);
  // Within the bound at the true ρ_K: checked at the upper end of the certified interval, the strictest
  // sound choice (ρ_K ≤ upper, so 1/upper² ≤ 1/ρ_K²).
  assert.ok(it[2] <= 1 / (m2.upper * m2.upper), `${it[2]} vs 1/ρ² ≥ ${1 / m2.upper ** 2}`);
  await next(page, 2);
  // 3. §2.2's example: the perceptron on the normalized points separates; its certified margin contains
  //    ρ₂ = 0.2/√2 (the segment from (0.6, 0.8) to −(0.8, 0.6) passes at that distance from 0), and on the
  //    raw points ρ = ρ₂/r with r = maxᵢ‖xᵢ‖ = 4, so the two Novikoff bounds differ by r⁴.
  await runStep(page, 3, n);
  await separator(page);
  {
    const m3 = await margin(page);
    const rho2 = 0.2 / Math.SQRT2;
    // The readout prints six digits: ρ₂ to within 10⁻⁵ of either end.
    assert.ok(Math.abs(m3.lower - rho2) <= 1e-5 * rho2 && Math.abs(m3.upper - rho2) <= 1e-5 * rho2, `ρ₂ = ${rho2} vs [${m3.lower}, ${m3.upper}]`);
    const pts = LESSONS.d.steps[2].spec.data.points;
    const r = Math.max(...pts.map((p) => Math.hypot(p[0], p[1])));
    const rmin = Math.min(...pts.map((p) => Math.hypot(p[0], p[1])));
    assert.ok(Math.abs(r - 4) < 1e-12 && Math.abs(rmin - 0.25) < 1e-12);
    // The raw margin at the separator x₁ = x₂: minᵢ yᵢ⟨u, xᵢ⟩ with u = (−1, 1)/√2 is ρ₂·0.25 = ρ₂/r.
    const raw = Math.min(...pts.map((p) => p[2] * (p[1] - p[0]) / Math.SQRT2));
    assert.ok(Math.abs(raw - rho2 / 4) < 1e-12, `raw margin ${raw}`);
    assert.ok(Math.abs((r * r / raw ** 2) / (1 / rho2 ** 2) - 256) < 1e-6, 'the bounds differ by r⁴');
  }
  await next(page, 3);
  // 4. NKP: within 1/ρ², slower than the perceptron here.
  await runStep(page, 4, n);
  await separator(page);
  it[3] = await num(page, '#r-iter');
  assert.ok(it[3] <= 1 / (m2.upper * m2.upper), `${it[3]} vs 1/ρ² ≥ ${1 / m2.upper ** 2}`);
  assert.ok(it[3] > it[2]);
  await next(page, 4);
  // 5. SNKP: far fewer than NKP, within 2√(2 log n)/ρ.
  await runStep(page, 5, n);
  await separator(page);
  it[4] = await num(page, '#r-iter');
  assert.ok(it[4] < it[3] / 4, `${it[4]} vs ${it[3]}`);
  assert.ok(it[4] <= 2 * Math.sqrt(2 * Math.log(60)) / m2.upper);
  await next(page, 5);
  // 6. Overlap: the perceptron hits the cap; ρ_K < 0, inseparable.
  await runStep(page, 6, n);
  assert.equal((await outcome(page)).kind, 'cap');
  assert.equal(await num(page, '#r-iter'), 3000);
  const m5 = await margin(page);
  assert.equal(m5.sep, 'inseparable');
  assert.ok(m5.upper < 0);
  await next(page, 6);
  // 7. NVN on slightly overlapping clouds: a verified ε-certificate; it proves only ρ_K ≤ ε (Lemma 3,
  //    checked at the upper end of the certified interval). The margin readout, computed apart from NVN
  //    (src/solvers/perceptron/margin.rs), is what says ρ_K < 0 here.
  await runStep(page, 7, n);
  const eps6 = await certificate(page);
  const m6 = await margin(page);
  assert.ok(m6.upper < 0, `ρ_K ${m6.rho}`);
  assert.ok(m6.upper <= eps6.normG, 'Lemma 3: ρ_K ≤ ‖p‖_G');
  assert.ok(await num(page, '#r-iter') > 10, 'NVN moved weight');
  await next(page, 7);
  // 8. Theorem 3: the overlap of step 5 with NVN; a certificate, ρ_K < 0 (the hull and the ball are drawn).
  await runStep(page, 8, n);
  await certificate(page);
  assert.ok((await margin(page)).upper < 0);
  await next(page, 8);
  // 9. NVN's 1/ε² bound: a verified ε-certificate at ε = 0.001 on step 6's clouds, within 1/ε².
  await runStep(page, 9, n);
  const eps8 = await certificate(page);
  assert.ok(await num(page, '#r-iter') <= 1 / (eps8.eps * eps8.eps), 'within 1/ε²');
  await next(page, 9);
  // 10. SNKPVN(1/n, δ) on the same clouds: a verified δ-certificate (Lemma 9's regime, ρ_K < 0).
  await runStep(page, 10, n);
  await certificate(page);
  assert.ok((await margin(page)).upper < 0);
  await next(page, 10);
  // 11. Lemma 3 along a run: separable, ε < ρ_K, so NVN ends with a separator and ‖p‖_G ≥ ρ_K.
  await runStep(page, 11, n);
  await separator(page);
  const m8 = await margin(page);
  assert.equal(m8.sep, 'separable');
  assert.ok(LESSONS.d.steps[10].spec.algorithm.epsilon < m8.lower);
  assert.ok(await num(page, '#r-normp') >= m8.upper, 'Lemma 3: ‖p‖_G ≥ ρ_K');
  await next(page, 11);
  // 12. The same data with ε above ρ_K: an ε-certificate on separable data.
  await runStep(page, 12, n);
  const eps9 = await certificate(page);
  const m9 = await margin(page);
  assert.ok(m9.lower > 0 && m9.upper < eps9.eps, `0 < ρ_K < ε: ${m9.rho}, ${eps9.eps}`);
  assert.ok(m9.upper <= eps9.normG, 'Lemma 3');
  await next(page, 12);
  // 13. Circles, Gaussian kernel: separator, ρ_K > 0.
  await runStep(page, 13, n);
  await separator(page);
  const m10 = await margin(page);
  assert.equal(m10.sep, 'separable');
  assert.ok(m10.lower > 0);
  await next(page, 13);
  // 14, 16. ISNKPVN: a certificate on the overlap, a separator on the Gaussian circles.
  await runStep(page, 14, n);
  await certificate(page);
  await next(page, 14);
  // 15. ISNKPVN's outer loops at ε = 10⁻⁶ on step 7's clouds: a verified certificate; kplay's phases add
  //     up to the page's count, and each call stays within Lemma 9's bound (√2 restored) with |ρ_K| from the
  //     page's certified margin (−lower, the largest |ρ_K| it allows: the smallest bound, the strict choice).
  await runStep(page, 15, n);
  {
    const c15 = await certificate(page);
    const sp = { paper: 'perceptron', ...LESSONS.d.steps[14].spec };
    const run = native(sp);
    const it15 = await num(page, '#r-iter');
    assert.equal(it15, run.iterations, 'the page counts what kplay counts');
    assert.equal(run.solution.phases.reduce((acc, ph) => acc + ph.iterations, 0), it15, 'the loops add up');
    assert.ok(c15.normG <= sp.algorithm.epsilon);
    const m15 = await margin(page);
    assert.ok(m15.upper < 0);
    const g = sp.algorithm.gamma, nn = sp.data.set.n;
    for (const ph of run.solution.phases) {
      const bound = 2 * g * Math.sqrt(2 * nn) / Math.max(g * ph.delta, -m15.lower) + 1;
      assert.ok(ph.iterations <= bound, `a call of ${ph.iterations} iterations vs its bound ${bound}`);
    }
  }
  await next(page, 15);
  // 16. Theorem 4's hypothesis for a separator, ε < ρ_K: step 14 runs on step 12's data and kernel, whose
  //     certified ρ_K (lower end) is above the step's ε.
  const s10 = LESSONS.d.steps[12].spec;
  const s12 = LESSONS.d.steps[15].spec;
  assert.deepEqual([s12.data, s12.kernel], [s10.data, s10.kernel]);
  assert.ok(s12.algorithm.epsilon < m10.lower, `ε = ${s12.algorithm.epsilon} vs ρ_K ≥ ${m10.lower}`);
  await runStep(page, 16, n);
  await separator(page);
  await next(page, 16);
  // 17. NKP at margin 0 on 200 points: the page's count is the CLI's (`kplay run`, the same spec),
  //     within 1/ρ_K² at the upper end of the certified ρ_K.
  await runStep(page, 17, n);
  await separator(page);
  const it13 = await num(page, '#r-iter');
  const m13 = await margin(page);
  assert.equal(it13, native({ paper: 'perceptron', ...LESSONS.d.steps[16].spec }).iterations);
  assert.ok(it13 <= 1 / (m13.upper * m13.upper), `${it13} vs 1/ρ² ≥ ${1 / m13.upper ** 2}`);
  assert.ok(await page.locator('#lesson-next').isDisabled());
  // ← goes back a step (keyboard); → runs it (a clicker's forward), and after its explanation
  // goes to the next step.
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.body.dataset.lessonStep === '16');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 120000 });
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.body.dataset.lessonStep === '17');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a lesson link opens the right step with its spec, and Prev/Next keep the URL in step', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}perceptron.html#lesson=d&step=6`);
  await atStep(page, 6);
  assert.equal(await text(page, '#lesson-step-title'), LESSONS.d.steps[5].title);
  assert.equal(await page.locator('#data').inputValue(), 'overlap');
  assert.equal(await page.locator('#maxiter').inputValue(), '3000');
  assert.equal(await page.locator('#lesson-progress').getAttribute('value'), '6');
  await page.click('#lesson-prev');
  await page.waitForFunction(() => location.hash === '#lesson=d&step=5');
  assert.equal(await page.locator('#algo').inputValue(), 'snkp');
  // The front page's lesson link and an old-style index.html lesson link land on the same step.
  const fwd = await openPage(env.b, `${env.url}index.html#lesson=a&step=3`, { speed: 'max' });
  assert.match(fwd.page.url(), /lp\.html\?speed=max#lesson=a&step=3$/);
  await atStep(fwd.page, 3);
  // An unknown lesson or step is ignored (the page's default run), never shown as text.
  const bad = await openPage(env.b, `${env.url}perceptron.html#lesson=<img>&step=99`);
  assert.equal(await bad.page.evaluate(() => document.body.dataset.lesson), undefined);
  assert.ok(await bad.page.locator('#lesson').isHidden());
  const clamp = await openPage(env.b, `${env.url}perceptron.html#lesson=d&step=99`);
  await atStep(clamp.page, LESSONS.d.steps.length);
  assert.deepEqual([...errors, ...fwd.errors, ...bad.errors, ...clamp.errors], []);
  for (const c of [ctx, fwd.ctx, bad.ctx, clamp.ctx]) await c.close();
});

test('lesson C can be walked from the first step to the last, each claim checked', async () => {
  const n = LESSONS.c.steps.length;
  assert.ok(n >= 8 && n <= 13);
  const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html#lesson=c&step=1`);
  const support = async () => (await text(page, '#r-support')).split(' of ').map(Number);
  const sw = [];
  let c3;
  // 1. RLS, fixed point at 1/‖K‖₂: converged, every point a support vector.
  await runStep(page, 1, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  const [k1, n1] = await support();
  assert.equal(k1, n1);
  sw[1] = await num(page, '#r-sweep');
  const f1 = await num(page, '#r-objective');
  // The closed form c = (K + λI)⁻¹y, solved here (Gaussian elimination on our Gram matrix): the page's
  // objective F(c) = ‖Kc − y‖²/(2λ) + cᵀKc/2 is the closed form's, and every cᵢ ≠ 0.
  {
    const sp = { paper: 'dinuzzo', ...LESSONS.c.steps[0].spec };
    const { X, y } = nativeData(sp);
    const K = gaussGram(X, sp.kernel.bandwidth.fixed);
    const nn = y.length;
    const A = K.map((r, i) => [...r.map((v, j) => v + (i === j ? sp.lambda : 0)), y[i]]);
    for (let col = 0; col < nn; col++) {
      let piv = col;
      for (let r = col + 1; r < nn; r++) if (Math.abs(A[r][col]) > Math.abs(A[piv][col])) piv = r;
      [A[col], A[piv]] = [A[piv], A[col]];
      for (let r = col + 1; r < nn; r++) {
        const f = A[r][col] / A[col][col];
        for (let t = col; t <= nn; t++) A[r][t] -= f * A[col][t];
      }
    }
    const cf = new Array(nn).fill(0);
    for (let r = nn - 1; r >= 0; r--) {
      let acc = A[r][nn];
      for (let t = r + 1; t < nn; t++) acc -= A[r][t] * cf[t];
      cf[r] = acc / A[r][r];
    }
    const z = K.map((r) => r.reduce((acc, v, j) => acc + v * cf[j], 0));
    const fClosed = z.reduce((acc, zi, i) => acc + (zi - y[i]) ** 2, 0) / (2 * sp.lambda) + z.reduce((acc, zi, i) => acc + zi * cf[i], 0) / 2;
    assert.ok(Math.abs(f1 - fClosed) <= 1e-6 * fClosed, `F: page ${f1} vs closed form ${fClosed}`);
    assert.ok(cf.every((v) => v !== 0));
  }
  await next(page, 1);
  // 2. α = 1/tr(K): converged, several times more sweeps.
  await runStep(page, 2, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  assert.ok(await num(page, '#r-sweep') > 2 * sw[1]);
  await next(page, 2);
  // 3. α = 0.1 above 2/‖K‖₂: diverges within a few dozen sweeps. Checked against ‖K‖₂ computed here from
  //    the data (kplay gen, our own Gram matrix and Jacobi eigensolver) and against kplay runs: condition
  //    (11) is sufficient, not necessary; for RLS the exact limit is 2/(‖K‖₂ − λ).
  await runStep(page, 3, n);
  assert.equal(await text(page, '#r-status'), 'diverged');
  const [a, lim] = (await text(page, '#r-alpha')).match(/[0-9.e+-]*[0-9]/g).map(Number);
  assert.ok(a > lim, `α ${a} vs 2/‖K‖₂ ${lim}`);
  assert.ok(await num(page, '#r-sweep') < 100);
  {
    const sp = { paper: 'dinuzzo', ...LESSONS.c.steps[2].spec };
    const { X } = nativeData(sp);
    const eig = jacobiEigen(gaussGram(X, sp.kernel.bandwidth.fixed));
    const normK = eig.values[eig.values.length - 1];
    const lam = sp.lambda;
    const alpha = sp.method.step.value;
    const exact = 2 / (normK - lam);
    assert.ok(Math.abs(lim - 2 / normK) <= 1e-3 * lim, `readout 2/‖K‖₂ = ${lim} vs ${2 / normK}`);
    assert.ok(Math.abs(normK - 23.1) < 0.05 && Math.abs(2 / normK - 0.0866) < 5e-5 && Math.abs(exact - 0.0870) < 5e-5,
      `the text's ‖K‖₂ ≈ 23.1, 2/‖K‖₂ ≈ 0.0866, 2/(‖K‖₂ − λ) ≈ 0.0870: ${normK}, ${2 / normK}, ${exact}`);
    assert.ok(alpha > 1.1 * exact && alpha < 1.2 * exact, `α = ${alpha} about 15 % above 2/(‖K‖₂ − λ) = ${exact}`);
    // The step's run: |Δc| grows by (α‖K‖₂ − 1)/(1 + αλ) ≈ 1.3 per sweep at the end.
    const run3 = native(sp);
    assert.equal(run3.status, 'diverged');
    const h = run3.trace.map((t) => t.max_h);
    const ratio = h[h.length - 1] / h[h.length - 2];
    const rho = (alpha * normK - 1) / (1 + alpha * lam);
    assert.ok(Math.abs(ratio - rho) <= 0.01 * rho && Math.abs(rho - 1.3) < 0.05, `growth ${ratio} vs ${rho}`);
    // Between 2/‖K‖₂ and 2/(‖K‖₂ − λ) it converges; 2 % above 2/(‖K‖₂ − λ) it diverges.
    const at = (value) => native({ ...sp, method: { ...sp.method, step: { kind: 'fixed', value } } });
    const mid = at((2 / normK + exact) / 2);
    assert.equal(mid.status, 'converged', `α between the limits: ${mid.status}`);
    assert.equal(at(1.02 * exact).status, 'diverged');
    c3 = { X, eig, normK };
  }
  await next(page, 3);
  // 4. Coordinate descent on RLS: fewer sweeps than step 1, the same objective.
  await runStep(page, 4, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  assert.ok(await num(page, '#r-sweep') < sw[1]);
  assert.ok(Math.abs(await num(page, '#r-objective') - f1) <= 1e-6 * Math.abs(f1));
  await next(page, 4);
  // 5. The linear kernel (Algorithm 2 on a singular K): coordinate descent converges.
  await runStep(page, 5, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  await next(page, 5);
  // 6. Theorem 3's condition 2 on step 5's singular K: the fixed point converges, and at the end |Δc|
  //    shrinks by 1/(1 + αλ) per sweep, α = 1/‖K‖₂ with ‖K‖₂ = σ_max(X)² computed here (power iteration on
  //    XᵀX, 2 × 2, from kplay gen's data), below Theorem 3's μ₂ = (1 + α²λ²)^(−1/2) with α restored.
  await runStep(page, 6, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  {
    const sp = { paper: 'dinuzzo', ...LESSONS.c.steps[5].spec };
    const { X } = nativeData(sp);
    const g = [[0, 0], [0, 0]];
    for (const r of X) for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) g[i][j] += r[i] * r[j];
    const tr = g[0][0] + g[1][1], det = g[0][0] * g[1][1] - g[0][1] * g[1][0];
    const normK = tr / 2 + Math.sqrt(tr * tr / 4 - det);
    const run = native(sp);
    assert.ok(Math.abs(run.solution.alpha * normK - 1) < 1e-9, `α = ${run.solution.alpha} vs 1/‖K‖₂ = ${1 / normK}`);
    const h = run.trace.map((t) => t.max_h);
    const ratio = h[h.length - 1] / h[h.length - 2];
    const want = 1 / (1 + sp.lambda / normK);
    assert.ok(Math.abs(ratio - want) <= 1e-6 * want, `|Δc| factor ${ratio} vs 1/(1 + αλ) = ${want}`);
    assert.ok(ratio < Math.pow(1 + (sp.lambda / normK) ** 2, -0.5) && ratio > Math.pow(1 + sp.lambda ** 2, -0.5));
    assert.equal(await num(page, '#r-sweep'), run.iterations, 'the page counts the sweeps kplay counts');
  }
  await next(page, 6);
  // 7. Hinge, CD: under a third of the points are support vectors.
  await runStep(page, 7, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  const [k5, n5] = await support();
  assert.ok(k5 > 0 && k5 < n5 / 3, `support ${k5} of ${n5}`);
  sw[5] = await num(page, '#r-sweep');
  assert.ok(sw[5] >= 1000 && sw[5] <= 1400, `step 8 quotes "about 1200 sweeps": ${sw[5]}`);
  const gap5 = await num(page, '#r-gap');
  const f5 = await num(page, '#r-objective');
  // The KKT conditions of the hinge loss with f(z) = Σ L/λ (0 ∈ ∂f(Kc) + c), checked on kplay's solution
  // with z = Kc from our own Gram matrix: yᵢcᵢ = 1/λ exactly strictly inside the margin (yᵢzᵢ < 1),
  // 0 ≤ yᵢcᵢ ≤ 1/λ on it, cᵢ = 0 beyond it.
  {
    const sp = { paper: 'dinuzzo', ...LESSONS.c.steps[6].spec };
    const { X, y } = nativeData(sp);
    const K = gaussGram(X, sp.kernel.bandwidth.fixed);
    const run5 = native(sp);
    const cc = run5.solution.c;
    const cap = 1 / sp.lambda;
    const tol = 1e-5;
    let inside = 0, on = 0;
    for (let i = 0; i < cc.length; i++) {
      const yz = y[i] * K[i].reduce((acc, kij, j) => acc + kij * cc[j], 0);
      const yc = y[i] * cc[i];
      if (yz < 1 - tol) {
        inside++;
        assert.ok(Math.abs(yc - cap) <= 1e-12 * cap, `point ${i} inside the margin (yz = ${yz}): yc = ${yc}, 1/λ = ${cap}`);
      } else if (yz > 1 + tol) {
        assert.ok(cc[i] === 0, `point ${i} beyond the margin (yz = ${yz}): c = ${cc[i]}`); // ±0
      } else {
        on++;
        assert.ok(yc >= 0 && yc <= cap * (1 + 1e-12), `point ${i} on the margin: yc = ${yc}`);
      }
    }
    assert.ok(inside > 0, 'some points strictly inside the margin');
    assert.equal(run5.solution.support.length, k5, 'the page and kplay count the same support vectors');
  }
  await next(page, 7);
  // 8. Hinge, fixed point: the sweep cap, gap above δ.
  await runStep(page, 8, n);
  assert.equal(await text(page, '#r-status'), 'max iterations');
  assert.equal(await num(page, '#r-sweep'), 20000);
  assert.ok(await num(page, '#r-gap') > 100 * gap5, 'orders of magnitude above coordinate descent');
  // Theorem 3's factor at α = 1/‖K‖₂ is 1 − k_min/‖K‖₂: K (positive definite: distinct points) has
  // k_min below 1e-10·‖K‖₂, so the linear rate is useless (our eigensolver, step 3's data and kernel).
  {
    const sp6 = LESSONS.c.steps[7].spec;
    assert.deepEqual([sp6.data, sp6.kernel], [LESSONS.c.steps[2].spec.data, LESSONS.c.steps[2].spec.kernel]);
    let minDist = Infinity;
    for (let i = 0; i < c3.X.length; i++) for (let j = 0; j < i; j++) minDist = Math.min(minDist, Math.hypot(c3.X[i][0] - c3.X[j][0], c3.X[i][1] - c3.X[j][1]));
    assert.ok(minDist > 0, 'distinct points: the Gaussian K is positive definite');
    assert.ok(c3.eig.values[0] < 1e-10 * c3.normK, `k_min/‖K‖₂ = ${c3.eig.values[0] / c3.normK}`);
  }
  await next(page, 8);
  // 9. λ = 1: more support vectors than step 6, fewer sweeps.
  await runStep(page, 9, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  const [k7] = await support();
  assert.ok(k7 > k5, `${k7} vs ${k5}`);
  assert.ok(await num(page, '#r-sweep') < sw[5]);
  await next(page, 9);
  // 10. SVR: only a few support vectors.
  await runStep(page, 10, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  const [k8, n8] = await support();
  assert.ok(k8 > 0 && k8 < n8 / 4, `support ${k8} of ${n8}`);
  // The ε-insensitive KKT conditions on kplay's solution, with f(xᵢ) = (Kc)ᵢ from our Gram matrix:
  // cᵢ = 0 strictly inside the tube, cᵢ = sign(yᵢ − fᵢ)/λ strictly outside, |cᵢ| ≤ 1/λ with the residual's
  // sign on its edge; and here every support vector lies on the edge (as the text says).
  {
    const sp = { paper: 'dinuzzo', ...LESSONS.c.steps[9].spec };
    const { X, y } = nativeData(sp);
    const K = gaussGram(X, sp.kernel.bandwidth.fixed);
    const run8 = native(sp);
    const cc = run8.solution.c;
    const cap = 1 / sp.lambda;
    const eps = sp.loss.eps;
    const tol = 1e-5;
    let edge = 0;
    for (let i = 0; i < cc.length; i++) {
      const res = y[i] - K[i].reduce((acc, kij, j) => acc + kij * cc[j], 0);
      if (Math.abs(res) > eps + tol) {
        assert.ok(Math.abs(cc[i] - Math.sign(res) * cap) <= 1e-12 * cap, `point ${i} outside the tube: c = ${cc[i]}`);
      } else if (Math.abs(res) < eps - tol) {
        assert.ok(cc[i] === 0, `point ${i} inside the tube: c = ${cc[i]}`);
      } else {
        assert.ok(cc[i] * res >= 0 && Math.abs(cc[i]) <= cap * (1 + 1e-12), `point ${i} on the edge: c = ${cc[i]}`);
        if (cc[i] !== 0) edge++;
      }
    }
    assert.equal(run8.solution.support.length, k8, 'the page and kplay count the same support vectors');
    assert.equal(edge, k8, 'every support vector on the edge of the tube');
  }
  await next(page, 10);
  // 11. Step 5's SVM with the randomized cyclic rule: converged to step 5's F. Coordinate descent is ascent on
  //    the dual: on kplay's trace F rises in many sweeps while D never falls (up to rounding).
  await runStep(page, 11, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  assert.ok(Math.abs(await num(page, '#r-objective') - f5) <= 1e-6 * Math.abs(f5), 'the same optimum as step 5');
  {
    const run9 = native({ paper: 'dinuzzo', ...LESSONS.c.steps[10].spec });
    const P = run9.trace.map((t) => t.primal);
    const D = run9.trace.map((t) => t.dual);
    const scale = Math.max(...D.map(Math.abs));
    let rises = 0;
    let drop = -Infinity;
    for (let k = 1; k < P.length; k++) {
      if (P[k] - P[k - 1] > 1e-12 * Math.abs(P[k - 1])) rises++;
      drop = Math.max(drop, (D[k - 1] - D[k]) / scale);
    }
    assert.ok(rises > 100, `F rose in ${rises} sweeps`);
    assert.ok(drop <= 1e-12, `the dual's largest fall ${drop}`);
  }
  await next(page, 11);
  // 12. Theorem 5 at α = 1 on the SVM with λ = 1: kplay's c is a stationary point of F₁(c) = f₁(K₁c) + cᵀK₁c/2
  //     (K₁ = K − I from our Gram matrix; the hinge envelope's proximal map written here), and K₁ is indefinite.
  await runStep(page, 12, n);
  assert.equal(await text(page, '#r-status'), 'converged');
  {
    const sp = { paper: 'dinuzzo', ...LESSONS.c.steps[11].spec };
    const { X, y } = nativeData(sp);
    const K = gaussGram(X, sp.kernel.bandwidth.fixed);
    const cc = native(sp).solution.c;
    const lam = sp.lambda;
    const K1c = (v) => K.map((r, i) => r.reduce((acc, kij, j) => acc + kij * v[j], 0) - v[i]);
    const x = K1c(cc);
    const prox = (yi, xi) => (yi * xi >= 1 ? xi : yi * xi + 1 / lam < 1 ? xi + yi / lam : yi);
    const grad = K1c(x.map((xi, i) => xi - prox(y[i], xi) + cc[i]));
    const worst = Math.max(...grad.map(Math.abs)) * lam;
    assert.ok(worst < 1e-6, `∇F₁ at kplay's c: ${worst}`);
    assert.deepEqual([sp.data, sp.kernel], [LESSONS.c.steps[2].spec.data, LESSONS.c.steps[2].spec.kernel]);
    assert.ok(c3.eig.values[0] < 1 && c3.normK > 1, 'K − I is indefinite (step 3\'s eigenvalues)');
  }
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('lesson B can be walked from the first step to the last, each claim checked', async () => {
  const n = LESSONS.b.steps.length;
  assert.ok(n >= 8 && n <= 14);
  const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html#lesson=b&step=1`);
  const rel = (a, b) => Math.abs(a - b) / Math.abs(b);
  const lambda = 1e-3;
  // 1. m = 2: C₀ = 1, λ₂ = λ.
  await runStep(page, 1, n);
  assert.equal(await page.locator('#m').inputValue(), '2');
  assert.ok(rel(await num(page, '#r-c0'), 1) < 1e-9);
  assert.ok(rel(await num(page, '#r-lambda2'), lambda) < 1e-6);
  const norm1 = await num(page, '#r-norm');
  await next(page, 1);
  // 2. m = 1.5: C₀ < 1 and C₀ = ‖f‖^(m−2).
  await runStep(page, 2, n);
  const c0 = await num(page, '#r-c0');
  const norm2 = await num(page, '#r-norm');
  const l2 = await num(page, '#r-lambda2');
  assert.ok(c0 < 1);
  assert.ok(rel(c0, norm2 ** -0.5) < 1e-6, `C₀ ${c0} vs ‖f‖^-0.5 ${norm2 ** -0.5}`);
  const iters = await num(page, '#r-iters');
  assert.ok(iters >= 1 && iters <= 60, `a few dozen root-solve iterations: ${iters}`);
  await next(page, 2);
  // 3. m = 3: C₀ = ‖f‖ > 1, λ₂ > λ.
  await runStep(page, 3, n);
  const c3 = await num(page, '#r-c0');
  assert.ok(c3 > 1 && rel(c3, await num(page, '#r-norm')) < 1e-6);
  assert.ok(await num(page, '#r-lambda2') > lambda);
  // Theorem 1's F(C) computed here from the data (kplay gen; our Gram matrix with the paper's heuristic
  // μ and our Jacobi eigensolver): its root is the page's C₀ at m = 1.5 and m = 3; F is strictly concave
  // at m = 1.5 and strictly convex and decreasing at m = 3 (not concave: the Appendix C erratum).
  {
    const sp = { paper: 'mrlsr', ...LESSONS.b.steps[2].spec };
    const { X, y } = nativeData(sp);
    const nn = X.length;
    let mu = 0;
    for (const a of X) for (const b of X) mu += a.reduce((acc, ai, t) => acc + (ai - b[t]) ** 2, 0);
    mu /= nn * nn;
    const eigB = jacobiEigen(gaussGram(X, mu));
    const Q = eigB.vectors;
    // Eigenvalues at rounding level (≤ n·ε·max) are zero: K is numerically singular (the page says so).
    const dmax = eigB.values[nn - 1];
    const dd = eigB.values.map((v) => (v > nn * Number.EPSILON * dmax ? v : 0));
    const yp = Q.map((v) => v.reduce((acc, vi, i) => acc + vi * y[i], 0));
    const F = (m, C) => dd.reduce((acc, di, i) => (di > 0 ? acc + (4 * di * yp[i] ** 2) / (2 * di + lambda * m * nn * C) ** 2 : acc), 0) ** (m / 2 - 1) - C;
    const root = (m) => {
      let lo = 0, hi = 1;
      while (F(m, hi) > 0) hi *= 2;
      for (let k = 0; k < 200; k++) { const mid = (lo + hi) / 2; if (F(m, mid) > 0) lo = mid; else hi = mid; }
      return (lo + hi) / 2;
    };
    assert.ok(F(1.5, 0) > 0 && F(3, 0) > 0, 'F(0) > 0');
    assert.ok(rel(c0, root(1.5)) < 1e-6, `m = 1.5: page C₀ ${c0} vs root ${root(1.5)}`);
    assert.ok(rel(c3, root(3)) < 1e-6, `m = 3: page C₀ ${c3} vs root ${root(3)}`);
    const shape = (m, C0) => {
      const h = (2 * C0) / 200;
      const f = Array.from({ length: 201 }, (_, k) => F(m, k * h));
      const d1 = f.slice(1).map((v, k) => v - f[k]);
      const d2 = d1.slice(1).map((v, k) => v - d1[k]);
      const scale = Math.max(...f.map(Math.abs));
      return { decreasing: d1.every((v) => v < 0), convex: d2.every((v) => v > 1e-12 * scale), concave: d2.every((v) => v < -1e-12 * scale) };
    };
    const s15 = shape(1.5, root(1.5));
    const s3 = shape(3, root(3));
    assert.ok(s15.concave, 'm = 1.5: F strictly concave');
    assert.ok(s3.convex && s3.decreasing && !s3.concave, 'm = 3: F strictly convex and decreasing');
    // Step 1: at m = 2, α = (K + nλI)⁻¹y, so ‖f‖²_H = Σ dᵢy′ᵢ²/(dᵢ + nλ)².
    const normKrr = Math.sqrt(dd.reduce((acc, di, i) => acc + (di * yp[i] ** 2) / (di + nn * lambda) ** 2, 0));
    assert.ok(rel(norm1, normKrr) < 1e-6, `m = 2: ‖f‖ ${norm1} vs (K + nλI)⁻¹y's ${normKrr}`);
  }
  await next(page, 3);
  // 4. λ = 1e-6: ‖f‖ more than ten times step 2's.
  await runStep(page, 4, n);
  assert.ok(await num(page, '#r-norm') > 10 * norm2);
  assert.ok(await num(page, '#r-lambda2') < l2, 'λ₂ shrinks too');
  await next(page, 4);
  // 5. m = 1: outside Theorem 1, one positive root.
  await runStep(page, 5, n);
  assert.equal(await page.evaluate(() => document.body.dataset.kind), 'outside');
  assert.match(await text(page, '#outside'), /one positive root/);
  await next(page, 5);
  // 6. m = 0.5: two positive roots, a local minimum and a saddle.
  await runStep(page, 6, n);
  assert.equal(await page.evaluate(() => document.body.dataset.kind), 'outside');
  const out = await text(page, '#outside');
  assert.match(out, /F has 2 positive root/);
  assert.match(out, /local minimum/);
  assert.match(out, /saddle/);
  await next(page, 6);
  // 7. The kernel ridge twin (fixed μ = 0.1): λ₂ = (m/2) C₀ λ, below λ.
  await runStep(page, 7, n);
  const l2z = await num(page, '#r-lambda2');
  assert.ok(rel(l2z, 0.75 * (await num(page, '#r-c0')) * lambda) < 1e-6);
  assert.ok(l2z < lambda);
  await next(page, 7);
  // 8. Equivalence: zero difference on Z₁, positive on Z₂..Z₄.
  await runStep(page, 8, n);
  const diffs = await page.evaluate(() => [...document.querySelectorAll('#eq-table tbody tr')].map((r) => Number(r.dataset.diff)));
  assert.equal(diffs.length, 4);
  assert.ok(diffs[0] <= 1e-10, `Z1 ${diffs[0]}`);
  for (const d of diffs.slice(1)) assert.ok(d > 1e-4, `Z2..Z4 ${diffs}`);
  await next(page, 8);
  // A step's load clears the equivalence run: back on step 8, its question shows no earlier table.
  assert.deepEqual(await page.evaluate(() => [document.getElementById('eq-table').hidden, document.getElementById('eq-summary').textContent]), [true, '']);
  // 9. Step 7's sample without one point (data.drop in the step), same (m, λ): λ₂ moves by more
  // than 1 %, to the value kplay lesson check computes by removing that point (tests/lessons.rs);
  // the caption names the point left out (the fit plot rings it).
  await runStep(page, 9, n);
  assert.equal(await page.locator('#data-kind').inputValue(), 'sine');
  assert.equal(await text(page, '#r-nd'), '99 × 1');
  assert.match(await text(page, '#fit-caption'), /Black ring: point 16 of the generated sample/);
  const l2i = await num(page, '#r-lambda2');
  assert.ok(Math.abs(l2i - l2z) / l2z > 0.01, `λ₂ ${l2i} vs step 7's ${l2z}`);
  await next(page, 9);
  // 10. §4's Example: kernel ridge (m = 2) on step 7's sample, λ₂ = λ.
  await runStep(page, 10, n);
  assert.equal(await text(page, '#r-nd'), '100 × 1');
  assert.equal(await page.locator('#m').inputValue(), '2');
  assert.ok(rel(await num(page, '#r-lambda2'), lambda) < 1e-6);
  await next(page, 10);
  // 11. The λ₂ move against n: step 7's fit again (m = 1.5), the same λ₂.
  await runStep(page, 11, n);
  assert.equal(await text(page, '#r-nd'), '100 × 1');
  assert.ok(rel(await num(page, '#r-lambda2'), l2z) < 1e-9, 'step 7\'s λ₂');
  await next(page, 11);
  // 12. m = 3 on step 7's sample: λ₂ = (3/2) C₀ λ.
  await runStep(page, 12, n);
  assert.equal(await text(page, '#r-nd'), '100 × 1');
  assert.ok(rel(await num(page, '#r-lambda2'), 1.5 * (await num(page, '#r-c0')) * lambda) < 1e-6);
  assert.deepEqual(errors, []);
  await ctx.close();
});

// A lecturer's own lesson (docs/lessons.md): opened from a link that carries it and from a file;
// markup in its text renders as text (no element from the file), an invalid lesson gives a
// message naming the field and the page keeps working.
const XSS_LOOK = 'Look: <script>window.__xss=1</script> and <img src=x id=xss onerror="window.__xss=1"> stay text; $x_i^2$ and **bold**.';
function ownLesson() {
  const L = structuredClone(LESSONS.d);
  L.title = 'My course <img src=x onerror="window.__xss=1">';
  L.steps = L.steps.slice(0, 2);
  L.steps[0].title = '<script>window.__xss=1</script>Step one';
  L.steps[0].look = XSS_LOOK;
  L.steps[0].explain = '<img src=x id=xss2 onerror="window.__xss=1"> fewer than {=few} updates.';
  return L;
}
const b64url = (s) => Buffer.from(s, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

test('a lecturer\'s lesson from a link and from a file: markup renders as text, a bad one names the field', async () => {
  const L = ownLesson();
  const { page, errors, ctx } = await openPage(env.b, `${env.url}perceptron.html#lesson-data=j${b64url(JSON.stringify(L))}&step=1`);
  await page.waitForFunction(() => document.body.dataset.lessonStep === '1');
  assert.equal(await text(page, '#lesson-title'), L.title);
  assert.equal(await text(page, '#lesson-step-title'), L.steps[0].title);
  const look = await text(page, '#lesson-look');
  assert.ok(look.includes('<script>window.__xss=1</script>') && look.includes('<img src=x id=xss onerror='), look);
  assert.equal(await page.locator('#lesson img, #lesson script, #xss, #xss2').count(), 0, 'no element from the file');
  assert.equal(await page.locator('#lesson-look math msubsup').count(), 1, 'math is MathML elements');
  assert.equal(await page.locator('#lesson-look b').count(), 1);
  await runStep(page, 1, 2);
  assert.match(await text(page, '#lesson-explain'), /fewer than 20 updates/);
  assert.equal(await page.locator('#lesson-explain img').count(), 0);
  // The claim's number comes from the claim: the page's run shows it (iterations < the bound).
  assert.ok(await num(page, '#r-iter') < L.steps[0].claims.find((c) => c.id === 'few').rhs.value);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  // The hash keeps carrying the lesson (a lecturer can send the link), compressed.
  await next(page, 1);
  assert.match(await page.evaluate(() => location.hash), /^#lesson-data=[jz][A-Za-z0-9_-]+&step=2$/);

  // From a file: an invalid one (a bad relation) is refused with the field named; the page works.
  const bad = structuredClone(L);
  bad.steps[1].claims[0].rel = '≈';
  await page.setInputFiles('#lesson-file', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
  await page.waitForFunction(() => document.body.dataset.lessonError === '1');
  assert.match(await text(page, '#lesson-error'), /steps\[1\]\.claims\[0\]\.rel/);
  assert.equal(await page.evaluate(() => document.body.dataset.lessonStep), '2', 'the lesson playing stays');
  // A valid file opens at its step 1 (and says nothing is wrong).
  const good = structuredClone(L);
  good.title = 'Second <b>file</b>';
  await page.setInputFiles('#lesson-file', { name: 'good.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(good)) });
  await page.waitForFunction(() => document.body.dataset.lessonError === '0' && document.body.dataset.lessonStep === '1');
  assert.equal(await text(page, '#lesson-title'), good.title);
  assert.equal(await page.locator('#lesson-title b').count(), 0, 'the title is text');
  // A malformed link: message naming the field, the page still runs its own spec.
  const broken = structuredClone(L);
  broken.steps[0].spec.max_iter = -3;
  const p2 = await openPage(env.b, `${env.url}perceptron.html#lesson-data=j${b64url(JSON.stringify(broken))}&step=1`);
  await p2.page.waitForFunction(() => document.body.dataset.lessonError === '1');
  assert.match(await text(p2.page, '#lesson-error'), /steps\[0\]\.spec/);
  assert.ok(await p2.page.locator('#lesson').isHidden());
  await p2.page.click('#step');
  await p2.page.waitForFunction(() => Number(document.getElementById('r-iter').textContent) >= 1);
  assert.deepEqual(p2.errors, []);
  await p2.ctx.close();
  assert.deepEqual(errors, []);
  await ctx.close();
});
