// The viewer page preloads every module main.js imports, directly or not, and the zstd codec of
// its import map with what that imports: a module missing from the list would load one import
// level late, a module listed but unused would load for nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const viewer = join(dirname(fileURLToPath(import.meta.url)), '..', 'viewer');

/** Relative static imports of a module (`import ... from './x.js'`, `export ... from './x.js'`). */
function staticImports(file) {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+["'](\.[^"']+)["']/gms)].map((m) => join(dirname(file), m[1]));
}

/** A module and everything it imports statically, directly or not. */
function graph(entry) {
  const found = new Set([entry]);
  const todo = [entry];
  while (todo.length) {
    for (const dep of staticImports(todo.pop())) {
      if (!found.has(dep)) {
        found.add(dep);
        todo.push(dep);
      }
    }
  }
  return found;
}

test('viewer/index.html preloads exactly the modules main.js imports and the zstd codec', () => {
  const html = readFileSync(join(viewer, 'index.html'), 'utf8');
  const imports = JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)[1]).imports;
  const wanted = new Set([...graph(join(viewer, 'main.js')), ...graph(join(viewer, imports['numcodecs/zstd']))]);
  wanted.delete(join(viewer, 'main.js')); // the page's own script
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => join(viewer, m[1]));
  const rel = (files) => [...files].map((f) => relative(viewer, f)).sort();
  assert.equal(new Set(preloaded).size, preloaded.length, 'no module listed twice');
  assert.deepEqual(rel(preloaded), rel(wanted));
});
