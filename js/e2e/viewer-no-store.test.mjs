// @ts-check
// The viewer opened without a store (issue 26): it says why, its store buttons (Compare, PNG,
// Video) stay disabled until a store is open, and the speed list is whole either way.
// Run: cd js && node --test e2e/viewer-no-store.test.mjs   (also part of `npm test`).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { skip } from './browser-stores.mjs';
import { settled, viewerSuite } from './viewer-page.mjs';

const BUTTONS = ['#compare-toggle', '#export', '#video'];
/** The speeds offered, written out here rather than taken from playback.js. */
const SPEEDS = ['1/s', '2/s', '3/s', '4/s', '5/s', '6/s', '7/s', '8/s', '9/s', '10/s', '11/s', '12/s', '13/s', '14/s', '15/s', '20/s', '24/s', '30/s', '40/s', '48/s', '60/s'];

describe('viewer without a store', { skip, timeout: 120_000 }, () => {
  const suite = viewerSuite('nostore');

  test('no store: the store buttons are disabled and the speed list is filled', async () => {
    const page = await suite.pages.openViewer('', { allowErrors: true });
    assert.match(await page.textContent('#status') ?? '', /No store to show/);
    for (const b of BUTTONS) assert.equal(await page.isDisabled(b), true, b);
    assert.deepEqual(await page.$$eval('#speed option', (o) => o.map((x) => x.textContent)), SPEEDS);
    assert.equal(await page.inputValue('#speed'), '4');
    await page.close();
  });

  test('with a store the same buttons work', async () => {
    const page = await suite.pages.openViewer(`store=${suite.stores}/s2.zarr`);
    await settled(page);
    for (const b of BUTTONS) assert.equal(await page.isDisabled(b), false, b);
    assert.equal((await page.$$('#speed option')).length, SPEEDS.length);  // filled once, not twice
    await page.close();
  });

  test('no console errors', () => assert.deepEqual(suite.consoleErrors, []));
});
