// @ts-check
// The npm package carries the viewer (issue 13): `npm pack`, the tarball installed into a new folder
// with `npm install --offline` (the codecs are bundled), then in Debian Chromium a host page that
// mounts the viewer from it with `mountViewer`, and the static viewer app opened from node_modules.
// Run: cd js && node --test e2e/viewer-package.test.mjs   (also part of `npm test`).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { jsDir, skip } from './browser-stores.mjs';
import { axeViolations, settled, viewerSuite } from './viewer-page.mjs';

const exec = promisify(execFile);
const CODECS = ['zstd', 'blosc', 'gzip', 'zlib', 'lz4'];

/** A host page of its own: an import map onto node_modules, a heading, an element the viewer mounts into. */
function hostPage() {
  const deps = './node_modules/chronozarr/node_modules';
  const imports = {
    'chronozarr/viewer': './node_modules/chronozarr/viewer/mount.js',
    numcodecs: `${deps}/numcodecs/dist/index.js`,
    ...Object.fromEntries(CODECS.map((c) => [`numcodecs/${c}`, `${deps}/numcodecs/dist/${c}.js`])),
    fflate: `${deps}/fflate/esm/browser.js`,
  };
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>A page that mounts the viewer</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<style>#here { width: 900px; height: 560px; }</style></head>
<body>
<h1>River study</h1>
<div id="here"></div>
<script type="module">
  import { mountViewer } from 'chronozarr/viewer';
  const options = JSON.parse(new URLSearchParams(location.search).get('options'));
  window.events = [];
  window.viewer = mountViewer(document.getElementById('here'), options);
  for (const type of ['ready', 'time', 'view', 'click', 'compare', 'error']) window.viewer.on(type, (f) => window.events.push({ type, ...f }));
  window.viewer.ready.then(() => (window.mounted = true), (e) => (window.mounted = String(e)));
</script>
</body>
</html>
`;
}

describe('viewer from the npm package', { skip, timeout: 300_000 }, () => {
  const suite = viewerSuite('package');
  /** @type {string} URL of the folder the package is installed in */
  let host;

  test('npm pack, then npm install --offline of the tarball into a new folder', async () => {
    const dir = join(suite.tmp, 'host');
    mkdirSync(dir);
    await exec('npm', ['pack', '--pack-destination', suite.tmp, '--silent'], { cwd: jsDir });
    const tarball = readdirSync(suite.tmp).find((f) => f.endsWith('.tgz')) ?? '';
    assert.match(tarball, /^chronozarr-\d+\.\d+\.\d+\.tgz$/);
    writeFileSync(join(dir, 'package.json'), '{ "name": "host", "private": true }\n');
    await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', join(suite.tmp, tarball)], { cwd: dir });
    const pkg = join(dir, 'node_modules', 'chronozarr');
    for (const f of ['viewer/index.html', 'viewer/mount.js', 'viewer/app.js', 'viewer/viewer.css', 'src/index.js', 'node_modules/numcodecs/dist/zstd.js']) {
      assert.ok(readdirSync(join(pkg, f, '..')).includes(f.split('/').pop() ?? ''), `${f} is installed`);
    }
    writeFileSync(join(dir, 'index.html'), hostPage());
    host = `${suite.base}/${relative(jsDir, dir)}`;
  });

  test('mountViewer draws the store in the host page as the standalone viewer does, with products, timeline, inspector, chart and permalink', async () => {
    assert.ok(host, 'the package is installed');
    const options = { store: `${suite.stores}/s2.zarr`, t: 3, p: 'ndvi', z: 3, c: [500950, 8999300] };
    const page = await suite.browser.newPage({ viewport: { width: 1000, height: 760 } });
    suite.pages.watch(page);
    const url = `${host}/index.html?options=${encodeURIComponent(JSON.stringify(options))}`;
    await page.goto(url);
    await page.waitForFunction(() => window.mounted !== undefined, null, { timeout: 20_000 });
    assert.equal(await page.evaluate(() => window.mounted), true);
    const api = () => page.waitForFunction(() => {
      const s = window.viewer.api.state();
      return s.settled && s.pending === 0;
    }, null, { timeout: 20_000 });
    await api();
    assert.deepEqual(await page.evaluate(() => ({ t: window.viewer.state()?.t, product: window.viewer.state()?.product })), { t: 3, product: 'ndvi' });
    // The same pixels in the same colours as the standalone page with the same options.
    const pts = [[100, 75], [60, 40], [150, 120], [30, 100]];
    /** @param {import('./viewer-page.mjs').Page} p @param {'mounted' | 'alone'} via */
    const colours = (p, via) => p.evaluate(([pts, via]) => pts.map(([x, y]) => {
      const a = via === 'mounted' ? window.viewer.api : window.__chronozarrViewer.api;
      const s = a.screenOf(x + 0.5, y + 0.5);
      return a.pixel(s.px, s.py);
    }), /** @type {[number[][], string]} */ ([pts, via]));
    const mounted = await colours(page, 'mounted');
    const alone = await suite.pages.openViewer(`store=${options.store}&t=3&p=ndvi&z=3&c=500950,8999300`);
    await settled(alone);
    assert.deepEqual(mounted, await colours(alone, 'alone'));
    await alone.close();
    // The host page keeps its URL and its own styles.
    assert.equal(page.url(), url);
    assert.equal(await page.$eval('h1', (h) => getComputedStyle(h).fontSize), '32px');
    assert.deepEqual(await axeViolations(page), []);
    // Products, timeline (keys within the viewer), inspector and chart.
    await page.click('#cz1-product-buttons button[data-product="true_color"]');
    await page.focus('#cz1-map');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.events.some((e) => e.type === 'time' && e.t === 4));
    await page.evaluate(() => {
      const a = window.viewer.api;
      const s = a.screenOf(100.5, 75.5);
      a.click(s.px, s.py);
    });
    await page.waitForFunction(() => document.querySelectorAll('#cz1-inspector .chart circle').length === 30);
    assert.ok(await page.evaluate(() => window.events.some((e) => e.type === 'click' && e.pixel.x === 100 && e.pixel.y === 75)));
    // set() is the embed API's set: validated whole.
    const refused = await page.evaluate(() => window.viewer.set({ t: 'soon' }));
    assert.equal(refused.ok, false);
    assert.equal(refused.field, 't');
    assert.deepEqual(await page.evaluate(() => window.viewer.set({ compare: { t: 8, split: 0.25 } })), { ok: true });
    assert.deepEqual((await page.evaluate(() => window.events.filter((e) => e.type === 'compare').at(-1)))?.compare, { t: 8, time: '2020-11-01T00:00:00Z', split: 0.25 });
    // The permalink opens the static viewer app from node_modules on the same view (the address is
    // written 200 ms after the last change: wait for the split view's too).
    await page.waitForFunction(() => ['p=true_color', 't=4', 'compare=8'].every((p) => new RegExp(`[?&]${p}(&|$)`).test(window.viewer.permalink() ?? '')));
    const link = await page.evaluate(() => window.viewer.permalink());
    assert.ok(link, 'the mounted viewer has a permalink');
    assert.ok(link.startsWith(`${host}/node_modules/chronozarr/viewer/?store=`), link);
    const full = await suite.browser.newPage({ viewport: { width: 900, height: 600 } });
    suite.pages.watch(full);
    await full.goto(link);
    await full.waitForFunction(() => window.__chronozarrViewer?.ready, null, { timeout: 20_000 });
    await settled(full);
    assert.deepEqual(await full.evaluate(() => {
      const s = window.__chronozarrViewer.api.state();
      return [s.t, s.product, window.__chronozarrViewer.api.compare.state];
    }), [4, 'true_color', { t: 8, split: 0.25 }]);
    await full.close();
    // destroy() closes the store and leaves the host page as it was.
    await page.evaluate(() => window.viewer.destroy());
    assert.equal(await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('here')).children.length), 0);
    assert.equal(await page.evaluate(() => window.viewer.api.store.stats().workers), 0);
    await page.close();
  });

  test('no console errors', () => {
    assert.deepEqual(suite.consoleErrors, []);
  });
});
