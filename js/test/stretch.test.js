// @ts-check
// lib/stretch.js against numpy (test/viewer_expected.py): the percentile stretch is numpy's
// nearest-rank percentile of the values, their extent numpy's min and max.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { percentileRange, stretchStats } from '../lib/stretch.js';
import { viewerExpected } from './helpers.js';

const { percentiles } = viewerExpected();

test('percentileRange is numpy\'s nearest-rank percentile pair, widened around a flat view', () => {
  assert.ok(percentiles.length >= 10);
  for (const c of percentiles) {
    let [a, b] = c.range;
    if (b <= a) {
      // One value (or all equal): half its magnitude either side, so it draws mid-grey.
      const pad = Math.abs(a) > 0 ? Math.abs(a) * 0.5 : 1;
      [a, b] = [a - pad, b + pad];
    }
    assert.deepEqual(percentileRange(Float64Array.from(c.values), c.lo, c.hi), [a, b], `n ${c.values.length}, ${c.lo}-${c.hi}`);
  }
});

test('stretchStats gives the 2-98 stretch and numpy\'s extent; nothing for no values', () => {
  for (const c of percentiles.filter((/** @type {{ lo: number, values: number[] }} */ p) => p.lo === 0.02 && p.values.length > 1)) {
    const got = stretchStats(Float64Array.from(c.values));
    assert.deepEqual(got?.range, c.range);
    assert.deepEqual(got?.extent, c.extent);
  }
  assert.equal(stretchStats(new Float64Array(0)), null);
  assert.equal(percentileRange(new Float64Array(0)), null);
  assert.deepEqual(percentileRange(Float64Array.from([0, 0, 0])), [-1, 1]);
});
