// @ts-check
// The viewer's study tools end to end (issue 17): legend, scale bar, cursor readout and pixel
// history, in Debian Chromium against `chronozarr serve`, checked against the Python reader.
// Run: cd js && node --test e2e/viewer-study.test.mjs   (also part of `npm test`).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lonLats, py, readExpected, skip } from './browser-stores.mjs';
import { clickPixel, colourAt, downloadOf, settled, viewerSuite } from './viewer-page.mjs';

describe('viewer study tools', { skip, timeout: 300_000 }, () => {
  const suite = viewerSuite('study');

  /** @param {string} store @param {number} lod @param {number} t @param {number[][]} pts */
  const pixelsAt = (store, lod, t, pts) => readExpected(join(suite.tmp, store), lod, t, pts);
  /** What the legend shows: kind, title, domain, handles, ticks and the bar's pixels. @param {import('./viewer-page.mjs').Page} page */
  const legendState = (page) => page.evaluate(() => {
    const el = /** @type {HTMLElement} */ (document.querySelector('.legend'));
    const bar = /** @type {HTMLCanvasElement} */ (el.querySelector('.lg-bar'));
    const ctx = /** @type {CanvasRenderingContext2D} */ (bar.getContext('2d'));
    const all = (/** @type {string} */ selector) => [.../** @type {NodeListOf<HTMLElement>} */ (el.querySelectorAll(selector))];
    return {
      kind: el.dataset.kind,
      title: /** @type {HTMLElement} */ (el.querySelector('.lg-title')).textContent,
      domain: (bar.dataset.domain ?? '').split(',').map(Number),
      width: bar.width,
      handles: all('.lg-handle').filter((h) => !h.hidden).map((h) => Number(h.getAttribute('aria-valuenow'))),
      ticks: all('.lg-tick').map((t) => ({ v: Number(t.dataset.value), left: parseFloat(t.style.left), text: t.textContent })),
      bar: Array.from(ctx.getImageData(0, 0, bar.width, 1).data),
    };
  });
  /** The bar's colour at value v (the column whose centre is nearest). @param {Awaited<ReturnType<typeof legendState>>} lg @param {number} v */
  const barColour = (lg, v) => {
    const f = (v - lg.domain[0]) / (lg.domain[1] - lg.domain[0]);
    const i = Math.min(lg.width - 1, Math.max(0, Math.round(f * lg.width - 0.5)));
    return lg.bar.slice(i * 4, i * 4 + 3);
  };

  test('a single band is stretched over the 2nd-98th percentile of the valid values on screen; the legend shows it in its units', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=6&p=band&b=B08&z=5&c=500905,8999295`);
    await settled(page);
    // The level-0 pixels the canvas shows (level 0 is drawn at this zoom).
    const win = await page.evaluate(() => {
      const { cam, lod } = window.__chronozarrViewer.api.state();
      const m = /** @type {HTMLElement} */ (document.getElementById('map'));
      const [w, h] = [m.clientWidth / cam.zoom / 2, m.clientHeight / cam.zoom / 2];
      return { lod, rows: [Math.max(0, Math.floor(cam.cy - h)), Math.min(150, Math.ceil(cam.cy + h))], cols: [Math.max(0, Math.floor(cam.cx - w)), Math.min(200, Math.ceil(cam.cx + w))] };
    });
    assert.equal(win.lod, 0);
    assert.ok(win.cols[0] > 0 && win.rows[1] < 150, `a part of the raster: ${JSON.stringify(win)}`);
    const exp = await py('study_expected.py', ['stretch', join(suite.tmp, 's2.zarr'), 0, 6, 3, ...win.rows, ...win.cols]);
    await page.waitForFunction(() => document.querySelectorAll('.legend .lg-handle:not([hidden])').length === 2);
    const lg = await legendState(page);
    assert.equal(lg.kind, 'ramp');
    assert.match(lg.title, /^B08 reflectance$/);
    assert.deepEqual(lg.handles, [exp.p2, exp.p98]);
    assert.deepEqual(lg.domain, [exp.min, exp.max]);
    assert.ok(lg.ticks.length >= 3, JSON.stringify(lg.ticks));
    const step = lg.ticks[1].v - lg.ticks[0].v;
    assert.ok([1, 2, 5].some((m) => Math.abs(step / 10 ** Math.floor(Math.log10(step)) - m) < 1e-6), `tick step ${step}`);
    for (const tk of lg.ticks) {
      assert.ok(tk.v >= exp.min && tk.v <= exp.max, `tick ${tk.v} inside ${exp.min}..${exp.max}`);
      assert.ok(Math.abs(tk.left - ((tk.v - exp.min) / (exp.max - exp.min)) * 100) < 0.01, `tick ${tk.v} at ${tk.left}%`);
      assert.equal(Number(tk.text), tk.v);
      const g = Math.round(Math.min(1, Math.max(0, (tk.v - exp.p2) / (exp.p98 - exp.p2))) * 255);
      for (const c of barColour(lg, tk.v)) assert.ok(Math.abs(c - g) <= 2, `bar at ${tk.v}: ${c}, expected ${g}`);
    }
    // The map uses that stretch.
    const px = await pixelsAt('s2.zarr', 0, 6, [[win.cols[0] + 3, win.rows[0] + 4], [95, 70], [win.cols[1] - 2, win.rows[1] - 3]]);
    for (const p of px.pixels) {
      const v = p.stored[3] * 1e-4;
      const g = Math.round(Math.min(1, Math.max(0, (v - exp.p2) / (exp.p98 - exp.p2))) * 255);
      const c = await colourAt(page, p.x, p.y);
      for (const ch of c.slice(0, 3)) assert.ok(Math.abs(ch - g) <= 1, `pixel ${p.x},${p.y}: ${c}, expected ${g}`);
    }
    // Keyboard on the max handle: 1 % of the bar's domain per arrow press; the range goes to the URL.
    await page.focus('.lg-handle[data-end="1"]');
    await page.keyboard.press('ArrowLeft');
    const hi = exp.p98 - 0.01 * (exp.max - exp.min);
    await page.waitForFunction((hi) => Math.abs(Number(/** @type {HTMLElement} */ (document.querySelector('.lg-handle[data-end="1"]')).getAttribute('aria-valuenow')) - hi) < 1e-12, hi);
    await page.waitForFunction(() => /[?&]range=/.test(location.search));
    const range = (new URL(page.url()).searchParams.get('range') ?? '').split(',').map(Number);
    assert.ok(Math.abs(range[0] - exp.p2) < 1e-7 && Math.abs(range[1] - hi) < 1e-7, `range=${range}`);
    // Dragging the min handle to the bar's left end sets the minimum to the domain's start.
    const box = await page.locator('.lg-bar-wrap').boundingBox();
    const handle = await page.locator('.lg-handle[data-end="0"]').boundingBox();
    assert.ok(box && handle, 'the legend bar and its handle are on screen');
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x - 20, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction((lo) => Number(/** @type {HTMLElement} */ (document.querySelector('.lg-handle[data-end="0"]')).getAttribute('aria-valuenow')) === lo, exp.min);
    // Auto goes back to the percentiles.
    await page.click('.lg-auto');
    await page.waitForFunction(([a, b]) => {
      const h = [...document.querySelectorAll('.lg-handle')].map((x) => Number(x.getAttribute('aria-valuenow')));
      return h[0] === a && h[1] === b && !/[?&]range=/.test(location.search);
    }, [exp.p2, exp.p98]);
    await page.close();
  });

  test('the NDVI legend runs -1 to 1 and its colours are the colours drawn for those values', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=6&p=ndvi&z=4&c=501005,8999245`);
    await settled(page);
    const lg = await legendState(page);
    assert.deepEqual(lg.domain, [-1, 1]);
    assert.deepEqual(lg.ticks.map((t) => [t.v, t.left]), [[-1, 0], [-0.5, 25], [0, 50], [0.5, 75], [1, 100]]);
    assert.deepEqual(lg.handles, []);
    const pts = [];
    for (let y = 40; y < 110; y += 13) for (let x = 60; x < 150; x += 17) pts.push([x, y]);
    const exp = await pixelsAt('s2.zarr', 0, 6, pts);
    for (const p of exp.pixels) {
      const nir = p.stored[3] * 1e-4;
      const red = p.stored[2] * 1e-4;
      const ndvi = (nir - red) / (nir + red);
      const drawn = (await colourAt(page, p.x, p.y)).slice(0, 3);
      const legend = barColour(lg, ndvi);
      for (let i = 0; i < 3; i++) assert.ok(Math.abs(drawn[i] - legend[i]) <= 6, `NDVI ${ndvi} at ${p.x},${p.y}: map ${drawn}, legend ${legend}`);
    }
    await page.click('#product-buttons button[data-product="water"]');
    await page.waitForFunction(() => /** @type {HTMLElement} */ (document.querySelector('.legend')).dataset.kind === 'classes');
    assert.deepEqual(await page.$$eval('.lg-classes li', (li) => li.map((x) => x.textContent.trim())), ['Water: NDWI above 0', 'Land: B08 reflectance 0 to 0.3']);
    await page.close();
  });

  test('the scale bar is a round ground length: metres for UTM and EPSG:3857, degrees with their length at the latitude for EPSG:4326', async () => {
    const cases = [
      { store: 's2.zarr', query: 'z=4&c=501005,8999245', perPixel: 10, zoom: 4, units: 'm' },
      { store: 'rgb.zarr', query: 'z=5', perPixel: 1, zoom: 5, units: 'm' },
      { store: 'geo.zarr', query: 'z=8&c=10.03,45.48', perPixel: 0.001, zoom: 8, units: 'deg' },
    ];
    for (const c of cases) {
      const page = await suite.pages.openViewer(`store=${suite.stores}/${c.store}&${c.query}`);
      await settled(page);
      const sb = await page.evaluate(() => {
        const el = /** @type {HTMLElement} */ (document.querySelector('.scalebar'));
        const shown = { ...el.dataset, width: /** @type {HTMLElement} */ (el.querySelector('.sb-bar')).getBoundingClientRect().width, label: /** @type {HTMLElement} */ (el.querySelector('.sb-label')).textContent };
        return /** @type {typeof shown & { length: string, px: string, units: string }} */ (shown);
      });
      const length = Number(sb.length);
      const px = Number(sb.px);
      assert.equal(sb.units, c.units);
      assert.ok([1, 2, 5].some((m) => Math.abs(length / 10 ** Math.floor(Math.log10(length)) - m) < 1e-9), `round length ${length}`);
      // The store's transform: perPixel units per level-0 pixel, zoom CSS px per pixel (EPSG:3857 at
      // about 0.01 degrees of latitude: the cosine is 1 to 1e-8).
      assert.ok(Math.abs(px / ((length / c.perPixel) * c.zoom) - 1) < 1e-6, `${c.store}: ${px} px for ${length}`);
      assert.ok(px <= 120 && px > 120 / 2.5);
      assert.ok(Math.abs(sb.width - px) < 1, `bar ${sb.width} px`);
      if (c.units === 'm') assert.equal(sb.label, length >= 1000 ? `${length / 1000} km` : `${length} m`);
      else {
        const m = /^([\d.]+)° ≈ ([\d.]+) km east–west at 45.5° N$/.exec(sb.label);
        assert.ok(m, sb.label);
        assert.equal(Number(m[1]), length);
        const { metres } = await py('study_expected.py', ['degree', 45.48]);
        assert.ok(Math.abs(Number(m[2]) * 1000 - length * metres) / (length * metres) < 0.002, `${m[2]} km vs ${(length * metres) / 1000}`);
      }
      await page.close();
    }
  });

  test('the cursor readout shows the stored values read_point gives and the coordinates, from the frame on screen without requests', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=6&z=4&c=501005,8999245`);
    await settled(page);
    const pts = [[123, 77], [50, 20], [80, 90], [140, 60]];
    const exp = await pixelsAt('s2.zarr', 0, 6, pts);
    const lonlat = await lonLats(join(suite.tmp, 's2.zarr'), pts);
    const before = await page.evaluate(() => window.__chronozarrViewer.api.store.stats().requests);
    for (const [i, p] of exp.pixels.entries()) {
      const s = await page.evaluate(([x, y]) => {
        const box = /** @type {HTMLElement} */ (document.getElementById('map')).getBoundingClientRect();
        const c = window.__chronozarrViewer.api.screenOf(x + 0.5, y + 0.5);
        return { px: box.left + c.px, py: box.top + c.py };
      }, [p.x, p.y]);
      await page.mouse.move(s.px, s.py);
      await page.waitForFunction(([x, y]) => {
        const d = /** @type {HTMLElement} */ (document.querySelector('.cursor')).dataset;
        return d.col === String(x) && d.row === String(y);
      }, [p.x, p.y]);
      const d = await page.evaluate(() => {
        const el = /** @type {HTMLElement} */ (document.querySelector('.cursor'));
        return /** @type {Record<string, string>} */ ({ ...el.dataset, text: el.textContent });
      });
      assert.deepEqual(d.stored.split(',').map(Number), p.stored);
      assert.equal(d.valid, String(p.mask === 1));
      assert.equal(d.t, '6');
      assert.equal(d.lod, '0');
      // One CSS pixel is 2.5 m here: the pointer is within that of the pixel's centre.
      assert.ok(Math.abs(Number(d.x) - (500000 + (p.x + 0.5) * 10)) <= 2.5 && Math.abs(Number(d.y) - (9000000 - (p.y + 0.5) * 10)) <= 2.5, `${d.x}, ${d.y}`);
      assert.ok(Math.abs(Number(d.lon) - lonlat[i][0]) < 3e-5 && Math.abs(Number(d.lat) - lonlat[i][1]) < 3e-5, `${d.lon}, ${d.lat} vs ${lonlat[i]}`);
      assert.match(d.text, new RegExp(`row ${p.y}, col ${p.x}`));
      assert.match(d.text, /EPSG:32718/);
    }
    assert.equal(await page.evaluate(() => window.__chronozarrViewer.api.store.stats().requests), before);
    await page.close();
  });

  test('the pixel history holds up to four pixels, marks invalid dates, zooms in time and exports CSV equal to read_point and PNG', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=3&p=ndvi&z=3&c=501200,8999250`, { downloads: true });
    await settled(page);
    const click = (/** @type {number} */ x, /** @type {number} */ y, shift = false) => clickPixel(page, x, y, shift);
    // (160, 110) is masked at t = 3 only; (123, 77) is valid at every date.
    await click(123, 77);
    await click(160, 110, true);
    await page.waitForFunction(() => document.querySelectorAll('.hist-list li').length === 2);
    await page.waitForFunction(() => document.querySelectorAll('.hist-chart .chart circle').length === 19);
    assert.deepEqual(await page.$$eval('.hist-chart .chart-gap', (g) => g.map((x) => x.dataset.t)), ['3']);
    assert.deepEqual(await page.$$eval('.hist-chart .chart path', (p) => p.map((x) => x.dataset.label)), ['#1 NDVI', '#2 NDVI']);
    // The time window: 2020-03 to 2020-09 holds 4 dates (03, 04, 05, 08, 09 less the gap at 04 for #2).
    await page.fill('.hist-from', '2020-03-01');
    await page.fill('.hist-to', '2020-09-01');
    await page.dispatchEvent('.hist-to', 'change');
    await page.waitForFunction(() => /** @type {HTMLElement} */ (document.querySelector('.hist-chart .chart')).dataset.window?.startsWith('2020-03-01'));
    assert.equal(await page.$$eval('.hist-chart .chart circle', (c) => c.length), 5 + 4);
    await page.click('.hist-all');
    await page.waitForFunction(() => /** @type {HTMLElement} */ (document.querySelector('.hist-chart .chart')).dataset.window === '');

    const csv = await downloadOf(page, () => page.click('.hist-csv'));
    assert.match(csv.suggestedFilename(), /_pixels\.csv$/);
    const rows = readFileSync(await csv.path(), 'utf8').trim().split('\n').map((l) => l.split(','));
    const header = rows.shift();
    assert.deepEqual(header, ['pixel', 'x', 'y', 'level', 'level_x', 'level_y', 'lon', 'lat', 'time', 'band', 'stored', 'physical', 'valid', 'coverage']);
    /** @type {{ times: string[], bands: string[], scale: number[], offset: number[], pixels: { x: number, y: number, stored: number[][], valid: boolean[][], coverage: number[] }[] }} */
    const exp = await py('study_expected.py', ['history', join(suite.tmp, 's2.zarr'), 0, '123,77', '160,110']);
    assert.equal(rows.length, 2 * exp.times.length * exp.bands.length);
    const col = Object.fromEntries(header.map((h, i) => [h, i]));
    let i = 0;
    exp.pixels.forEach((p, k) => exp.times.forEach((time, t) => exp.bands.forEach((band, b) => {
      const r = rows[i++];
      assert.deepEqual([r[col.pixel], r[col.x], r[col.y], r[col.level], r[col.time], r[col.band]], [String(k + 1), String(p.x), String(p.y), '0', time, band]);
      assert.equal(Number(r[col.stored]), p.stored[t][b], `pixel ${k + 1} ${time} ${band}`);
      assert.equal(r[col.valid], String(p.valid[t][b]));
      assert.equal(r[col.physical], p.valid[t][b] ? String(p.stored[t][b] * exp.scale[b] + exp.offset[b]) : '');
      assert.equal(Number(r[col.coverage]), p.coverage[t]);
    })));
    assert.ok(rows.some((r) => r[col.valid] === 'false'));

    const png = await downloadOf(page, () => page.click('.hist-png'));
    const bytes = readFileSync(await png.path());
    assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
    const cssWidth = await page.evaluate(() => Math.round(/** @type {HTMLElement} */ (document.querySelector('.hist-chart .chart')).getBoundingClientRect().width));
    assert.equal(bytes.readUInt32BE(16), cssWidth * 3);

    // Four at most; each removable.
    await click(30, 30, true);
    await click(60, 100, true);
    await click(100, 120, true); // a fifth: refused
    assert.equal(await page.$$eval('.hist-list li', (l) => l.length), 4);
    assert.equal(await page.isDisabled('.hist-add'), true);
    assert.equal(await page.$$eval('.pixel-marker', (m) => m.length), 4);
    await page.click('.hist-remove[data-id="2"]');
    assert.deepEqual(await page.$$eval('.hist-list li', (l) => l.map((x) => x.dataset.id)), ['1', '3', '4']);
    // A plain click starts over with one pixel.
    await click(123, 77);
    assert.equal(await page.$$eval('.hist-list li', (l) => l.length), 1);
    await page.close();
  });

  test('no console errors', () => {
    assert.deepEqual(suite.consoleErrors, []);
  });
});
