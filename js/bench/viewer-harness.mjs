// @ts-check
// What the viewer benchmarks share: the store they open, `chronozarr view` serving it next to
// js/viewer, Debian's Chromium with software WebGL, and the 3 x 3 cell view they open.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The store directory named on the command line (default: the demo's), or exit 2 naming the fix. @param {string | undefined} arg */
export function storeFromArgs(arg) {
  const storeDir = resolve(arg ?? join(repo, 'demo-output', 'demo.zarr'));
  if (!existsSync(join(storeDir, 'zarr.json'))) {
    console.error(`no store at ${storeDir}; run \`make demo\` or \`python -m chronozarr.demo DIR\` first`);
    process.exit(2);
  }
  return storeDir;
}

/** `chronozarr view STORE` on a free port: the viewer's URL (with ?store=) and the process. @param {string} storeDir */
export async function serveViewer(storeDir) {
  const server = spawn(join(repo, '.venv', 'bin', 'chronozarr'), ['view', storeDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  /** @type {string} */
  const url = await new Promise((ok, fail) => {
    let text = '';
    const take = (/** @type {Buffer} */ d) => {
      text += d;
      const m = /Viewer: (\S+)/.exec(text);
      if (m) ok(m[1]);
    };
    server.stdout.on('data', take);
    server.stderr.on('data', take);
    server.on('exit', (code) => fail(new Error(`chronozarr view exited ${code}: ${text}`)));
  });
  return { url, server };
}

/**
 * Chromium, first made to open a page with a WebGL2 context, as a browser that has been running
 * has done (under SwiftShader the very first context costs the GPU process 0.3 to 1 s), unless cold.
 */
export async function launchBrowser({ cold = false } = {}) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  if (!cold) {
    const warm = await browser.newContext();
    await (await warm.newPage()).evaluate(() => document.createElement('canvas').getContext('webgl2'));
    await warm.close();
    await new Promise((r) => setTimeout(r, 1000));
  }
  return browser;
}

/** The viewer URL of a 3 x 3 cell view at level 0 (256 px cells, 1 CSS px per pixel) centred on level-0 pixel (384, 384). */
/** @param {string} viewerUrl @param {string} storeDir */
export function firstViewUrl(viewerUrl, storeDir) {
  const block = JSON.parse(readFileSync(join(storeDir, 'zarr.json'), 'utf8')).attributes.chronozarr;
  const [a, , c, , e, f] = block.levels[0].transform;
  return `${viewerUrl}&t=0&z=1&c=${c + a * 384},${f + e * 384}`;
}

/** The viewport both benchmarks use. */
export const VIEWPORT = { width: 700, height: 790 };

/** Quantile p of values, to 0.1 ms; null when there are none. @param {number[]} values @param {number} p */
export function q(values, p) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] * 10) / 10;
}
