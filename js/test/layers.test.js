// @ts-check
// The JS side's layers point one way, as ARCHITECTURE.md draws them: src/reader (the DOM-free
// reader) imports nothing outside src/; lib/ (what the viewer and the MapLibre layer share) builds
// on src/ only; viewer/ and maplibre/ build on lib/ and src/ and not on each other. Read from each
// module's static imports (import-graph.js), so a new module is checked without being listed.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { staticImports } from './import-graph.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What the modules of each top directory may import (their own directory included). */
const ALLOWED = /** @type {const} */ ({ src: ['src'], lib: ['lib', 'src'], viewer: ['viewer', 'lib', 'src'], maplibre: ['maplibre', 'lib', 'src'] });

/** Every .js module under `dir` (relative to js/), the bundles of viewer/dist left out. @param {string} dir @returns {string[]} */
function modules(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('viewer', 'dist') ? [] : modules(path);
    return /\.m?js$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The imports in `deps` (paths relative to js/) that a module at `file` may not make.
 * @param {string} file @param {string[]} deps @returns {string[]}
 */
export function refused(file, deps) {
  const layer = /** @type {keyof typeof ALLOWED} */ (file.split('/')[0]);
  const allowed = /** @type {readonly string[]} */ (ALLOWED[layer]);
  return deps.filter((dep) => !allowed.includes(dep.split('/')[0]));
}

test('every shipped module imports only its own layer and the layers below it', () => {
  const files = Object.keys(ALLOWED).flatMap(modules);
  assert.ok(files.length > 80, `found ${files.length} modules`);
  const broken = files.flatMap((file) => {
    const deps = staticImports(join(root, file)).map((dep) => relative(root, dep));
    return refused(file, deps).map((dep) => `${file} imports ${dep}`);
  });
  assert.deepEqual(broken, []);
});

test('the layer rule refuses an upward or sideways import and allows the ones below', () => {
  assert.deepEqual(refused('src/reader/dataset.js', ['src/reader/limiter.js', 'lib/scene.js']), ['lib/scene.js']);
  assert.deepEqual(refused('lib/scene.js', ['src/reader/limiter.js', 'lib/camera.js', 'viewer/clock.js']), ['viewer/clock.js']);
  assert.deepEqual(refused('maplibre/layer.js', ['viewer/clock.js', 'lib/scene.js', 'src/index.js']), ['viewer/clock.js']);
  assert.deepEqual(refused('viewer/app.js', ['maplibre/layer.js', 'lib/scene.js']), ['maplibre/layer.js']);
});

test('the import reader sees an export-from and a lib module importing the reader', () => {
  const index = staticImports(join(root, 'src', 'index.js')).map((dep) => relative(root, dep));
  assert.ok(index.includes(join('src', 'reader', 'dataset.js')), 'export ... from is an import');
  const loads = staticImports(join(root, 'lib', 'scene-loads.js')).map((dep) => relative(root, dep));
  assert.ok(loads.includes(join('src', 'reader', 'limiter.js')), 'lib builds on the reader');
});
