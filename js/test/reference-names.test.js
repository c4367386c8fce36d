// @ts-check
// The names a switcher's code touches: every property and call the reference documents for its JS
// store (store.bands is the list of band names, store.attrs.bands the band objects) and for its
// MapLibre layer, checked on a store the Python writer made. The embed messages have their own
// end-to-end suite (e2e/viewer-embed.test.mjs).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import * as api from '../src/index.js';
import { ChronozarrLayer } from '../maplibre/layer.js';
import { fixtures } from './helpers.js';

const fx = fixtures();

test('the package exports the reference\'s names', () => {
  for (const name of ['openStore', 'ChronoStore', 'applyDelta', 'chunkKey', 'scrubCost', 'windowOrder', 'samplePixelFrom', 'FetchError']) {
    assert.equal(typeof /** @type {Record<string, unknown>} */ (api)[name], 'function', name);
  }
});

test('store.bands lists the band names and store.attrs.bands the band objects, as the reference reader', async () => {
  const name = Object.keys(fx.index).find((n) => !n.startsWith('v01') && fx.index[n].bands.length > 1);
  assert.ok(name, 'a v0.2 fixture with several bands');
  const info = fx.index[name];
  const store = await api.openStore(join(fx.stores, name));
  try {
    assert.deepEqual([...store.bands], info.bands.map((b) => b.name));
    assert.ok(store.bands.every((b) => typeof b === 'string'));
    assert.deepEqual(store.attrs.bands.map((b) => [b.name, b.scale, b.offset]), info.bands.map((b) => [b.name, b.scale, b.offset]));
    assert.deepEqual([...store.bandNames], [...store.bands], 'the former name stays');
    for (const key of ['times', 'dtype', 'crs', 'levels', 'attrs']) assert.ok(key in store, key);
    for (const key of ['gridRows', 'gridCols', 'width', 'height', 'resolution', 'transform']) assert.ok(key in store.levels[0], `levels[0].${key}`);
    for (const call of ['getCell', 'prefetch', 'stats', 'close']) assert.equal(typeof /** @type {any} */ (store)[call], 'function', call);
    const cell = await store.getCell(0, 0, 0, 0);
    for (const key of ['data', 'chunkWidth', 'chunkHeight']) assert.ok(key in cell, `cell.${key}`);
    const stats = store.stats();
    for (const key of ['requests', 'bytes', 'cacheHits']) assert.equal(typeof /** @type {any} */ (stats)[key], 'number', `stats().${key}`);
  } finally {
    store.close();
  }
});

test('the MapLibre layer has the reference\'s calls and state', () => {
  const proto = ChronozarrLayer.prototype;
  for (const call of ['setTime', 'setProduct', 'setOpacity', 'getValueAt', 'on', 'off', 'remove']) assert.equal(typeof /** @type {any} */ (proto)[call], 'function', call);
  for (const key of ['store', 'times', 'bandNames', 'products', 't', 'product', 'opacity', 'lod', 'stats']) {
    assert.ok(Object.getOwnPropertyDescriptor(proto, key)?.get, `layer.${key}`);
  }
  // opened and bounds are fields set by the constructor; an unreachable store is enough to see them
  const layer = new ChronozarrLayer({ url: 'http://127.0.0.1:9/none', storeOptions: { retryDelaysMs: [] } });
  assert.ok(layer.opened instanceof Promise);
  assert.equal(layer.bounds, null);
  layer.remove();
});
