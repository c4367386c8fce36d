// @ts-check
// The viewer's pixel history from the store's time-major history array (docs/format-history.md),
// in Debian's Chromium: a click on a pixel charts its whole decade (120 dates) with the numpy
// source's values after at most two requests for the history, and its CSV holds the same values.
// Stores: e2e/history_stores.py (chronozarr's writer, and zarr-python's array over the same series).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { py, skip, startBrowserStores } from './browser-stores.mjs';
import { clickPixel, downloadOf, settled, viewerPages } from './viewer-page.mjs';

describe('viewer pixel history from the history array', { skip, timeout: 300_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startBrowserStores>>} */
  let s;
  /** @type {{ times: number, pixels: { x: number, y: number, history: number[][] }[] }} */
  let made;
  /** @type {string[]} */
  const consoleErrors = [];

  before(async () => {
    s = await startBrowserStores('viewer-history', { script: 'history_stores.py' });
    made = JSON.parse(s.made);
  });
  after(() => s?.close());

  for (const name of ['hist.zarr', 'hist-zarrpy.zarr']) {
    test(`a click charts the pixel's whole history after at most two history requests, values as the source: ${name}`, async () => {
      const { openViewer } = viewerPages(s.browser, s.base, consoleErrors);
      const page = await openViewer(`store=${s.stores}/${name}&t=0&z=4&c=500700,8999600`, { downloads: true });
      await settled(page);
      /** @type {{ url: string, range: string | undefined }[]} */
      const log = [];
      page.on('request', (r) => log.push({ url: r.url(), range: r.headers().range }));
      for (const [i, px] of made.pixels.entries()) {
        const from = log.length;
        const click = await clickPixel(page, px.x, px.y);
        assert.ok(click, `pixel (${px.x}, ${px.y}) is on the map`);
        await page.waitForFunction(() => /· 0 gaps/.test(document.querySelector('.chart-caption')?.textContent ?? ''), null, { timeout: 60_000 });
        const history = log.slice(from).filter((r) => r.url.includes('/history/'));
        assert.ok(history.length >= 1 && history.length <= 2, `history requests: ${JSON.stringify(history)}`);
        assert.ok(history.every((r) => /^bytes=\d+-\d+$/.test(String(r.range))), 'bounded ranges');
        if (i === 0) assert.equal(history.length, 2, 'the first pixel: its shard index and its inner chunk');
        const got = await page.evaluate(() => {
          const held = window.__chronozarrViewer.api.inspector.history.pixels;
          return held.map((p) => ({ lod: p.lod, x: p.x, y: p.y, stored: p.got.map((v) => (v ? v.bands.map((b) => b.stored) : null)) }));
        });
        assert.deepEqual(got, [{ lod: 0, x: px.x, y: px.y, stored: px.history }]);
        // The chart: a point per date and band of the true colour product's three bands.
        assert.equal(await page.$$eval('.chart circle', (c) => c.length), made.times * 3);
      }
      const download = await downloadOf(page, () => page.click('.hist-csv'));
      const rows = readFileSync(String(await download.path()), 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
      const last = made.pixels.at(-1);
      assert.ok(last);
      assert.equal(rows.length, made.times * 3);
      rows.forEach((row, k) => assert.equal(Number(row[10]), last.history[Math.floor(k / 3)][k % 3], `CSV row ${k + 1}`));
      assert.deepEqual(consoleErrors, []);
      await page.context().close();
    });
  }
});
