// @ts-check
// The viewer page preloads every module main.js imports, directly or not, and the zstd codec of
// its import map with what that imports: a module missing from the list would load one import
// level late, a module listed but unused would load for nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importGraph } from './import-graph.js';

const viewer = join(dirname(fileURLToPath(import.meta.url)), '..', 'viewer');

test('viewer/index.html preloads exactly the modules main.js imports and the zstd codec', () => {
  const html = readFileSync(join(viewer, 'index.html'), 'utf8');
  const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(map, 'the page has an import map');
  const imports = JSON.parse(map[1]).imports;
  const wanted = new Set([...importGraph(join(viewer, 'main.js')), ...importGraph(join(viewer, imports['numcodecs/zstd']))]);
  wanted.delete(join(viewer, 'main.js')); // the page's own script
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => join(viewer, m[1]));
  const rel = (/** @type {Iterable<string>} */ files) => [...files].map((f) => relative(viewer, f)).sort();
  assert.equal(new Set(preloaded).size, preloaded.length, 'no module listed twice');
  assert.deepEqual(rel(preloaded), rel(wanted));
});
