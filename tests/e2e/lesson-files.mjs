// The built-in lessons (www/lessons/*.json, docs/lessons.md) for the e2e tests: the same files
// the pages fetch and `kplay lesson check` checks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WWW } from './harness.mjs';

export const LESSONS = Object.fromEntries(['a', 'b', 'c', 'd'].map((id) => [id, JSON.parse(readFileSync(path.join(WWW, 'lessons', `${id}.json`), 'utf8'))]));
