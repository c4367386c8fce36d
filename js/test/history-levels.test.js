// @ts-check
// A region's series at a coarse level from that level's history array (format 1.3), over a real
// HTTP server: the numbers of numpy over the block means of the arrays Python wrote
// (history_levels.py), the same as the per-date chunks, in a few requests instead of one per date
// and cell; a 1.2 store (level 0's history only) reads the chunks there; a damaged coarse history
// is named once and the chunks answer; onProgress sees the chunk path's dates arrive in order.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../src/index.js';
import { countingFetch, python, repo, serve, warnings } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'chronozarr-levels-'));
const run = spawnSync(python, [join(repo, 'js/test/history_levels.py'), work], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: join(repo, 'src') } });
if (run.status !== 0) throw new Error(run.stderr);
const want = JSON.parse(run.stdout);

/** @param {import('../src/reader/region-series.js').SeriesResult} got */
function matchesNumpy(got) {
  assert.equal(got.level, want.lod);
  assert.deepEqual(got.validPixels, want.validPixels);
  got.mean.forEach((row, t) => row.forEach((v, b) => assert.ok(v != null && Math.abs(v - want.mean[t][b]) <= 1e-9 * Math.abs(want.mean[t][b]), `mean[${t}][${b}]: ${v} vs ${want.mean[t][b]}`)));
}

describe('a coarse level over HTTP', () => {
  /** @type {import('./helpers.js').Server} */
  let server;
  before(async () => {
    server = await serve(work);
  });
  after(() => server.stop());

  /** @param {string} name */
  async function series(name) {
    const { fetch, log } = countingFetch();
    const store = await openStore(`${server.url}/${name}`, { fetch, workers: 0 });
    try {
      const opened = log.length;
      /** @type {number[]} */
      const dates = [];
      const { said, result } = await warnings(() => store.readRegionSeries(want.box, { lod: want.lod, onProgress: (partial) => void dates.push(partial.dates) }));
      return { got: result, requests: log.length - opened, dates, said };
    } finally {
      store.close();
    }
  }

  test('from the level\'s history: the numpy numbers in two requests per shard, one progress call', async () => {
    const { got, requests, dates, said } = await series('with');
    assert.equal(got.source, 'history');
    matchesNumpy(got);
    assert.equal(requests, 2 * 4, 'level 1 is 2 x 2 shards: an index and one run of inner chunks each');
    assert.deepEqual(dates, [want.nTime]);
    assert.deepEqual(said, []);
  });

  test('without a history: the same numbers from one chunk per date and cell, filling in as dates arrive', async () => {
    const { got, requests, dates } = await series('without');
    assert.equal(got.source, 'chunks');
    matchesNumpy(got);
    assert.equal(requests, want.nTime * 4);
    assert.ok(dates.length >= 2 && dates.every((d, i) => i === 0 || d > dates[i - 1]), `increasing: ${dates}`);
    assert.equal(dates[dates.length - 1], want.nTime);
  });

  test('a 1.2 store (level 0\'s history only) reads the chunks at level 1 and its history at level 0', async () => {
    const { got, requests } = await series('old');
    assert.equal(got.source, 'chunks');
    matchesNumpy(got);
    assert.equal(requests, want.nTime * 4);
    const store = await openStore(`${server.url}/old`, { workers: 0 });
    try {
      assert.equal((await store.readRegionSeries(want.box, { lod: 0 })).source, 'history');
    } finally {
      store.close();
    }
  });

  test("a pixel's history at level 1 is its block means, in two requests from the level's history", async () => {
    for (const [name, cost] of [['with', 2], ['without', want.nTime]]) {
      const { fetch, log } = countingFetch();
      const store = await openStore(`${server.url}/${name}`, { fetch, workers: 0 });
      try {
        const opened = log.length;
        const got = await store.readPoint(want.pixel.y, want.pixel.x, { lod: 1 });
        assert.deepEqual(got.map((bands) => Array.from(bands)), want.pixel.values, name);
        assert.equal(log.length - opened, cost, `${name} requests`);
      } finally {
        store.close();
      }
    }
  });

  test('a damaged coarse history is named once and the chunks answer', async () => {
    const { got, said } = await series('damaged');
    assert.equal(got.source, 'chunks');
    matchesNumpy(got);
    assert.equal(said.length, 1);
    assert.match(said[0], /level 1's history array cannot be read .*history_1\/c\//);
  });
});
