// @ts-check
// The viewer catalog (`?catalog=URL`, issue 27) in Chromium against `chronozarr serve`, on stores the
// Python writer makes: the full viewer offers the catalog's stores in a picker and opens the one
// picked, keeping both in the address; the embed shows no picker and never fetches the catalog
// (the reference: "An embed never falls back to another store and never fetches the catalog"); a
// catalog that cannot be read is said so.
// Run: cd js && node --test e2e/viewer-catalog.test.mjs   (also part of `npm test`).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skip } from './browser-stores.mjs';
import { colourAt, settled, viewerSuite } from './viewer-page.mjs';

/** rgb.zarr's colour at level-0 pixel (x, y), date 0: make_stores.py's formula, not the reader's output. @param {number} x @param {number} y */
const rgbAt = (x, y) => [(x * 3) % 256, (y * 4) % 256, (x + y) % 256];

/** @param {import('playwright-core').Page} page */
const opened = (page) => page.evaluate(() => {
  const { api, error } = window.__chronozarrViewer;
  return { error, times: api.store?.times.map((/** @type {string} */ t) => t.slice(0, 10)) };
});

/** @param {import('playwright-core').Page} page */
const picker = (page) => page.evaluate(() => {
  const field = /** @type {HTMLElement} */ (document.getElementById('catalog-field'));
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('catalog-select'));
  return { visible: field.checkVisibility(), names: [...select.options].map((o) => o.text), chosen: select.selectedOptions[0]?.text ?? null };
});

/** Wait until the catalog is read and the picker filled. @param {import('playwright-core').Page} page */
const pickerFilled = (page) => page.waitForFunction(() => /** @type {HTMLSelectElement} */ (document.getElementById('catalog-select')).options.length > 0);

describe('viewer catalog', { skip, timeout: 300_000 }, () => {
  const suite = viewerSuite('catalog');
  /** @type {string} */ let catalog;

  before(() => {
    // The object form with relative store URLs (resolved against the catalog's URL) ...
    writeFileSync(join(suite.tmp, 'catalog.json'), JSON.stringify({ stores: [{ name: 'Sentinel-2 months', url: 's2.zarr' }, { name: 'RGB test card', url: './rgb.zarr/' }] }));
    // ... the list form with absolute ones, and two that cannot be read.
    writeFileSync(join(suite.tmp, 'list.json'), JSON.stringify([{ name: 'Only RGB', url: `${suite.stores}/rgb.zarr` }]));
    writeFileSync(join(suite.tmp, 'broken.json'), '{"stores": [');
    writeFileSync(join(suite.tmp, 'nameless.json'), JSON.stringify([{ name: 'no url' }]));
    catalog = `${suite.stores}/catalog.json`;
  });

  test('no store: the first store opens, the picker lists the names, a pick opens its store and a reload keeps it', async () => {
    const page = await suite.pages.openViewer(`catalog=${encodeURIComponent(catalog)}`);
    await pickerFilled(page);
    assert.deepEqual(await picker(page), { visible: true, names: ['Sentinel-2 months', 'RGB test card'], chosen: 'Sentinel-2 months' });
    assert.deepEqual((await opened(page)).times?.slice(0, 2), ['2020-01-01', '2020-02-01']);
    assert.equal(new URL(page.url()).searchParams.get('store'), `${suite.stores}/s2.zarr`);

    await Promise.all([page.waitForNavigation(), page.selectOption('#catalog-select', { label: 'RGB test card' })]);
    await page.waitForFunction(() => window.__chronozarrViewer?.ready, null, { timeout: 20_000 });
    const check = async () => {
      const q = new URL(page.url()).searchParams;
      assert.equal(q.get('catalog'), catalog);
      assert.equal(q.get('store'), `${suite.stores}/rgb.zarr/`);
      assert.deepEqual((await opened(page)).times, ['2021-01-01', '2021-02-01', '2021-03-01', '2021-04-01', '2021-05-01', '2021-06-01']);
      await pickerFilled(page);
      assert.deepEqual(await picker(page), { visible: true, names: ['Sentinel-2 months', 'RGB test card'], chosen: 'RGB test card' });
      await settled(page);
      for (const [x, y] of [[5, 7], [40, 30], [77, 55]]) assert.deepEqual((await colourAt(page, x, y)).slice(0, 3), rgbAt(x, y), `pixel ${x},${y}`);
    };
    await check();
    await page.waitForFunction(() => new URL(location.href).searchParams.has('t'));  // the view is in the address now
    await page.reload();
    await page.waitForFunction(() => window.__chronozarrViewer?.ready, null, { timeout: 20_000 });
    await check();
    await page.close();
  });

  test('?store= wins over the first store; a store the catalog does not list shows as another store', async () => {
    let page = await suite.pages.openViewer(`catalog=${encodeURIComponent(catalog)}&store=${suite.stores}/rgb.zarr`);
    await pickerFilled(page);
    assert.equal((await picker(page)).chosen, 'RGB test card');
    await page.close();
    page = await suite.pages.openViewer(`catalog=${encodeURIComponent(`${suite.stores}/list.json`)}&store=${suite.stores}/s2.zarr`);
    await pickerFilled(page);
    assert.deepEqual(await picker(page), { visible: true, names: ['Other store', 'Only RGB'], chosen: 'Other store' });
    assert.equal((await opened(page)).times?.length, 10);
    await page.close();
  });

  test('embed=1 never fetches the catalog and shows no picker, with a store or without one', async () => {
    for (const store of [`&store=${suite.stores}/s2.zarr`, '']) {
      const page = await suite.pages.openViewer(`embed=1&catalog=${encodeURIComponent(catalog)}${store}`, { allowErrors: true });
      const requests = /** @type {string[]} */ ([]);
      page.on('request', (r) => requests.push(r.url()));
      await page.reload();
      await page.waitForFunction(() => window.__chronozarrViewer?.ready || window.__chronozarrViewer?.error, null, { timeout: 20_000 });
      await page.waitForTimeout(500);
      assert.ok(requests.length > 0, 'the request log works');
      assert.deepEqual(requests.filter((u) => u.endsWith('/catalog.json')), [], store);
      assert.equal((await picker(page)).visible, false);
      if (!store) assert.match(await page.textContent('#status') ?? '', /No store to show/);
      else assert.equal((await opened(page)).error, null);
      await page.close();
    }
  });

  test('a catalog that cannot be read is said so, in the status without a store and as a notice with one', async () => {
    for (const [name, reason] of /** @type {const} */ ([['broken.json', /is not JSON/], ['nameless.json', /store 1 has no "url" string/], ['missing.json', /HTTP 404/]])) {
      const page = await suite.pages.openViewer(`catalog=${encodeURIComponent(`${suite.stores}/${name}`)}`, { allowErrors: true });
      const status = await page.textContent('#status') ?? '';
      assert.match(status, new RegExp(`Could not read the catalog .*${name}: `));
      assert.match(status, reason);
      await page.close();
    }
    const page = await suite.pages.openViewer(`catalog=${encodeURIComponent(`${suite.stores}/broken.json`)}&store=${suite.stores}/s2.zarr`, { allowErrors: true });
    await page.waitForSelector('#toast:not([hidden])');
    assert.match(await page.textContent('#toast') ?? '', /Could not read the catalog .*broken\.json: it is not JSON/);
    assert.equal((await opened(page)).times?.length, 10);
    assert.equal((await picker(page)).visible, false);
    await page.close();
  });

  test('no console errors', () => assert.deepEqual(suite.consoleErrors, []));
});
