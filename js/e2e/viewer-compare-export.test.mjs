// @ts-check
// Compare two dates and take the view away (issue 17): the swipe view against frames rendered
// alone, the compare fields of the permalink and the embed API, the PNG export and the WebM
// time-lapse read back with Debian's ffprobe/ffmpeg. Debian Chromium against `chronozarr serve`.
// Run: cd js && node --test e2e/viewer-compare-export.test.mjs   (also part of `npm test`).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { skip } from './browser-stores.mjs';
import { downloadOf, settled, viewerSuite } from './viewer-page.mjs';

const exec = promisify(execFile);
const FFPROBE = '/usr/bin/ffprobe';
const FFMPEG = '/usr/bin/ffmpeg';

describe('viewer compare and export', { skip, timeout: 300_000 }, () => {
  const suite = viewerSuite('compare');

  const view = 'z=3&c=500950,8999300';
  /** Both sides drawn at their dates with every visible cell. @param {import('./viewer-page.mjs').Page} page */
  const bothSettled = (page) => page.waitForFunction(() => {
    const { api } = window.__chronozarrViewer;
    const c = api.compare.scene;
    return api.state().settled && api.state().pending === 0 && (!c || (c.settled && c.pending === 0));
  }, null, { timeout: 20_000 });
  /** RGBA of the drawing buffer at CSS points. @param {import('./viewer-page.mjs').Page} page @param {number[][]} pts */
  const pixels = (page, pts) => page.evaluate((pts) => pts.map(([x, y]) => window.__chronozarrViewer.api.pixel(x, y)), pts);

  test('each half of the swipe view equals the frame of its date rendered alone, and no frame of either side mixes dates', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=2&compare=8&split=0.5&p=false_color&${view}`);
    await bothSettled(page);
    const { w, h } = await page.evaluate(() => ({ w: /** @type {HTMLElement} */ (document.getElementById('map')).clientWidth, h: /** @type {HTMLElement} */ (document.getElementById('map')).clientHeight }));
    /** @type {number[][]} */
    const left = [];
    /** @type {number[][]} */
    const right = [];
    for (let y = 5; y < h; y += 23) for (let x = 3; x < w; x += 19) (x < w / 2 - 1 ? left : x > w / 2 + 1 ? right : []).push([x, y]);
    const split = [await pixels(page, left), await pixels(page, right)];
    const frames = await page.evaluate(() => [window.__chronozarrViewer.frames, window.__chronozarrViewer.api.compare.scene?.frames ?? []]);
    for (const f of frames[0]) for (const c of f.cells) assert.equal(c.t, 2, `left frame ${f.n} draws a cell of ${c.t}`);
    for (const f of frames[1]) for (const c of f.cells) assert.equal(c.t, 8, `right frame ${f.n} draws a cell of ${c.t}`);
    assert.ok(frames[1].at(-1)?.complete);
    assert.equal(await page.textContent('.cmp-a'), 'A 2020-03-01');
    assert.equal(await page.$eval('.cmp-select', (s) => /** @type {HTMLSelectElement} */ (s).value), '8');
    /** @type {[number, number[][], number[][]][]} */
    const sides = [[2, left, split[0]], [8, right, split[1]]];
    for (const [t, pts, got] of sides) {
      const alone = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=${t}&p=false_color&${view}`);
      await settled(alone);
      assert.deepEqual(await pixels(alone, pts), got, `the side of t=${t}`);
      await alone.close();
    }
    // The two dates differ on screen, so the check above could fail.
    const b = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=8&p=false_color&${view}`);
    await settled(b);
    assert.notDeepEqual(await pixels(b, left), split[0]);
    await b.close();
    // The divider moves with the keyboard; its place and both dates are in the permalink.
    await page.focus('.cmp-divider');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('split') === '0.48');
    const q = new URL(page.url()).searchParams;
    assert.deepEqual([q.get('t'), q.get('compare')], ['2', '8']);
    await page.selectOption('.cmp-select', '5');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('compare') === '5');
    const again = await suite.pages.openViewer(new URL(page.url()).search.slice(1));
    assert.deepEqual(await again.evaluate(() => window.__chronozarrViewer.api.compare.state), { t: 5, split: 0.48 });
    await again.keyboard.press('c');
    await again.waitForFunction(() => !new URLSearchParams(location.search).has('compare') && window.__chronozarrViewer.api.compare.state === null);
    assert.equal(await again.getAttribute('#compare-toggle', 'aria-pressed'), 'false');
    await again.close();
    await page.close();
  });

  test('embed: compare is an optional set field within v: 1, reported in ready and by chronozarr:compare', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 700, height: 560 } });
    const page = await context.newPage();
    suite.pages.watch(page);
    const src = `${suite.base}/viewer/?store=${encodeURIComponent(`${suite.stores}/s2.zarr`)}&embed=1&origin=${encodeURIComponent(suite.other)}`;
    await page.goto(`${suite.other}/e2e/host.html?src=${encodeURIComponent(src)}`);
    /** @returns {Promise<any[]>} the messages the viewer sent (JSON from the frame) */
    const messages = () => page.evaluate(() => window.messages.map((m) => m.data));
    const waitFor = (/** @type {string} */ type, n = 1) => page.waitForFunction(([type, n]) => window.messages.filter((m) => m.data.type === type).length >= n, /** @type {[string, number]} */ ([type, n]), { timeout: 20_000 });
    const send = (/** @type {Record<string, unknown>} */ msg) => page.evaluate((m) => window.send(m), msg);
    await waitFor('chronozarr:ready');
    assert.equal((await messages()).find((m) => m.type === 'chronozarr:ready').state.compare, null);
    await send({ v: 1, type: 'chronozarr:set', compare: { t: '2020-09-10', split: 0.3 } });
    await waitFor('chronozarr:compare');
    const msg = (await messages()).find((m) => m.type === 'chronozarr:compare');
    assert.deepEqual(msg.compare, { t: 6, time: '2020-09-01T00:00:00Z', split: 0.3 });
    assert.equal(msg.v, 1);
    await send({ type: 'chronozarr:set', compare: { t: 99 } });
    await waitFor('chronozarr:error');
    const err = (await messages()).find((m) => m.type === 'chronozarr:error');
    assert.equal(err.code, 'bad_set');
    assert.match(err.message, /^compare: t must be/);
    await send({ type: 'chronozarr:get' });
    await waitFor('chronozarr:ready', 2);
    assert.deepEqual((await messages()).filter((m) => m.type === 'chronozarr:ready').at(-1).state.compare, { t: 6, time: '2020-09-01T00:00:00Z', split: 0.3 });
    await send({ type: 'chronozarr:set', compare: null });
    await waitFor('chronozarr:compare', 2);
    assert.equal((await messages()).filter((m) => m.type === 'chronozarr:compare').at(-1).compare, null);
    await context.close();
  });

  test('the PNG export is the view with its date, legend and scale drawn in', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=4&p=ndvi&${view}`, { downloads: true });
    await settled(page);
    const download = await downloadOf(page, () => page.click('#export'));
    assert.equal(download.suggestedFilename(), 's2_2020-05-01_ndvi.png');
    const png = readFileSync(await download.path()).toString('base64');
    const result = await page.evaluate(async (data) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const ctx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
      ctx.drawImage(img, 0, 0);
      const at = (/** @type {number} */ x, /** @type {number} */ y) => Array.from(ctx.getImageData(x, y, 1, 1).data);
      const map = /** @type {HTMLCanvasElement} */ (document.getElementById('map'));
      const api = window.__chronozarrViewer.api;
      const diffs = [];
      for (let y = 120; y < 300; y += 17) for (let x = 320; x < 760; x += 23) {
        const a = at(x, y);
        const b = api.pixel(x, y);
        if (a.some((v, i) => v !== b[i])) diffs.push([x, y, a, b]);
      }
      return { w: img.width, h: img.height, cw: map.width, ch: map.height, diffs, label: at(20, 20), legend: at(20, map.height - 20), mapThere: api.pixel(20, 20) };
    }, png);
    assert.equal(result.w, result.cw - (result.cw % 2));
    assert.equal(result.h, result.ch - (result.ch % 2));
    assert.deepEqual(result.diffs, []);
    assert.notDeepEqual(result.label, result.mapThere, 'the date box is drawn over the map');
    await page.close();
  });

  test('the time-lapse is a WebM with one frame per date at the chosen speed, its first frame the view at the first date', async () => {
    assert.ok(existsSync(FFPROBE) && existsSync(FFMPEG), 'ffprobe and ffmpeg (Debian package ffmpeg, installed by `make js`)');
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=0&p=true_color&${view}`, { width: 640, height: 480, downloads: true });
    await settled(page);
    await page.keyboard.press('v');
    await page.waitForSelector('.video:not([hidden])');
    await page.selectOption('.video-from', '2');
    await page.selectOption('.video-to', '7');
    await page.selectOption('.video-fps', '4');
    const download = await downloadOf(page, () => page.click('.video-record'));
    assert.equal(download.suggestedFilename(), 's2_2020-03-01_2020-10-01_4fps.webm');
    const file = await download.path();
    const probe = JSON.parse((await exec(FFPROBE, ['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_type,nb_read_frames,width,height:format=duration', '-of', 'json', file])).stdout);
    const video = probe.streams.find((/** @type {{ codec_type: string }} */ s) => s.codec_type === 'video');
    assert.equal(Number(video.nb_read_frames), 6);
    assert.ok(Math.abs(Number(probe.format.duration) - 1.5) < 0.005, `duration ${probe.format.duration}`);
    const packets = (await exec(FFPROBE, ['-v', 'error', '-select_streams', 'v', '-show_entries', 'packet=pts_time', '-of', 'csv=p=0', file])).stdout.split('\n').filter((l) => /^\d/.test(l)).map((l) => Number(l.split(',')[0]));
    assert.equal(packets.length, 6);
    packets.forEach((pts, i) => assert.ok(Math.abs(pts - i * 0.25) < 0.04, `frame ${i} at ${pts} s`));
    // The first frame, decoded by ffmpeg, against the view composed at the first date.
    const { width, height } = video;
    const raw = (await exec(FFMPEG, ['-v', 'error', '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { encoding: 'buffer', maxBuffer: 64 * 2 ** 20 })).stdout;
    assert.equal(raw.length, width * height * 3);
    await page.evaluate(() => window.__chronozarrViewer.api.setT(2));
    await settled(page);
    const composed = await page.evaluate(() => {
      const out = document.createElement('canvas');
      window.__chronozarrViewer.api.tools.composeView(out);
      return { w: out.width, h: out.height, data: Array.from(/** @type {CanvasRenderingContext2D} */ (out.getContext('2d')).getImageData(0, 0, out.width, out.height).data) };
    });
    assert.deepEqual([composed.w, composed.h], [width, height]);
    let sum = 0;
    for (let i = 0, j = 0; i < raw.length; i += 3, j += 4) for (let k = 0; k < 3; k++) sum += Math.abs(raw[i + k] - composed.data[j + k]);
    const mean = sum / raw.length;
    assert.ok(mean < 3, `mean difference ${mean} per channel`);
    assert.equal(await page.evaluate(() => window.__chronozarrViewer.api.state().t), 2);
    await page.close();
  });

  test('no console errors', () => {
    assert.deepEqual(suite.consoleErrors, []);
  });
});
