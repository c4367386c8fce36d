// @ts-check
// What a view loads and in which order (lib/load-plan.js, camera.js pictureLevel): a coarse picture
// at no less than a quarter of the screen's resolution while the view shows nothing, the frame,
// then the timesteps a step away in the direction of play once the frame is complete.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PICTURE_PX, pictureLevel } from '../lib/camera.js';
import { directionOf, loadPlan, stepsAhead } from '../lib/load-plan.js';

test('the picture is the coarsest level whose pixels span at most 4 device pixels', () => {
  // 1 CSS px per level-0 pixel: level 2 pixels span 4 px, level 3 would span 8.
  assert.equal(pictureLevel(1, 1, 0, 5), 2);
  // A phone's 3 device px per CSS px: level-0 pixels already span 3 device px, no coarser level fits.
  assert.equal(pictureLevel(1, 3, 0, 5), 0);
  // Zoomed out to a quarter: the asked level is 2 (1 px per pixel there); the picture is level 4.
  assert.equal(pictureLevel(0.25, 1, 2, 5), 4);
  assert.equal(pictureLevel(0.01, 1, 5, 5), 5, 'never coarser than the coarsest level');
  for (let k = 0; k <= 5; k++) {
    const zoom = 2 ** -k;
    const p = pictureLevel(zoom, 1, k, 8);
    assert.ok(zoom * 2 ** p <= PICTURE_PX && zoom * 2 ** (p + 1) > PICTURE_PX);
  }
});

/** Cells of a level: level k has (3 >> k) x (3 >> k) cells in view, at least one. @param {number} k */
const visibleAt = (k) => {
  const n = Math.max(1, 3 >> k);
  return Array.from({ length: n * n }, (_, i) => ({ row: Math.floor(i / n), col: i % n }));
};

test('a view that shows nothing loads its coarse picture first, then the frame; no read-ahead yet', () => {
  const needs = loadPlan({ lod: 0, picture: 2, t: 5, direction: 1, nTime: 12, visibleAt, has: () => false, showing: false });
  assert.deepEqual(needs.map((n) => `${n.priority}:${n.lod}/${n.cell.row},${n.cell.col}@${n.t}`), [
    'picture:2/0,0@5',
    ...visibleAt(0).map((c) => `frame:0/${c.row},${c.col}@5`),
  ]);
});

test('a view on screen at another date loads the frame only; a complete frame loads the next dates', () => {
  const scrub = loadPlan({ lod: 0, picture: 2, t: 5, direction: 1, nTime: 12, visibleAt, has: (k, c, t) => t === 4, showing: true });
  assert.deepEqual([...new Set(scrub.map((n) => n.priority))], ['frame']);
  const done = loadPlan({ lod: 0, picture: 2, t: 5, direction: -1, nTime: 12, visibleAt, has: (k, c, t) => t === 5, showing: true });
  assert.deepEqual(done.filter((n) => n.priority === 'ahead').map((n) => n.t), [...Array(9).fill(4), ...Array(9).fill(6)], 'backwards first after a step back');
  assert.ok(done.filter((n) => n.priority === 'frame').length === 9);
});

test('steps ahead wrap forward as playback does, and the direction follows the shorter way round', () => {
  assert.deepEqual(stepsAhead(11, 1, 12), [0, 10]);
  assert.deepEqual(stepsAhead(0, 1, 12), [1]);
  assert.deepEqual(stepsAhead(0, -1, 12), [11, 1]);
  assert.deepEqual(stepsAhead(0, 1, 1), []);
  assert.equal(directionOf(11, 0, 12), 1);
  assert.equal(directionOf(5, 4, 12), -1);
  assert.equal(directionOf(2, 9, 12), -1);
});
