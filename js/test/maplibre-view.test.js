// @ts-check
// The MapLibre layer's level of detail: the reference's rule floor(log2(1 / p) + lodBias), within
// the pyramid, p being a level-0 texel's size in CSS pixels at the map's zoom.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChronozarrLayer } from '../maplibre/layer.js';
import { levelForTexel, mapView } from '../maplibre/view.js';

/** A map at `zoom` over a 400 x 300 canvas whose positions are level-0 pixels. @param {number} zoom */
const fakeMap = (zoom) => ({
  unproject: (/** @type {[number, number]} */ [x, y]) => ({ lng: x, lat: y }),
  getCanvas: () => /** @type {HTMLCanvasElement} */ ({ clientWidth: 400, clientHeight: 300 }),
  getZoom: () => zoom,
});
const place = { toPixel: (/** @type {number} */ lon, /** @type {number} */ lat) => ({ x: lon, y: lat }), texelSize: () => TEXEL0 };
// A level-0 texel is 2^(zoom - 10) CSS pixels wide at map zoom `zoom`.
const TEXEL0 = 1 / (512 * 2 ** 10);

test('the default bias 0.5 takes the level whose texels are nearest a CSS pixel, halfway going coarser', () => {
  assert.equal(mapView(fakeMap(8), place, 6, TEXEL0, 0.5).lod, 2); // p = 1/4: level 2 texels are 1 px
  assert.equal(mapView(fakeMap(8.4), place, 6, TEXEL0, 0.5).lod, 2); // log2(1/p) = 1.6
  assert.equal(mapView(fakeMap(8.5), place, 6, TEXEL0, 0.5).lod, 2); // 1.5 + 0.5 = 2 exactly
  assert.equal(mapView(fakeMap(8.6), place, 6, TEXEL0, 0.5).lod, 1);
  // What the coarse picture's level follows: the texel's CSS size, not the box camera's zoom of 1.
  assert.ok(Math.abs(mapView(fakeMap(8), place, 6, TEXEL0, 0.5).texelPx - 1 / 4) < 1e-9);
});

test('bias 0 is the spec reader rule, negative biases pick finer levels, and the level stays in the pyramid', () => {
  assert.equal(levelForTexel(2 ** -1.5, 6, 0), 1);
  assert.equal(levelForTexel(2 ** -1.5, 6, -1), 0);
  assert.equal(levelForTexel(2 ** -3, 6, 1), 4);
  assert.equal(levelForTexel(2 ** -9, 6, 0.5), 5);
  assert.equal(levelForTexel(32, 6, 0.5), 0);
});

test('a lodBias or stretchLo that is not a usable number is refused by the layer', () => {
  assert.throws(() => new ChronozarrLayer({ url: 'http://127.0.0.1:9/none', lodBias: NaN }), RangeError);
  assert.throws(() => new ChronozarrLayer({ url: 'http://127.0.0.1:9/none', stretchLo: 0.5 }), RangeError);
});
