// @ts-check
// lib/products.js: which products a band set allows and which bands feed them, read from the band
// tables of real sensors (Sentinel-2 L2A by common_name, Landsat 8-9 by common_name, bare RGB
// names, a single band), and the normalised difference against numpy (test/viewer_expected.py).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultProduct, displayMode, findBand, isReflectance, lookFor, normalizedDifference, productBands, productList } from '../lib/products.js';
import { toneValue } from '../lib/ramps.js';
import { viewerExpected } from './helpers.js';

const S2 = [
  { name: 'B02', common_name: 'blue', scale: 1e-4, offset: 0 },
  { name: 'B03', common_name: 'green', scale: 1e-4, offset: 0 },
  { name: 'B04', common_name: 'red', scale: 1e-4, offset: 0 },
  { name: 'B08', common_name: 'nir', scale: 1e-4, offset: 0 },
];
// Landsat Collection 2 surface reflectance: SR_B2..B5 with their scale and offset.
const LANDSAT = ['blue', 'green', 'red', 'nir08'].map((c, i) => ({ name: `SR_B${i + 2}`, common_name: c === 'nir08' ? 'nir' : c, scale: 2.75e-5, offset: -0.2, units: 'reflectance' }));
const RGB = ['red', 'green', 'blue'].map((name) => ({ name, scale: 1, offset: 0 }));
const DEM = [{ name: 'elevation', scale: 0.1, offset: -500, units: 'm' }];

const available = (/** @type {import('../lib/products.js').Band[]} */ bands) => productList(bands).filter((p) => p.available).map((p) => p.id);

test('a store with blue, green, red and nir allows every product; RGB only the colour and single-band ones', () => {
  assert.deepEqual(available(S2), ['true_color', 'false_color', 'ndvi', 'ndwi', 'water', 'band']);
  assert.deepEqual(available(LANDSAT), ['true_color', 'false_color', 'ndvi', 'ndwi', 'water', 'band']);
  assert.deepEqual(available(RGB), ['true_color', 'band']);
  assert.deepEqual(available(DEM), ['band']);
  assert.equal(defaultProduct(S2), 'true_color');
  assert.equal(defaultProduct(DEM), 'band');
});

test('bands are found by common_name, else by name, and fed in the product\'s order', () => {
  assert.equal(findBand(S2, 'NIR'), 3);
  assert.equal(findBand(RGB, 'blue'), 2);
  assert.equal(findBand(DEM, 'red'), -1);
  assert.deepEqual(productBands('true_color', S2, 0), [2, 1, 0]);
  assert.deepEqual(productBands('false_color', S2, 0), [3, 2, 1]);
  assert.deepEqual(productBands('ndvi', LANDSAT, 0), [3, 2, -1]);
  assert.deepEqual(productBands('ndwi', S2, 0), [1, 3, -1]);
  assert.deepEqual(productBands('band', DEM, 0), [0, -1, -1]);
});

test('reflectance is tone mapped, 8-bit RGB shown as stored, indices use ramps, the rest is stretched', () => {
  assert.ok(isReflectance(S2[0]) && isReflectance(LANDSAT[0]) && !isReflectance(DEM[0]) && !isReflectance(RGB[0]));
  assert.equal(displayMode('true_color', S2, [2, 1, 0], 'uint16'), 'reflectance');
  assert.equal(displayMode('band', S2, [3, -1, -1], 'uint16'), 'linear');
  assert.equal(displayMode('true_color', RGB, [0, 1, 2], 'uint8'), 'stored8');
  assert.equal(displayMode('true_color', RGB, [0, 1, 2], 'uint16'), 'linear');
  assert.equal(displayMode('ndvi', S2, [3, 2, -1], 'uint16'), 'index');
  assert.equal(displayMode('band', DEM, [0, -1, -1], 'int16'), 'linear');
});

test('a look carries the bands\' scale and offset, and a fixed range makes any product but an index linear', () => {
  const store = { attrs: { bands: LANDSAT }, dtype: 'uint16', nodata: 0, hasMask: false };
  const look = lookFor(store, { product: 'false_color', band: 0, range: [0, 0.3], auto: null });
  assert.equal(look.mode, 'linear');
  assert.deepEqual(look.bands, [3, 2, 1]);
  assert.deepEqual(look.scale, [2.75e-5, 2.75e-5, 2.75e-5]);
  assert.deepEqual(look.offset, [-0.2, -0.2, -0.2]);
  assert.deepEqual(look.range, [0, 0.3]);
  assert.equal(look.nodata, 0);
  assert.equal(lookFor(store, { product: 'ndvi', band: 0, range: [0, 0.3], auto: null }).mode, 'index');
  const auto = lookFor({ ...store, attrs: { bands: DEM }, dtype: 'int16' }, { product: 'band', band: 0, range: null, auto: [10, 20] });
  assert.deepEqual([auto.mode, auto.range, auto.scale, auto.offset], ['linear', [10, 20], [0.1, 1, 1], [-500, 0, 0]]);
});

test('normalizedDifference is numpy\'s clipped (a - b) / (a + b), 0 where the sum is 0', () => {
  const { differences } = viewerExpected();
  assert.ok(differences.length > 100);
  for (const { a, b, nd } of differences) assert.equal(normalizedDifference(a, b), nd, `${a}, ${b}`);
});

test('stretchLo is the black point of the reflectance tone map: black at it, white at 0.3, square root between', () => {
  const store = { attrs: { bands: S2 }, dtype: 'uint16', nodata: 0, hasMask: false };
  assert.deepEqual(lookFor(store, { product: 'true_color', band: 0, range: null, auto: null, stretchLo: 0.02 }).range, [0.02, 0.3]);
  assert.deepEqual(lookFor(store, { product: 'true_color', band: 0, range: null, auto: [0.1, 0.2] }).range, [0, 0.3]);
  assert.equal(toneValue(0.02, 0.02), 0);
  assert.equal(toneValue(0.01, 0.02), 0);
  assert.equal(toneValue(0.3, 0.02), 1);
  assert.ok(Math.abs(toneValue(0.16, 0.02) - Math.sqrt(0.5)) < 1e-12);
  assert.ok(Math.abs(toneValue(0.075) - 0.5) < 1e-12);
});
