// The page's number format (www/common.js `num`) is the plots' (src/plots/text.rs `num`): both are
// held to the same cases, tests/num-cases.json (the Rust side in plots::text's unit tests). No browser.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './harness.mjs';
import { num } from '../../www/common.js';

test('the page formats numbers as the plots do (tests/num-cases.json)', () => {
  const { cases } = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'num-cases.json'), 'utf8'));
  assert.ok(cases.length >= 20);
  for (const [v, want] of cases) assert.equal(num(v), want, `num(${v})`);
  assert.equal(num(NaN), 'NaN');
  assert.equal(num(-Infinity), '−∞');
});
