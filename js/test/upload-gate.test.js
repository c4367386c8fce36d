// @ts-check
// Texture uploads paced by animation frame: no more than the allowance between two frames, a lone
// upload over it goes by itself, the rest wait for the next frames in the order they came.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createUploadGate } from '../lib/upload-gate.js';

/** A frame clock the test advances by hand. */
function manualFrames() {
  /** @type {Map<number, () => void>} */
  const pending = new Map();
  let next = 1;
  return {
    schedule: (/** @type {() => void} */ run) => {
      pending.set(next, run);
      return next++;
    },
    unschedule: (/** @type {number} */ h) => pending.delete(h),
    tick() {
      const runs = [...pending.values()];
      pending.clear();
      for (const run of runs) run();
    },
    get scheduled() {
      return pending.size;
    },
  };
}

test('16 MiB a frame: 10 MiB uploads go one a frame, in order', () => {
  const frames = manualFrames();
  const gate = createUploadGate(16 * 2 ** 20, frames.schedule, frames.unschedule);
  /** @type {string[]} */
  const done = [];
  for (const name of ['a', 'b', 'c']) gate.submit(10 * 2 ** 20, () => done.push(name));
  assert.deepEqual(done, ['a']);
  frames.tick();
  assert.deepEqual(done, ['a', 'b']);
  frames.tick();
  assert.deepEqual(done, ['a', 'b', 'c']);
  assert.equal(gate.waiting, 0);
});

test('small uploads share a frame up to the allowance; one larger than it goes alone', () => {
  const frames = manualFrames();
  const gate = createUploadGate(16, frames.schedule, frames.unschedule);
  /** @type {number[]} */
  const done = [];
  [6, 6, 6, 40, 1].forEach((bytes, i) => gate.submit(bytes, () => done.push(i)));
  assert.deepEqual(done, [0, 1]); // 12 of 16 bytes; 18 would be over
  frames.tick();
  assert.deepEqual(done, [0, 1, 2]); // 6, then 40 would be over
  frames.tick();
  assert.deepEqual(done, [0, 1, 2, 3]); // 40 alone
  frames.tick();
  assert.deepEqual(done, [0, 1, 2, 3, 4]);
});

test('no allowance uploads at once; cancel forgets what waits', () => {
  const frames = manualFrames();
  let ran = 0;
  createUploadGate(Infinity, frames.schedule, frames.unschedule).submit(1e12, () => ran++);
  assert.equal(ran, 1);
  const gate = createUploadGate(1, frames.schedule, frames.unschedule);
  gate.submit(1, () => ran++);
  gate.submit(1, () => ran++);
  gate.cancel();
  frames.tick();
  assert.equal(ran, 2);
  assert.equal(frames.scheduled, 0);
});
