// @ts-check
// Scrubbing benchmark of the browser viewer (issue 7): Chromium, a local server, CDP throttling.
//
//   node bench/scrub.mjs [STORE_DIR] [--json OUT] [--profile unthrottled|50|10] [--open-reps N] [--cold-browser]
//
// STORE_DIR defaults to ../demo-output/demo.zarr (make it with `make demo` or
// `python -m chronozarr.demo DIR`). The store is served next to js/viewer by `chronozarr view`.
// The browser first opens a throwaway page with a WebGL2 context, as a browser that has been
// running has done (under SwiftShader the very first context costs the GPU process 0.3 to 1 s);
// --cold-browser skips that. The store's files are read once per profile so that the server finds
// them in the OS page cache. Per network profile, in fresh browser contexts (empty HTTP cache):
//   first frame / first complete frame: ms from navigation start to the first painted frame (the
//     first with a cell on it) and to the first frame with every visible cell of the asked level
//     (a 3 x 3 cell view), the median of --open-reps openings (default 5; each in a new context),
//     with the reader's requests and bytes at that frame;
//   paced scrub: after the prefetch around t has finished, 20 steps forward one every 500 ms;
//     step latency = time from the step to the frame switching to it (median, p95), and the time to
//     its paint; bytes and aborted requests during the scrub;
//   burst scrub: 20 steps one per 100 ms; steps shown, steps skipped, latency to the last step,
//     bytes and aborted requests.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { warmPageCache } from './page-cache.mjs';
import { VIEWPORT, firstViewUrl, launchBrowser, q, serveViewer, storeFromArgs } from './viewer-harness.mjs';

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : null;
const profileAt = args.indexOf('--profile');
const onlyProfile = profileAt >= 0 ? args.splice(profileAt, 2)[1] : null;
const repsAt = args.indexOf('--open-reps');
const openReps = repsAt >= 0 ? Math.max(1, Number(args.splice(repsAt, 2)[1])) : 5;
const coldAt = args.indexOf('--cold-browser');
const coldBrowser = coldAt >= 0 && Boolean(args.splice(coldAt, 1));
const storeDir = storeFromArgs(args[0]);
const PROFILES = [
  { name: 'unthrottled', mbit: 0, rtt: 0 },
  { name: '50 Mbit/s + 40 ms', mbit: 50, rtt: 40 },
  { name: '10 Mbit/s + 100 ms', mbit: 10, rtt: 100 },
];
const STEPS = 20;

/** @typedef {typeof PROFILES[number]} Profile */
/** @typedef {{ bytes: number, requests: number, aborted: number }} Net the store's requests a page made */
/** @typedef {import('playwright-core').Page} Page */

const { url: viewerUrl, server } = await serveViewer(storeDir);
const browser = await launchBrowser({ cold: coldBrowser });
const results = [];
try {
  for (const profile of PROFILES) {
    if (onlyProfile && !profile.name.startsWith(onlyProfile)) continue;
    results.push(await runProfile(profile));
  }
} finally {
  await browser.close();
  server.kill();
}
const report = { date: new Date().toISOString(), machine: `${os.cpus()[0]?.model} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()}`, chromium: browser.version(), store: storeDir, browserWarmup: !coldBrowser, openReps, results };
console.log(JSON.stringify(report, null, 2));
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(report, null, 2));

/** The openings, prefetch and scrubs of the viewer under one network profile. @param {Profile} profile */
async function runProfile(profile) {
  warmPageCache(storeDir);
  /** @type {Awaited<ReturnType<typeof open>>[]} */
  const opens = [];
  let { context, page, net } = await newTab(profile);
  for (let i = 0; i < openReps; i++) {
    if (i > 0) {
      await context.close();
      ({ context, page, net } = await newTab(profile));
    }
    opens.push(await open(page, net));
  }
  /** @param {'firstFrameMs' | 'firstCompleteMs' | 'completeAfterOpenStartMs' | 'completeAfterOpenedMs'} key */
  const middle = (key) => q(opens.map((o) => o[key]), 0.5);
  const first = {
    firstFrameMs: middle('firstFrameMs'),
    firstCompleteMs: middle('firstCompleteMs'),
    completeAfterOpenStartMs: middle('completeAfterOpenStartMs'),
    completeAfterOpenedMs: middle('completeAfterOpenedMs'),
    runs: opens,
  };
  const last = opens[opens.length - 1];
  const t0 = Date.now();
  // Let the prefetch around t start (after the first complete frame) and finish (bounded).
  await page.waitForFunction(() => window.__chronozarrViewer.api.store.stats().prefetching, null, { timeout: 5_000, polling: 10 }).catch(() => {});
  await page.waitForFunction(() => {
    const s = window.__chronozarrViewer.api.store.stats();
    return !s.prefetching && s.pending === 0;
  }, null, { timeout: 180_000, polling: 250 }).catch(() => {});
  const prefetchMs = Date.now() - t0;
  const prefetchBytes = net.bytes - last.bytes;

  const paced = await scrub(page, net, 500);
  await page.evaluate(() => window.__chronozarrViewer.api.setT(40));
  await page.waitForFunction(() => window.__chronozarrViewer.api.state().settled, null, { timeout: 120_000 });
  await page.waitForTimeout(300);
  const burst = await scrub(page, net, 100);
  await context.close();
  return {
    profile: profile.name,
    open: first,
    prefetch: { afterOpenUntilIdleMs: prefetchMs, bytes: prefetchBytes },
    paced,
    burst,
  };
}

/** A page in a fresh context (empty HTTP cache), its network throttled to the profile and counted. @param {Profile} profile */
async function newTab(profile) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: false });
  if (profile.mbit) {
    const bps = (profile.mbit * 1e6) / 8;
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: profile.rtt, downloadThroughput: bps, uploadThroughput: bps });
  }
  /** @type {Net} */
  const net = { bytes: 0, requests: 0, aborted: 0 };
  /** @type {Map<string, boolean>} */
  const isStore = new Map();
  cdp.on('Network.requestWillBeSent', (e) => isStore.set(e.requestId, /\/store\//.test(e.request.url)));
  cdp.on('Network.loadingFinished', (e) => {
    if (!isStore.get(e.requestId)) return;
    net.bytes += e.encodedDataLength;
    net.requests++;
  });
  cdp.on('Network.loadingFailed', (e) => {
    if (isStore.get(e.requestId) && e.canceled) net.aborted++;
  });
  return { context, page, net };
}

/** Open the viewer on a 3 x 3 cell view and time its first frames. @param {Page} page @param {Net} net */
async function open(page, net) {
  await page.goto(firstViewUrl(viewerUrl, storeDir));
  await page.waitForFunction(() => window.__chronozarrViewer?.firstCompleteAt != null, null, { timeout: 120_000 });
  const first = await page.evaluate(() => {
    // Every mark is set by the first complete frame, which the wait above saw.
    const h = /** @type {Required<typeof window.__chronozarrViewer>} */ (window.__chronozarrViewer);
    const f = /** @type {import('../lib/scene.js').FrameRecord} */ (h.frames.find((x) => x.complete));
    return {
      firstFrameMs: h.firstFrameAt,
      firstCompleteMs: h.firstCompleteAt,
      // From the start of openStore (page, modules and worker start excluded) to the complete frame.
      completeAfterOpenStartMs: h.firstCompleteAt - h.openStartAt,
      // From the store's metadata in hand (its one request done) to the complete frame.
      completeAfterOpenedMs: h.firstCompleteAt - h.openedAt,
      cells: f.cells.length,
      lod: f.lod,
      readerAtComplete: h.firstCompleteReads,
    };
  });
  // What the network had carried when the page answered (a little after the frame).
  return { ...first, bytes: net.bytes, requests: net.requests };
}

/** STEPS steps one per `everyMs`: when each step's frame was swapped in and painted, and the requests. @param {Page} page @param {Net} net @param {number} everyMs */
async function scrub(page, net, everyMs) {
  const before = { ...net };
  const from = await page.evaluate(() => window.__chronozarrViewer.api.state().t);
  const log = await page.evaluate(async ([n, every]) => {
    const h = window.__chronozarrViewer;
    const nT = h.api.store.times.length;
    const startFrame = h.frames.length;
    /** @type {{ t: number, at: number }[]} */
    const steps = [];
    let t = h.api.state().t;
    for (let i = 0; i < n; i++) {
      t = (t + 1) % nT;
      const at = performance.now();
      h.api.setT(t);
      steps.push({ t, at });
      await new Promise((r) => setTimeout(r, every));
    }
    const last = steps[steps.length - 1];
    const deadline = performance.now() + 60_000;
    while (!(h.api.state().settled && h.frames.at(-1)?.t === last.t) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const all = h.frames.slice(startFrame);
    const frames = all.map((f) => ({ t: f.t, at: f.at, swapAt: f.swapAt, complete: f.complete }));
    const mixed = all.filter((f) => f.cells.some((c) => c.t !== f.t)).length;
    return { steps, frames, mixed };
  }, /** @type {[number, number]} */ ([STEPS, everyMs]));
  /** @type {number[]} */
  const shown = [];
  /** @type {number[]} */
  const swap = [];
  /** @type {number[]} */
  const paint = [];
  for (const s of log.steps) {
    const f = log.frames.find((x) => x.t === s.t && x.at >= s.at);
    if (!f) continue;
    shown.push(s.t);
    swap.push(Math.max(0, f.swapAt - s.at));
    paint.push(f.at - s.at);
  }
  const lastStep = log.steps[log.steps.length - 1];
  const lastFrame = log.frames.find((x) => x.t === lastStep.t && x.at >= lastStep.at);
  return {
    everyMs,
    from,
    stepsShown: shown.length,
    stepsSkipped: STEPS - shown.length,
    latencyMs: { median: q(swap, 0.5), p95: q(swap, 0.95), max: Math.max(...swap) },
    paintMs: { median: q(paint, 0.5), p95: q(paint, 0.95) },
    lastStepMs: lastFrame ? lastFrame.at - lastStep.at : null,
    mixedFrames: log.mixed,
    bytes: net.bytes - before.bytes,
    requests: net.requests - before.requests,
    aborted: net.aborted - before.aborted,
  };
}
