// @ts-check
// The reader in Debian's Chromium, with decode workers, against `chronozarr serve`: every cell
// of a sharded star-delta store and a none store equals the Python reader. The page imports the
// package as plain ES modules through an import map; a second run loads the modules from another
// origin, so the decode workers start through a same-origin blob: URL.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { crop, expectedArray, fixtures, serve } from '../test/helpers.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const pkg = fileURLToPath(new URL('..', import.meta.url));
const fx = fixtures();

const page = (/** @type {string} */ moduleBase) => `<!doctype html>
<meta charset="utf-8">
<script type="importmap">
${JSON.stringify({
  imports: {
    chronozarr: `${moduleBase}/pkg/src/index.js`,
    'numcodecs/zstd': `${moduleBase}/pkg/node_modules/numcodecs/dist/zstd.js`,
    'numcodecs/blosc': `${moduleBase}/pkg/node_modules/numcodecs/dist/blosc.js`,
    'numcodecs/gzip': `${moduleBase}/pkg/node_modules/numcodecs/dist/gzip.js`,
    fflate: `${moduleBase}/pkg/node_modules/fflate/esm/browser.js`,
  },
})}
</script>
<script type="module">
  import * as chronozarr from 'chronozarr';
  window.chronozarr = chronozarr;
  window.ready = true;
</script>
`;

describe('Chromium with decode workers', { skip: !existsSync(CHROMIUM) && `no browser at ${CHROMIUM}` }, () => {
  /** @type {string} */
  let root;
  /** @type {import('../test/helpers.js').Server} */
  let server;
  /** @type {import('playwright-core').Browser} */
  let browser;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'chronozarr-e2e-'));
    cpSync(join(pkg, 'src'), join(root, 'pkg/src'), { recursive: true });
    cpSync(join(pkg, 'node_modules/numcodecs'), join(root, 'pkg/node_modules/numcodecs'), { recursive: true });
    cpSync(join(pkg, 'node_modules/fflate'), join(root, 'pkg/node_modules/fflate'), { recursive: true });
    for (const name of ['u16-sd-shard-zstd', 'u8-none-shard-gzip', 'i16-none-plain-blosc']) cpSync(join(fx.stores, name), join(root, 'stores', name), { recursive: true });
    server = await serve(root);
    const port = new URL(server.url).port;
    writeFileSync(join(root, 'same.html'), page(''));
    writeFileSync(join(root, 'cross.html'), page(`http://127.0.0.1:${port}`));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /**
   * Read every data entry of a store in the page; returns the cropped values and the stats.
   * @param {string} pageUrl @param {string} storeUrl @param {string} name
   */
  async function readInPage(pageUrl, storeUrl, name) {
    const context = await browser.newContext();
    const tab = await context.newPage();
    /** @type {string[]} */
    const errors = [];
    tab.on('pageerror', (e) => errors.push(String(e)));
    try {
      await tab.goto(pageUrl);
      await tab.waitForFunction(() => window.ready === true, null, { timeout: 20_000 });
      const entries = fx.index[name].entries.filter((e) => e[0] === 'data');
      const result = await tab.evaluate(
        async ({ storeUrl, entries }) => {
          const store = await window.chronozarr.openStore(storeUrl, { workers: 2 });
          const values = [];
          for (const [, lod, t, row, col] of entries) {
            const cell = await store.getCell(lod, row, col, t);
            values.push(Array.from(cell.data));
          }
          const stats = store.stats();
          store.close();
          return { values, stats, after: store.stats(), dtype: store.dtype };
        },
        { storeUrl, entries },
      );
      assert.deepEqual(errors, []);
      return { ...result, entries };
    } finally {
      await context.close();
    }
  }

  /** The values read in the page are the Python reader's, decoded in two workers that close() ends. @param {string} name @param {Awaited<ReturnType<typeof readInPage>>} read */
  function check(name, { values, entries, stats, after: closed }) {
    const info = fx.index[name];
    const buffer = fx.expected(name);
    const nBand = info.bands.length;
    entries.forEach((entry, i) => {
      const [, lod, , , , , shape] = entry;
      const cs = info.levels[lod].chunkSize;
      const Type = { uint8: Uint8Array, uint16: Uint16Array, int16: Int16Array, float32: Float32Array }[info.dtype];
      const got = crop(Type.from(values[i]), nBand, cs, shape[1], shape[2]);
      assert.deepEqual(Array.from(got), Array.from(expectedArray(buffer, info.dtype, entry)), `${name} entry ${entry.slice(0, 5)}`);
    });
    assert.equal(stats.workers, 2, 'a pool of two workers');
    assert.ok(stats.workerDecodes > 0, `decoded in the workers (${stats.workerDecodes} of ${stats.decodes})`);
    assert.equal(closed.workers, 0, 'close() ends the pool');
  }

  for (const name of ['u16-sd-shard-zstd', 'u8-none-shard-gzip', 'i16-none-plain-blosc']) {
    test(`${name}: same-origin workers`, async () => {
      check(name, await readInPage(`${server.url}/same.html`, `${server.url}/stores/${name}`, name));
    });
  }

  test('modules from another origin: the worker starts through a blob: URL', async () => {
    const port = new URL(server.url).port;
    const name = 'u16-sd-shard-zstd';
    check(name, await readInPage(`http://localhost:${port}/cross.html`, `http://localhost:${port}/stores/${name}`, name));
  });
});
