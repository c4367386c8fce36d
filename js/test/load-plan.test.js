// @ts-check
// What a view loads and in which order (lib/load-plan.js, camera.js pictureLevel): a coarse picture
// at no less than a quarter of the screen's resolution while the view shows nothing, the frame,
// then the timesteps a step away in the direction of play once the frame is complete; the
// read-ahead behind them and the history warm-up's index reads, which the plan decides too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PICTURE_PX, pictureLevel } from '../lib/camera.js';
import { directionOf, historyPlan, loadPlan, pixelHistoryPlan, readAheadRequest, stepsAhead, windowOrder } from '../lib/load-plan.js';
import { windowOrder as readerOrder } from '../src/index.js';

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

test('the read-ahead waits for a complete frame, is named by view and time, and by view only while playing', () => {
  const cells = [{ row: 0, col: 1 }, { row: 2, col: 3 }];
  assert.equal(readAheadRequest({ lod: 1, cells, t: 4, playing: false, complete: false }), null);
  assert.equal(readAheadRequest({ lod: 1, cells: [], t: 4, playing: false, complete: true }), null);
  const idle = readAheadRequest({ lod: 1, cells, t: 4, playing: false, complete: true });
  assert.deepEqual(idle, { key: '1|4|0,1;2,3', lod: 1, cells, t: 4, playing: false, priority: 'background' });
  const a = readAheadRequest({ lod: 1, cells, t: 4, playing: true, complete: true });
  const b = readAheadRequest({ lod: 1, cells, t: 5, playing: true, complete: true });
  assert.equal(a?.key, '1|loop|0,1;2,3');
  assert.equal(a?.key, b?.key, 'a step of the loop is the same read-ahead');
  // The reader's prefetch visits timesteps in the plan's order: one function, not a copy.
  assert.equal(readerOrder, windowOrder);
});

test('the history warm-up: the centre shard once, at the frame rank; the view once complete, again for other cells', () => {
  const level0 = { width: 90, height: 70, chunkSize: 32 };
  const box = { x0: 0, y0: 0, x1: 40, y1: 40 }; // cells rows 0-1, cols 0-1
  const base = { hasHistory: true, playing: false, level0, box, centreAsked: false, asked: '' };
  assert.deepEqual(historyPlan({ ...base, complete: false }), [{ centre: true, box, maxShards: 1, priority: 'frame' }]);
  assert.deepEqual(historyPlan({ ...base, complete: true }), [
    { centre: true, box, maxShards: 1, priority: 'frame' },
    { centre: false, box, key: '0,0,1,1', priority: 'background' },
  ]);
  assert.deepEqual(historyPlan({ ...base, complete: true, centreAsked: true, asked: '0,0,1,1' }), [], 'the same cells: asked already');
  const moved = { x0: 50, y0: 40, x1: 90, y1: 70 }; // rows 1-2, cols 1-2
  assert.deepEqual(historyPlan({ ...base, box: moved, complete: true, centreAsked: true, asked: '0,0,1,1' }), [{ centre: false, box: moved, key: '1,1,2,2', priority: 'background' }]);
  assert.deepEqual(historyPlan({ ...base, complete: true, playing: true }), [], 'never while playing');
  assert.deepEqual(historyPlan({ ...base, complete: true, hasHistory: false }), [], 'nothing without the array');
  assert.deepEqual(historyPlan({ ...base, complete: true, box: { x0: 95, y0: 0, x1: 120, y1: 10 } }), [], 'a view off level 0');
});

test("a picked pixel's history: level 0 and the whole series with the history array, else the level drawn date by date", () => {
  const hit = { lod: 2, x: 3, y: 4, x0: 13, y0: 17 };
  const store = { hasHistory: true, hasMask: true, hasHistoryMask: true };
  assert.deepEqual(pixelHistoryPlan(store, hit), { lod: 0, x: 13, y: 17, whole: true, maskCopy: true, inFlight: 6 });
  assert.equal(pixelHistoryPlan({ ...store, hasHistoryMask: false }, hit).maskCopy, false, 'no mask copy: each date\'s mask');
  assert.equal(pixelHistoryPlan({ ...store, hasMask: false }, hit).maskCopy, false, 'no mask to read');
  const dates = pixelHistoryPlan({ hasHistory: false, hasMask: true, hasHistoryMask: false }, hit);
  assert.deepEqual(dates, { lod: 2, x: 3, y: 4, whole: false, maskCopy: false, inFlight: 6 });
});
