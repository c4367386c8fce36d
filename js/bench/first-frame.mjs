// @ts-check
// Where the time to the viewer's first complete frame goes: each opening is traced (Chrome
// tracing, all processes), and the window from the store's metadata in hand to the first
// complete 3 x 3 frame is split by process and thread, with the GPU process's main thread split
// into display compositing (SkiaOutputSurfaceImplOnGpu::SwapBuffers, the page's own composite)
// and the WebGL command buffer (the viewer's uploads and draws).
//
//   node bench/first-frame.mjs [STORE_DIR] [--reps N] [--json OUT]
//
// Same server, browser, viewport and view as bench/scrub.mjs (bench/viewer-harness.mjs).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { warmPageCache } from './page-cache.mjs';
import { VIEWPORT, firstViewUrl, launchBrowser, q, serveViewer, storeFromArgs } from './viewer-harness.mjs';
import { split } from './trace-split.mjs';

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : null;
const repsAt = args.indexOf('--reps');
const reps = repsAt >= 0 ? Math.max(1, Number(args.splice(repsAt, 2)[1])) : 7;
const storeDir = storeFromArgs(args[0]);
const CATEGORIES = ['toplevel', 'blink.user_timing', 'devtools.timeline', 'gpu', 'viz', 'loading'];

const { url: viewerUrl, server } = await serveViewer(storeDir);
const browser = await launchBrowser();
const scratch = mkdtempSync(join(os.tmpdir(), 'cz-first-frame-'));
/** @type {ReturnType<typeof split>[]} */
const runs = [];
try {
  warmPageCache(storeDir);
  for (let i = 0; i < reps; i++) runs.push(await tracedOpening(join(scratch, `trace-${i}.json`)));
} finally {
  await browser.close();
  server.kill();
  rmSync(scratch, { recursive: true, force: true });
}

/** The median over the openings of what `pick` reads. @param {(r: any) => number} pick */
const middle = (pick) => q(runs.map(pick), 0.5);
const threads = [...new Set(runs.flatMap((r) => Object.keys(r.busyMs)))];
const summary = {
  openedToCompleteMs: middle((r) => r.openedToCompleteMs),
  navigationToCompleteMs: middle((r) => r.navigationToCompleteMs),
  busyMs: Object.fromEntries(threads.map((t) => /** @type {[string, number | null]} */ ([t, middle((r) => r.busyMs[t] ?? 0)])).sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))),
  gpuMain: {
    displaySwapMs: middle((r) => r.gpuMain.displaySwapMs),
    webglMs: middle((r) => r.gpuMain.webglMs),
  },
};
const report = { date: new Date().toISOString(), machine: `${os.cpus()[0]?.model} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`, chromium: browser.version(), store: storeDir, reps, summary, runs };
console.log(JSON.stringify(summary, null, 2));
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(report, null, 2)}\n`);

/** Open the viewer in a fresh context with tracing on; the split of the opened -> complete window. @param {string} path */
async function tracedOpening(path) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  await browser.startTracing(page, { path, categories: CATEGORIES });
  await page.goto(firstViewUrl(viewerUrl, storeDir));
  await page.waitForFunction(() => window.__chronozarrViewer?.firstCompleteAt != null, null, { timeout: 120_000 });
  const marks = await page.evaluate(() => {
    const h = window.__chronozarrViewer;
    // Both are set once the first complete frame is: the page opened the store before it.
    return /** @type {import('./trace-split.mjs').Marks} */ ({ opened: h.openedAt, complete: h.firstCompleteAt });
  });
  await browser.stopTracing();
  await context.close();
  return split(JSON.parse(readFileSync(path, 'utf8')), marks);
}
