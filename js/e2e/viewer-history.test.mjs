// @ts-check
// The viewer's pixel history from the store's time-major history array (docs/format-history.md),
// in Debian's Chromium: a click on a pixel charts its whole decade (120 dates) with the numpy
// source's values after one request for the history once the viewer has warmed the shard indexes
// under the view (which it does only after the first complete frame: no history request before
// it), and its CSV holds the same values. On a masked store the history's mask copy gives each
// date's validity: two history requests (one round trip) and no per-date mask read. Stores: e2e/history_stores.py (chronozarr's writer, and
// zarr-python's array over the same series; the masked series with and without the arrays).
// The history's blosc chunks are decoded without numcodecs' blosc module (never fetched).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { py, skip, startBrowserStores } from './browser-stores.mjs';
import { clickPixel, downloadOf, historyWarmed, quiet, settled, viewerPages } from './viewer-page.mjs';

describe('viewer pixel history from the history array', { skip, timeout: 300_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startBrowserStores>>} */
  let s;
  /** @type {{ times: number, pixels: { x: number, y: number, history: number[][], mask: number[] }[] }} */
  let made;
  /** @type {string[]} */
  const consoleErrors = [];

  before(async () => {
    s = await startBrowserStores('viewer-history', { script: 'history_stores.py' });
    made = JSON.parse(s.made);
  });
  after(() => s?.close());

  for (const name of ['hist.zarr', 'hist-zarrpy.zarr']) {
    test(`a click charts the pixel's whole history after one history request once warmed, values as the source: ${name}`, async () => {
      const { openViewer } = viewerPages(s.browser, s.base, consoleErrors);
      const page = await openViewer(`store=${s.stores}/${name}&t=0&z=4&c=500700,8999600`, { downloads: true });
      await settled(page);
      await historyWarmed(page);
      /** @type {{ url: string, range: string | undefined }[]} */
      const log = [];
      page.on('request', (r) => log.push({ url: r.url(), range: r.headers().range }));
      for (const [i, px] of made.pixels.entries()) {
        const from = log.length;
        const click = await clickPixel(page, px.x, px.y);
        assert.ok(click, `pixel (${px.x}, ${px.y}) is on the map`);
        await page.waitForFunction(() => /· 0 gaps/.test(document.querySelector('.hist-chart + .chart-caption')?.textContent ?? ''), null, { timeout: 60_000 });
        const history = log.slice(from).filter((r) => r.url.includes('/history/'));
        assert.equal(history.length, 1, `history requests: ${JSON.stringify(history)}`);
        assert.ok(history.every((r) => /^bytes=\d+-\d+$/.test(String(r.range))), 'bounded ranges');
        const got = await page.evaluate(() => {
          const held = window.__chronozarrViewer.api.inspector.history.pixels;
          return held.map((p) => ({ lod: p.lod, x: p.x, y: p.y, stored: p.got.map((v) => (v ? v.bands.map((b) => b.stored) : null)) }));
        });
        assert.deepEqual(got, [{ lod: 0, x: px.x, y: px.y, stored: px.history }]);
        // The chart: a point per date and band of the true colour product's three bands.
        assert.equal(await page.$$eval('.hist-chart .chart circle', (c) => c.length), made.times * 3);
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

  test("the warm-up: the centre shard's index behind the frame's chunks, the other indexes under the view after the first complete frame; then a click is exactly one request", async () => {
    const context = await s.browser.newContext({ viewport: { width: 800, height: 600 } });
    const page = await context.newPage();
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(`${page.url()}: ${m.text()}`));
    // Every request's start in the page's clock (that of firstCompleteAt), however many there are.
    await page.addInitScript(() => performance.setResourceTimingBufferSize(100_000));
    /** @type {string[]} */
    const scripts = [];
    page.on('request', (r) => scripts.push(r.url()));
    await page.goto(`${s.base}/viewer/?store=${s.stores}/hist.zarr&t=0&z=4&c=500700,8999600`);
    await page.waitForFunction(() => window.__chronozarrViewer?.ready || window.__chronozarrViewer?.error, null, { timeout: 20_000 });
    await settled(page);
    await historyWarmed(page);
    await quiet(page); // the map's read-ahead too: the click's are the only requests
    const opened = await page.evaluate(() => {
      const h = window.__chronozarrViewer;
      const entries = performance.getEntriesByType('resource');
      const starts = entries.filter((e) => e.name.includes('/history/')).map((e) => e.startTime);
      const chunks = entries.filter((e) => /\/\d+\/data\/c\//.test(e.name)).map((e) => e.startTime);
      return { firstCompleteAt: h.firstCompleteAt ?? Infinity, warm: h.historyWarm, starts, firstChunk: Math.min(...chunks) };
    });
    assert.ok(Number.isFinite(opened.firstCompleteAt) && opened.warm?.state === 'done', JSON.stringify(opened));
    assert.ok(opened.warm.startedAt >= opened.firstCompleteAt, 'the warm-up of the view starts once the first complete frame is drawn');
    // hist.zarr: 96 x 128 pixels in 32-pixel history shards, one time block, all in view: 12
    // indexes, the centre shard's asked for on the first frame painted, the other 11 by the warm-up.
    assert.equal(opened.warm.read, 11);
    assert.equal(opened.starts.length, 12, 'one request per shard index, nothing else of the history yet');
    const early = opened.starts.filter((t) => t < opened.firstCompleteAt);
    assert.ok(early.length <= 1, `only the centre shard's index may start before the first complete frame (${opened.firstCompleteAt} ms): ${opened.starts}`);
    assert.ok(Math.min(...opened.starts) > opened.firstChunk, `the frame's chunks are asked for first (${opened.firstChunk} ms): ${opened.starts}`);
    /** @type {{ url: string, range: string | undefined }[]} */
    const log = [];
    page.on('request', (r) => log.push({ url: r.url(), range: r.headers().range }));
    const px = made.pixels[0];
    assert.ok(await clickPixel(page, px.x, px.y));
    await page.waitForFunction(() => /· 0 gaps/.test(document.querySelector('.hist-chart + .chart-caption')?.textContent ?? ''), null, { timeout: 60_000 });
    assert.equal(log.length, 1, `the click's requests: ${JSON.stringify(log)}`);
    assert.match(log[0].url, /\/hist\.zarr\/history\/c\/0\/0\/\d+\/\d+$/);
    assert.match(String(log[0].range), /^bytes=\d+-\d+$/);
    const got = await page.evaluate(() => window.__chronozarrViewer.api.inspector.history.pixels[0].got.map((v) => (v ? v.bands.map((b) => b.stored) : null)));
    assert.deepEqual(got, px.history);
    // The data history is blosc zstd with bit shuffle (version 1.2): zstddec, loaded for the levels
    // already, decodes it; numcodecs' blosc module (615 kB) is never fetched, by the page or a worker.
    assert.deepEqual(scripts.filter((u) => /numcodecs\/dist\/blosc/.test(u)), []);
    assert.deepEqual(consoleErrors, []);
    await context.close();
  });

  /**
   * Click each pixel of the masked store and wait until every date is read; per pixel, the
   * requests after the click that read its history (the history arrays, or its level-0 cell's data
   * and mask chunks: the map's read-ahead of other cells and dates goes on meanwhile), their
   * response bytes, and what the viewer holds.
   * @param {string} name
   */
  async function chartMasked(name) {
    const { openViewer } = viewerPages(s.browser, s.base, consoleErrors);
    /** @type {{ url: string, range: string | undefined, bytes: Promise<number> }[]} */
    const log = [];
    /** @param {import('playwright-core').Page} p */
    const record = (p) => p.on('request', (r) => log.push({ url: r.url(), range: r.headers().range, bytes: r.response().then((res) => res?.body()).then((b) => b?.length ?? 0, () => 0) }));
    const page = await openViewer(`store=${s.stores}/${name}&t=0&z=4&c=500700,8999600`, { downloads: true, onPage: record });
    await settled(page);
    await historyWarmed(page);
    const out = [];
    for (const px of made.pixels) {
      const from = log.length;
      assert.ok(await clickPixel(page, px.x, px.y), `pixel (${px.x}, ${px.y}) is on the map`);
      await page.waitForFunction(() => /· \d+ gaps?\./.test(document.querySelector('.hist-chart + .chart-caption')?.textContent ?? ''), null, { timeout: 120_000 });
      const [row, col] = [Math.floor(px.y / 32), Math.floor(px.x / 32)];
      const own = new RegExp(`/(history(_mask)?/c/.*|0/data/c/\\d+/0/${row}/${col}|0/mask/c/\\d+/${row}/${col})$`);
      const requests = log.slice(from).filter((r) => own.test(r.url));
      const earlier = log.slice(0, from).filter((r) => own.test(r.url));
      const bytes = (await Promise.all(requests.map((r) => r.bytes))).reduce((a, b) => a + b, 0);
      const held = await page.evaluate(() => window.__chronozarrViewer.api.inspector.history.pixels.map((p) => ({
        stored: p.got.map((v) => (v ? v.bands.map((b) => b.stored) : null)),
        valid: p.got.map((v) => (v ? v.valid : null)),
      })));
      out.push({ px, requests, earlier, bytes, held });
    }
    return { page, out };
  }

  test('on a masked store a click charts values and validity from the history and its mask copy, no per-date mask read', async () => {
    const { page, out } = await chartMasked('hist-mask.zarr');
    for (const [i, { px, requests, held }] of out.entries()) {
      const history = requests.filter((r) => /\/history(_mask)?\//.test(r.url));
      assert.ok(history.length <= 2 && history.every((r) => /^bytes=\d+-\d+$/.test(String(r.range))), `history requests: ${JSON.stringify(history)}`);
      if (i === 0) assert.equal(history.filter((r) => r.url.includes('/history_mask/')).length, 1, "the first pixel: the copy's inner chunk (its shard index was warmed)");
      // The map's read-ahead of the next dates may read the cell's masks meanwhile; the history reads none.
      const masks = requests.filter((r) => r.url.includes('/0/mask/'));
      assert.ok(masks.length < made.times / 4, `no per-date mask chunk: ${JSON.stringify(masks.map((r) => r.url))}`);
      assert.deepEqual(held, [{ stored: px.history, valid: px.mask.map((m) => m === 1) }]);
    }
    const download = await downloadOf(page, () => page.click('.hist-csv'));
    const rows = readFileSync(String(await download.path()), 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
    const last = made.pixels.at(-1);
    assert.ok(last);
    assert.equal(rows.length, made.times * 3);
    rows.forEach((row, k) => {
      const t = Math.floor(k / 3);
      assert.deepEqual([Number(row[10]), row[12]], [last.history[t][k % 3], String(last.mask[t] === 1)], `CSV row ${k + 1}`);
    });
    assert.deepEqual(consoleErrors, []);
    await page.context().close();
  });

  test('the masked store without the history arrays charts the same, at one data and one mask read per date', async () => {
    const { page, out } = await chartMasked('hist-mask-none.zarr');
    for (const { px, requests, held } of out) {
      assert.deepEqual(held, [{ stored: px.history, valid: px.mask.map((m) => m === 1) }]);
      assert.equal(requests.filter((r) => r.url.includes('/history')).length, 0);
    }
    // Every date's mask chunk of the first pixel's cell is read once: by the click, or before it by
    // the map's read-ahead (whose frames are cached); how many the map had read depends on timing.
    const dates = (/** @type {{ url: string }[]} */ list) => new Set(list.filter((r) => r.url.includes('/0/mask/')).map((r) => r.url));
    const [clicked, readAhead] = [dates(out[0].requests), dates(out[0].earlier)];
    assert.equal(new Set([...clicked, ...readAhead]).size, made.times, 'a mask chunk per date, by the click or the read-ahead');
    assert.ok(clicked.size >= made.times - readAhead.size, `the click read the dates not read ahead: ${clicked.size} + ${readAhead.size}`);
    await page.context().close();
  });

  test('the figure in docs/history.md: one masked pixel, with and without the history arrays', async () => {
    const runs = [];
    for (const name of ['hist-mask.zarr', 'hist-mask-none.zarr']) {
      const { page, out } = await chartMasked(name);
      const { requests, earlier, bytes } = out[0];
      runs.push({ name, requests: requests.length, readAhead: new Set(earlier.map((r) => r.url)).size, bytes, history: requests.filter((r) => r.url.includes('/history')).length });
      await page.context().close();
    }
    console.log(`history-mask figure: ${JSON.stringify(runs)}`);
    assert.ok(runs[0].history === 2 && runs[1].requests + runs[1].readAhead >= 2 * made.times, JSON.stringify(runs));
  });
});
