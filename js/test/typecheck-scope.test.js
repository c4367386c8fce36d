// @ts-check
// tsconfig.tests.json checks test/, e2e/, bench/ and tools/ strictly, file by file: each file opts in with
// `// @ts-check` (checkJs stays off there, so the shipped modules the tests import are judged by
// tsconfig.json alone). A new file without the line would go unchecked; this test says so.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Written by the benchmarks (stores, bundles) or by e2e runs (`.tmp-*`): not source. */
const SKIP = new Set(['node_modules', join('bench', 'work')]);

/** Every .js and .mjs file under `dir`, relative to js/. @param {string} dir @returns {string[]} */
function scripts(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.name.startsWith('.') || SKIP.has(path)) return [];
    if (entry.isDirectory()) return scripts(path);
    return /\.m?js$/.test(entry.name) ? [path] : [];
  });
}

test('every test, e2e and bench script opts into the strict type check of tsconfig.tests.json', () => {
  const files = ['test', 'e2e', 'bench', 'tools'].flatMap(scripts);
  assert.ok(files.length >= 40, `found ${files.length} scripts`);
  const unchecked = files.filter((f) => readFileSync(join(root, f), 'utf8').split('\n', 1)[0].trim() !== '// @ts-check');
  assert.deepEqual(unchecked, []);
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.tests.json'), 'utf8'));
  assert.equal(config.compilerOptions.strict, true);
  assert.equal(config.compilerOptions.checkJs, false);
});
