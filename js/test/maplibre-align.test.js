// @ts-check
// maplibre/verify/align.js on synthetic canvases whose boundaries are where this test puts them:
// the offsets it measures, a boundary it cannot find, and a colour change no boundary explains.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { holes, measure, offsetOf, strays } from '../maplibre/verify/align.js';

const W = 200;
const H = 120;
/** Two colours either side of the edge between pixel columns 99 and 100 (x = 100). @param {number} x */
const split = (x) => (x < 100 ? 1 : 2);

test('a boundary drawn at x = 100 measures as 100 minus the true line, along a row', () => {
  for (const line of [100.3, 99.6, 100.49, 100.7]) {
    const A = { x: line, y: 50 };
    const B = { x: line, y: 56 };
    const centres = [{ x: line - 3, y: 53 }, { x: line + 3, y: 53 }];
    const r = offsetOf(A, B, centres, (x) => split(x), W, H, 4);
    assert.equal(typeof r, 'number');
    assert.ok(Math.abs(/** @type {number} */ (r) - (100 - line)) < 1e-12, `line ${line}: ${r}`);
  }
});

test('a slanted boundary is scanned along a column, for the change from the colour above to the one below', () => {
  // The true edge runs from (40, 60.2) to (46, 60.8): at the column centre x = 43.5 it is at 60.55.
  const key = (/** @type {number} */ _x, /** @type {number} */ y) => (y < 61 ? 5 : 7);
  const r = offsetOf({ x: 40, y: 60.2 }, { x: 46, y: 60.8 }, [{ x: 43, y: 57.5 }, { x: 43, y: 63.5 }], key, W, H, 4);
  assert.ok(Math.abs(/** @type {number} */ (r) - (61 - 60.55)) < 1e-12, String(r));
  // A band of a third colour where the boundary should be: the two texels never meet.
  const banded = (/** @type {number} */ _x, /** @type {number} */ y) => (y < 60 ? 5 : y < 62 ? 9 : 7);
  assert.equal(offsetOf({ x: 40, y: 60.2 }, { x: 46, y: 60.8 }, [{ x: 43, y: 63.5 }, { x: 43, y: 57.5 }], banded, W, H, 4), 'missing');
});

test('no change, equal colours either side, short or narrow boundaries: missing or skipped', () => {
  const A = { x: 100.2, y: 50 };
  const B = { x: 100.2, y: 56 };
  assert.equal(offsetOf(A, B, [{ x: 97, y: 53 }, { x: 103, y: 53 }], () => 1, W, H, 4), 'missing');
  assert.equal(offsetOf(A, { x: 100.2, y: 53 }, [], split, W, H, 4), null);
  assert.equal(offsetOf(A, B, [{ x: 99.5, y: 53 }, { x: 103, y: 53 }], split, W, H, 4), null);
});

test('measure reports the largest offset and counts what it could not find', () => {
  // Lon/lat stand for screen positions here: the projection is the identity.
  const project = (/** @type {[number, number]} */ [x, y]) => ({ x, y });
  /** @param {number} line @returns {import('../maplibre/verify/align.js').Edge} */
  const edge = (line) => ({ a: [line, 50], b: [line, 56], left: [line - 3, 53], right: [line + 3, 53] });
  const m = measure([edge(100.3), edge(99.8), edge(150)], project, split, { width: W, height: H });
  assert.equal(m.checked, 2);
  assert.equal(m.missing, 1);
  assert.ok(Math.abs(m.maxError - 0.3) < 1e-12 && Math.abs(m.meanError - (-0.3 + 0.2) / 2) < 1e-12, JSON.stringify(m));
});

test('strays: a colour change away from every boundary is reported, one beside a boundary is not', () => {
  const project = (/** @type {[number, number]} */ [x, y]) => ({ x, y });
  const box = /** @type {[number, number][]} */ ([[10, 10], [190, 10], [190, 110], [10, 110]]);
  const edges = [{ a: /** @type {[number, number]} */ ([100.2, 0]), b: /** @type {[number, number]} */ ([100.2, H]) }];
  const key = (/** @type {number} */ x) => (x < 100 ? 1 : x < 150 ? 2 : 3);
  const r = strays(edges, box, project, key, () => 1, { width: W, height: H });
  // The change between columns 149 and 150, on the rows inside the box (2 px in from its sides).
  assert.deepEqual(r.at.map(([x, , axis]) => `${x}${axis}`), Array(20).fill('149x'));
  assert.equal(strays(edges, box, project, split, () => 1, { width: W, height: H }).at.length, 0);
});

test('holes: an undrawn pixel among drawn ones', () => {
  const covered = (/** @type {number} */ x, /** @type {number} */ y) => (x === 7 && y === 5 ? 0 : x < 20 ? 1 : 0);
  assert.deepEqual(holes(covered, 30, 10), [[7, 5]]);
});
