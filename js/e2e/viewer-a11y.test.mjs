// @ts-check
// The viewer by keyboard and for assistive technology (issue 17): axe-core (npm) in Debian Chromium
// finds no serious or critical violation on the full and the embed layout (with its panels and
// dialogs open), every control is reached with Tab, and the shortcuts the `?` overlay lists work.
// Run: cd js && node --test e2e/viewer-a11y.test.mjs   (also part of `npm test`).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { skip } from './browser-stores.mjs';
import { axeViolations, clickPixel, settled, viewerSuite } from './viewer-page.mjs';

describe('viewer accessibility', { skip, timeout: 300_000 }, () => {
  const suite = viewerSuite('a11y');

  test('axe: no serious or critical violation on the full layout, with the inspector, the split view and the dialogs open', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=3&p=band&b=B08&z=3`, { width: 1100, height: 720 });
    await settled(page);
    assert.deepEqual(await axeViolations(page), [], 'the viewer as it opens');
    await clickPixel(page, 100, 75);
    await clickPixel(page, 60, 40, true);
    await page.waitForSelector('.hist-list li');
    await page.click('#compare-toggle');
    await page.waitForSelector('.compare:not([hidden])');
    assert.deepEqual(await axeViolations(page), [], 'inspector, two pixels, split view');
    await page.click('#help');
    assert.deepEqual(await axeViolations(page), [], 'the shortcuts overlay');
    await page.keyboard.press('Escape');
    await page.click('#video');
    assert.deepEqual(await axeViolations(page), [], 'the video dialog');
    await page.close();
    // The narrow layout (products as a select).
    const narrow = await suite.pages.openViewer(`store=${suite.stores}/rgb.zarr`, { width: 360, height: 640 });
    await settled(narrow);
    assert.deepEqual(await axeViolations(narrow), [], 'narrow layout');
    await narrow.close();
  });

  test('axe: no serious or critical violation on the embed layout, with controls and without, dark and light', async () => {
    for (const q of ['embed=1', 'embed=1&theme=light&p=ndvi', 'embed=1&controls=0&theme=light']) {
      const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&${q}`, { width: 640, height: 480 });
      await settled(page);
      assert.deepEqual(await axeViolations(page), [], q);
      await page.close();
    }
  });

  test('every visible control is reached with Tab, in the order of the page', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=2&compare=6&p=band&b=B04&z=3`, { width: 1100, height: 720 });
    await settled(page);
    await clickPixel(page, 100, 75);
    await page.waitForSelector('.hist-list li');
    const controls = await page.evaluate(() => {
      const all = [.../** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('a[href], button, select, input, [tabindex="0"]'))];
      all.forEach((el, i) => (el.dataset.tabProbe = String(i)));
      return all.filter((el) => !el.disabled && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden').map((el) => el.dataset.tabProbe ?? '');
    });
    /** @type {(string | null)[]} */
    const reached = [];
    await page.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.blur());
    for (let i = 0; i < controls.length + 15; i++) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.dataset.tabProbe ?? null));
    }
    const missing = controls.filter((c) => !reached.includes(c));
    const names = await page.evaluate((ids) => ids.map((id) => /** @type {HTMLElement} */ (document.querySelector(`[data-tab-probe="${id}"]`)).outerHTML.slice(0, 90)), missing);
    assert.deepEqual(names, []);
    assert.ok(controls.length >= 25, `${controls.length} controls`);
    await page.close();
  });

  test('the ? overlay lists the shortcuts, and they work from the map', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr&t=2&p=true_color&z=3`, { width: 1000, height: 700 });
    await settled(page);
    await page.focus('#map');
    await page.keyboard.press('?');
    await page.waitForSelector('.help:not([hidden])');
    const rows = await page.$$eval('.help tbody tr', (r) => r.map((x) => x.textContent));
    assert.ok(rows.length >= 15, rows.join(' | '));
    assert.ok(rows.some((r) => r.includes('Compare two dates')));
    assert.equal(await page.evaluate(() => /** @type {Element} */ (document.activeElement).className), 'help-close');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => /** @type {Element} */ (document.activeElement).className), 'help-close', 'focus stays in the dialog');
    await page.keyboard.press('Escape');
    await page.waitForSelector('.help', { state: 'hidden' });
    assert.equal(await page.evaluate(() => /** @type {Element} */ (document.activeElement).id), 'map', 'focus goes back to the map');
    const state = () => page.evaluate(() => window.__chronozarrViewer.api.state());
    await page.keyboard.press('ArrowRight');
    assert.equal((await state()).t, 3);
    await page.keyboard.press('End');
    assert.equal((await state()).t, 9);
    await page.keyboard.press('Home');
    assert.equal((await state()).t, 0);
    const zoom = (await state()).cam.zoom;
    await page.keyboard.press('+');
    assert.ok(Math.abs((await state()).cam.zoom / zoom - 1.5) < 1e-9);
    // Enter inspects the pixel at the centre; Shift+Enter adds it beside.
    await page.keyboard.press('Enter');
    await page.waitForSelector('#inspector:not([hidden])');
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('Shift+Enter');
    await page.waitForFunction(() => document.querySelectorAll('.hist-list li').length === 2);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#inspector', { state: 'hidden' });
    // The split view: c, then ] and , move the divider and date B.
    await page.keyboard.press('c');
    await page.waitForFunction(() => window.__chronozarrViewer.api.compare.state?.t === 9);
    await page.keyboard.press(']');
    await page.keyboard.press(',');
    assert.deepEqual(await page.evaluate(() => window.__chronozarrViewer.api.compare.state), { t: 8, split: 0.55 });
    await page.keyboard.press(' ');
    await page.waitForFunction(() => window.__chronozarrViewer.api.state().playing);
    await page.keyboard.press(' ');
    await page.waitForFunction(() => !window.__chronozarrViewer.api.state().playing);
    await page.close();
  });

  test('no console errors', () => {
    assert.deepEqual(suite.consoleErrors, []);
  });
});
