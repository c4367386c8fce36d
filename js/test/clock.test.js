// @ts-check
// The current timestep (viewer/clock.js): one owner, clamped to the axis, announced to every listener with where the change came from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClock } from '../viewer/clock.js';

test('the clock clamps what it is asked for to the store axis and starts clamped', () => {
  const clock = createClock(5, 9);
  assert.equal(clock.t, 4);
  clock.set(-3);
  assert.equal(clock.t, 0);
  clock.set(2.7);
  assert.equal(clock.t, 2);
  clock.set(Number.NaN);
  assert.equal(clock.t, 0);
});

test('every listener hears each change with where it came from, in the order they subscribed', () => {
  const clock = createClock(10, 3);
  /** @type {string[]} */
  const heard = [];
  clock.on((c) => heard.push(`a ${c.previous}->${c.t} ${c.changed} ${c.source}`));
  clock.on((c) => heard.push(`b ${c.t} ${c.source}`));
  clock.set(7, 'playback');
  clock.set(7);
  assert.deepEqual(heard, ['a 3->7 true playback', 'b 7 playback', 'a 7->7 false user', 'b 7 user']);
});

test('a listener that stopped hears nothing more, and one made later hears from then on', () => {
  const clock = createClock(4, 0);
  /** @type {number[]} */
  const first = [];
  /** @type {number[]} */
  const later = [];
  const stop = clock.on((c) => first.push(c.t));
  clock.set(1);
  stop();
  clock.on((c) => later.push(c.t));
  clock.set(2, 'api');
  assert.deepEqual(first, [1]);
  assert.deepEqual(later, [2]);
});
