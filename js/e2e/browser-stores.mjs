// @ts-check
// What the browser end-to-end tests share: stores the Python writer makes during the run
// (e2e/make_stores.py), `chronozarr serve` over js/ on a free port, and Debian's Chromium with
// software WebGL through playwright-core.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const here = dirname(fileURLToPath(import.meta.url));
export const jsDir = join(here, '..');
export const repo = join(jsDir, '..');
export const PY = join(repo, '.venv', 'bin', 'python');
const CLI = join(repo, '.venv', 'bin', 'chronozarr');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Why the browser tests cannot run here, or false. */
export const skip = !existsSync(CHROMIUM) ? 'no /usr/bin/chromium' : !existsSync(PY) ? 'no .venv' : false;

/**
 * Write the test stores into a new `.tmp-<prefix>-*` directory under e2e/, serve js/ (and so them)
 * and start Chromium. Returns their URLs, what the store script printed (`made`) and a `close`
 * that ends all three.
 * @param {string} prefix
 * @param {{ script?: string }} [options] the Python script that writes the stores (default make_stores.py)
 */
export async function startBrowserStores(prefix, { script = 'make_stores.py' } = {}) {
  const tmp = mkdtempSync(join(here, `.tmp-${prefix}-`));
  /** @type {import('node:child_process').ChildProcessByStdio<null, null, import('node:stream').Readable> | undefined} */
  let server;
  /** @type {import('playwright-core').Browser | undefined} */
  let browser;
  const close = async () => {
    await browser?.close();
    server?.kill();
    rmSync(tmp, { recursive: true, force: true });
  };
  try {
    const { stdout: made } = await run(PY, [join(here, script), tmp], { cwd: repo, maxBuffer: 64 * 2 ** 20 });
    const child = spawn(CLI, ['serve', jsDir, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    server = child;
    /** @type {string} */
    const base = await new Promise((resolve, reject) => {
      let text = '';
      child.stderr.on('data', (d) => {
        text += d;
        const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`server exited ${code}: ${text}`)));
    });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const stores = `${base}/${relative(jsDir, tmp)}`;
    return { tmp, base, browser, stores, made, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * What the Python reader reads at some pixels (read_expected.py): the bands with their scale and
 * offset, and per pixel its stored values at t, mask, coverage and history.
 * @typedef {{ bands: string[], scale: number[], offset: number[], pixels: { x: number, y: number, stored: number[], mask: number | null, coverage: number | null, history: number[][], history_mask: number[] | null }[] }} Expected
 */

/**
 * The JSON a Python script of e2e/ prints for `args`.
 * @param {string} script @param {(string | number)[]} args
 * @returns {Promise<any>}
 */
export async function py(script, args) {
  return JSON.parse((await run(PY, [join(here, script), ...args.map(String)], { cwd: repo })).stdout);
}

/**
 * The Python reader's values at level-0..n pixels [x, y] of `store` (a path) at level `lod`, timestep `t`.
 * @param {string} store @param {number} lod @param {number} t @param {number[][]} pixels
 * @returns {Promise<Expected>}
 */
export const readExpected = (store, lod, t, pixels) => py('read_expected.py', [store, lod, t, ...pixels.map((p) => p.join(','))]);

/**
 * Lon/lat of level-0 pixel centres [x, y] of `store` (a path), with pyproj.
 * @param {string} store @param {number[][]} pixels
 * @returns {Promise<[number, number][]>}
 */
export const lonLats = (store, pixels) => py('lonlat.py', [store, ...pixels.map((p) => p.join(','))]);
