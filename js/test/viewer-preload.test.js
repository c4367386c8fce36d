// @ts-check
// The viewer page loads the app as one bundle and preloads the zstd decoder of its import map with
// what that imports (a module missing from the list would load one import level late, one listed
// but unused would load for nothing), and the bundles in viewer/dist are what the sources build.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildViewer } from '../build.mjs';
import { createTransport, emptyTransportStats } from '../src/reader/transport.js';
import { importGraph } from './import-graph.js';

const viewer = join(dirname(fileURLToPath(import.meta.url)), '..', 'viewer');
const html = readFileSync(join(viewer, 'index.html'), 'utf8');

test('viewer/index.html runs the bundled app and preloads exactly the zstd decoder and its imports', () => {
  const scripts = [...html.matchAll(/<script type="module" src="([^"]+)">/g)].map((m) => m[1]);
  assert.deepEqual(scripts, ['dist/viewer.js']);
  const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(map, 'the page has an import map');
  const imports = JSON.parse(map[1]).imports;
  const wanted = importGraph(join(viewer, imports.zstddec));
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => join(viewer, m[1]));
  const rel = (/** @type {Iterable<string>} */ files) => [...files].map((f) => relative(viewer, f)).sort();
  assert.equal(new Set(preloaded).size, preloaded.length, 'no module listed twice');
  assert.deepEqual(rel(preloaded), rel(wanted));
});

test('viewer/dist holds what build.mjs makes of the sources now', async () => {
  for (const file of await buildViewer(false)) {
    assert.ok(readFileSync(file.path).equals(Buffer.from(file.contents)), `${relative(viewer, file.path)} is stale: run make js`);
  }
});

test('the page asks for the root zarr.json at the URL the reader requests it by', () => {
  const script = /<script>\s*\/\/ The store's root zarr.json([\s\S]*?)<\/script>/.exec(html);
  assert.ok(script, 'the early request script is in the page');
  /** @type {string[]} */
  const fetched = [];
  const window = /** @type {Record<string, any>} */ ({});
  for (const [page, store, expected] of [
    ['http://h/viewer/?store=../data/s.zarr/', '../data/s.zarr/', 'http://h/data/s.zarr/zarr.json'],
    ['http://h/viewer/index.html?store=https%3A%2F%2Fb.example%2Fs%3Fsig%3D1', 'https://b.example/s?sig=1', 'https://b.example/s/zarr.json?sig=1'],
  ]) {
    // The reader's own spelling of the same URL (app.js opens the store at params.store against the page).
    const limiter = { acquire: async () => () => {} };
    const transport = createTransport({ base: new URL(store, page).href, fetch, retryDelaysMs: [], limiter, maxObjectBytes: 1, stats: emptyTransportStats() });
    assert.equal(transport.url('zarr.json'), expected);
    const location = new URL(page);
    const run = new Function('location', 'window', 'fetch', 'AbortController', `// The store's root zarr.json${script[1]}`);
    run(location, window, (/** @type {string} */ url) => (fetched.push(url), Promise.resolve(null)), AbortController);
    assert.equal(new URLSearchParams(location.search).get('store'), store);
    assert.equal(window.__chronozarrEarly.url, expected);
  }
  assert.equal(fetched.length, 2);
});
