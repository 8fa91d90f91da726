// The hostile links of the fuzz (issue 13 onwards): for each paper page a fixed, seeded set of
// bad `#spec=` hashes — every reproduction of the issues plus seeded mutations of the default
// spec. tests/e2e/hostile.test.mjs loads them (every page stays alive, no markup injected);
// tests/e2e/longtasks-all.mjs measures the longest main-thread task under each (issue 36).

export const XSS = '<img src=x id=xss onerror="window.__xss=1">';
const HUGE = [0, -1, 1e-320, 1e308, -1e308, 1.8e19, 25000, 25000000, 1e7, 100000, 20000, 0.5, 'x', null, XSS];

/** A small seeded PRNG (mulberry32): the same hostile set on every run. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` copies of `base`, each with one or two leaves (numbers or strings) replaced by hostile values. */
function mutations(base, count, seed) {
  const r = rng(seed);
  const leaves = [];
  (function walk(v, path) {
    if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], [...path, k]);
    else leaves.push(path);
  })(base, []);
  const out = [];
  for (let i = 0; i < count; i++) {
    const s = structuredClone(base);
    for (let j = 0; j <= (r() < 0.3 ? 1 : 0); j++) {
      const path = leaves[Math.floor(r() * leaves.length)];
      let o = s;
      for (const k of path.slice(0, -1)) o = o[k];
      o[path.at(-1)] = HUGE[Math.floor(r() * HUGE.length)];
    }
    out.push(JSON.stringify(s));
  }
  return out;
}

const sparse = (n, d, extra = {}) => ({ kind: 'sparse_regression', n, d, k: Math.min(10, d), sigma: 0.05, seed: 1, ...extra });
const specA = (data, solver = {}, model = {}) => JSON.stringify({
  data, model: { problem: 'lp_regression', p: 4 / 3, gamma: 10, ...model }, solver: { algorithm: 'dual_gradient', ...solver },
});
const BASE_A = { data: sparse(100, 1000), model: { problem: 'lp_regression', p: 4 / 3, gamma: 10 }, solver: { algorithm: 'dual_gradient', tol: 1e-10, max_iter: 1000 } };
export const HASHES_A = [
  specA(sparse(25000, 1000), { algorithm: 'dual_newton' }),
  specA(sparse(25000, 1), { algorithm: 'dual_newton' }),
  specA(sparse(1, 25000000)),
  specA(sparse(25000000, 1)),
  specA(sparse(2, 10000000), { algorithm: 'fista' }),
  specA(sparse(100, 100000), { algorithm: 'primal_gd' }),
  specA(sparse(20, 30, { sigma: 1.8e19 })),
  specA(sparse(5, 3), { tol: 1e-320, max_iter: 4000000 }),
  specA(sparse(200, 3000), { algorithm: 'prox_dual' }, { loss: { kind: 'eps_insensitive', eps: 0 } }),
  specA(sparse(2000, 10), { algorithm: 'prox_dual' }, { path: 'tensor' }),
  `${specA(sparse(20, 30))} trailing garbage {{{`,
  specA(sparse(20, 30), { algorithm: XSS }),
  specA({ kind: 'csv', text: `${XSS},y\n1,2\n` }),
  specA({ kind: 'csv', path: '/dev/urandom' }),
  '%E0%A4%A',
  ...mutations(BASE_A, 12, 1),
];

// Kernel sums, products and scalings (issue 20): deep nesting, many leaves, bad scales, and the
// leaves of a composite mutated like every other field.
const COMPOSITE = { kind: 'sum', of: [{ kind: 'gaussian', bandwidth: { fixed: 0.5 } }, { kind: 'scaled', scale: 0.1, of: { kind: 'product', of: [{ kind: 'linear' }, { kind: 'polynomial', degree: 2, offset: 1 }] } }] };
const nested = (depth) => (depth === 0 ? { kind: 'linear' } : { kind: 'scaled', scale: 2, of: nested(depth - 1) });
export const HOSTILE_KERNELS = [
  nested(400),
  { kind: 'sum', of: Array.from({ length: 5000 }, () => ({ kind: 'linear' })) },
  { kind: 'scaled', scale: -1, of: { kind: 'linear' } },
  { kind: 'scaled', scale: 1e308, of: { kind: 'product', of: [{ kind: 'polynomial', degree: 30, offset: 1e10 }, { kind: 'polynomial', degree: 30, offset: 1e10 }] } },
  { kind: 'sum', of: [] },
  { kind: 'product', of: [{ kind: 'sum', of: [{ kind: 'linear', x: 1 }] }] },
];
const pts = (k, v) => Array.from({ length: k }, (_, i) => [v * ((i % 7) - 3) / 3 || 0.5, v * ((i % 5) - 2) / 2 || -0.5, i % 2 ? 1 : -1]);
const BASE_C = {
  data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 200, label_noise: 0.05, seed: 1 },
  loss: { kind: 'hinge' }, lambda: 0.1, kernel: { kind: 'gaussian', bandwidth: { fixed: 0.5 } },
  method: { kind: 'coordinate', rule: 'cyclic', seed: 1, tol: 1e-8, max_sweeps: 20000 }, race: false,
};
const specC = (over) => JSON.stringify({ ...BASE_C, ...over });
export const HASHES_C = [
  specC({ data: { kind: 'points', points: [[1e308, 1e308, 1], [-1, -1, -1], [1, 1, 1]], view: [-2, 2, -2, 2] }, loss: { kind: 'logistic' }, kernel: { kind: 'linear' } }),
  specC({ data: { kind: 'points', points: [[0.5, 0.5, 1], [-0.5, -0.5, -1]], view: [-1e308, 1e308, -2, 2] } }),
  specC({ data: { kind: 'points', points: [], view: [-1e308, 1e308, -2, 2] } }),
  specC({ data: { kind: 'points', points: [[0.5, 0.5, 1], [-0.5, -0.5, -1]], view: [1, 1, 1, 1] } }),
  specC({ data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 25000, label_noise: 0.05, seed: 1 } }),
  specC({ data: { kind: 'points', points: pts(20000, 1), view: [-2, 2, -2, 2] } }),
  specC({ data: { kind: 'classification', shape: { kind: 'blobs', margin: 1e300, spread: 1e300 }, n: 200, label_noise: 0, seed: 1 } }),
  specC({ lambda: 1e-320 }),
  specC({ race: true, data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 2500, label_noise: 0.05, seed: 1 } }),
  ...mutations(BASE_C, 12, 2),
  ...HOSTILE_KERNELS.map((kernel) => specC({ kernel })),
  ...mutations({ ...BASE_C, kernel: COMPOSITE }, 4, 5),
];

const BASE_D = {
  data: { kind: 'generated', set: { shape: { kind: 'blobs', margin: 0.3, spread: 0.5 }, n: 60, label_noise: 0, seed: 1 } },
  kernel: { kind: 'linear' }, algorithm: { kind: 'perceptron' }, max_iter: 100000,
};
const genD = (n) => JSON.stringify({ ...BASE_D, data: { kind: 'generated', set: { ...BASE_D.data.set, n } } });
export const HASHES_D = [
  genD(10000), genD(25000), genD(30000), genD(100000), genD(10000000),
  JSON.stringify({ ...BASE_D, data: { kind: 'points', points: pts(20000, 1) } }),
  JSON.stringify({ ...BASE_D, data: { kind: 'points', points: [[1e308, 1, 1], [-1, -1, -1]] } }),
  JSON.stringify({ ...BASE_D, max_iter: 0 }),
  JSON.stringify({ ...BASE_D, kernel: { kind: 'gaussian', bandwidth: { fixed: 1e-320 } } }),
  ...mutations(BASE_D, 12, 3),
  ...HOSTILE_KERNELS.map((kernel) => JSON.stringify({ ...BASE_D, kernel })),
  ...mutations({ ...BASE_D, kernel: COMPOSITE }, 4, 6),
];

const BASE_B = { data: { kind: 'sine', n: 100, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-3 };
export const HASHES_B = [
  JSON.stringify({ ...BASE_B, data: { kind: 'sine', n: 25000, sigma: 0.2, seed: 1 } }),
  JSON.stringify({ ...BASE_B, data: { kind: 'csv', text: `${Array.from({ length: 20000 }, (_, i) => `c${i}`).join(',')},y\n` } }),
  JSON.stringify({ ...BASE_B, data: { kind: 'csv', text: 'a,a,y\n1,2,3\n' } }),
  JSON.stringify({ ...BASE_B, m: 1e308, lambda: -1 }),
  ...mutations(BASE_B, 8, 4),
  ...HOSTILE_KERNELS.slice(0, 3).map((kernel) => JSON.stringify({ ...BASE_B, kernel })),
  ...mutations({ ...BASE_B, kernel: COMPOSITE }, 3, 7),
];
