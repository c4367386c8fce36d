// @ts-check
// The browser comparison (issue 18): the chronozarr viewer against @carbonplan/zarr-layer on
// MapLibre (same `none` store) and a COG-per-date page on geotiff.js (the store's export), in
// Debian's Chromium, served by `chronozarr serve`, under CDP network profiles.
//
//   node bench/compare.mjs [--quick] [--json OUT] [--profile unthrottled|50|10|phone] [--tools viewer,cog] [--ops open,scrub,history]
//
// --tools: the pages to measure (default all: viewer, viewer-history, zarr-layer, cog, maplibre);
// viewer-history is the viewer on the same series written with the history array (--history).
// --ops: the operations to measure (default all); e.g. `--ops history --profile 10 --json
// bench/results/history.json` measures only the pixel history at 10 Mbit/s.
//
// --ops region: only the area benchmark (compare-region.mjs: readRegionSeries with and without the
// history array against zarr-layer's queryData, on the demo series; results/browser-region.json),
// unthrottled and at 10 Mbit/s unless --profile names one; --region-runs N cold runs (default 3);
// --region-lod K: chronozarr reads the area at level K (zarr-layer left out; results/browser-region-lodK.json).
//
// --history-runs N: the pixel history measured N times (each on its own cold open; default 1),
// the rows giving the median.
//
// --quick (or BENCH_QUICK=1): a 12-date 1100 x 1000 store, 3 openings, 6 steps, and the
// unthrottled and 50 Mbit/s profiles only.
//
// Per profile and page, each in fresh browser contexts (empty HTTP cache):
//   cold open      navigation to the first complete frame of a 3 x 3-cell view at level 0, the
//                  median of 7 openings (3 with --quick or BENCH_QUICK=1), requests and bytes;
//   paced scrub    12 steps (6 quick), one per 500 ms, on a page whose open has settled: step
//                  latency from the ask to the frame of that date;
//   burst scrub    the same at one step per 100 ms: latency of the last step;
//   pixel history  right after a cold open, the time to the whole chart of one pixel; and again on
//                  a settled page (a cold open, then no request in flight for 500 ms, at most
//                  20 s): a person who looks before clicking, by when the viewer has read ahead
//                  what it reads once a frame is complete (the history's shard indexes among it).
// Floors: every operation's finished requests made again at once on a blank page, throttled
// alike, bodies read and nothing else. A row of the viewer that misses a target is traced once
// (all processes), and the busiest threads go into the row's profile. Writes
// results/browser.json in the format of bench/record.py.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { python } from '../test/helpers.js';
import { PROFILES, counts, idle, mark, newTab, replay, since } from './compare-net.mjs';
import { describe, firstComplete, frames, history, isViewer, step, urls } from './compare-pages.mjs';
import { document, machine, quick, row, stats, versions } from './record.mjs';
import { split, summary } from './trace-split.mjs';
import { warmPageCache } from './page-cache.mjs';
import { launchBrowser, repo } from './viewer-harness.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const jsRoot = join(here, '..');
const args = process.argv.slice(2);
const option = (/** @type {string} */ name) => (args.includes(name) ? args[args.indexOf(name) + 1] : null);
const QUICK = quick() || args.includes('--quick');
const OPENS = QUICK ? 3 : 7;
const STEPS = QUICK ? 6 : 12;
const FLOOR_OPENS = QUICK ? 1 : 2;
// Paced steps whose requests are replayed for the floor (each replay waits out the profile).
const FLOOR_STEPS = 6;
const HISTORY_RUNS = Math.max(1, Number(option('--history-runs') ?? 1));
// The quick run leaves out the slowest profiles (10 Mbit/s and the phone), where one opening takes seconds.
// --profile NAME (e.g. phone) runs that profile alone, quick or not.
const RUN_PROFILES = QUICK && !option('--profile') ? PROFILES.slice(0, 2) : PROFILES;
/** @typedef {import('./compare-pages.mjs').Kind} Kind */
/** @typedef {import('./compare-net.mjs').Profile} Profile */
/** @typedef {Awaited<ReturnType<typeof runTool>>} Measured */
/** @typedef {ReturnType<typeof row> & { profile?: Record<string, unknown>, target?: boolean }} Row */
const TOOLS = /** @type {Kind[]} */ ((option('--tools') ?? 'viewer,viewer-history,zarr-layer,cog,maplibre').split(','));
const OPS = (option('--ops') ?? 'open,scrub,history').split(',');
/**
 * The subject of an operation. A pixel history is the history array's row: the viewer on the store
 * with it, compared with the same viewer without it as the baseline. Every other operation is the
 * plain viewer's; the viewer on the history store is shown beside it as other work, not as a peer.
 * @param {string} op @returns {Kind}
 */
const subjectOf = (op) => ((op.startsWith('pixel') && TOOLS.includes('viewer-history')) || !TOOLS.includes('viewer') ? 'viewer-history' : 'viewer');
/** The other viewer of a non-history operation: measured beside the subject, not compared with it. @param {string} op @param {Kind} tool */
const otherWork = (op, tool) => isViewer(tool) && tool !== subjectOf(op) && !op.startsWith('pixel');
/** The operation is measured in this run. @param {'open' | 'scrub' | 'history'} op */
const want = (op) => OPS.includes(op);
/** @type {Record<Kind, string>} */
const LABEL = { viewer: 'chronozarr viewer', 'viewer-history': 'chronozarr viewer, store with the history array', 'zarr-layer': 'zarr-layer on MapLibre', cog: 'geotiff.js, COG per date', maplibre: 'chronozarr layer on MapLibre' };
/** @type {Record<Kind, string>} */
const WORK = {
  viewer: 'the chronozarr viewer (js/viewer): true colour of B04/B03/B02 in WebGL, decode workers, prefetch around t',
  'viewer-history': 'the chronozarr viewer on the same series encoded with --history: a pixel history is readPoint on the time-major history array (shard index, then the inner chunk)',
  'zarr-layer': '@carbonplan/zarr-layer on MapLibre GL: B04 with a colour map, reprojected from UTM (proj4 and bounds options), bundled by esbuild',
  cog: 'geotiff.js on the COG export: readRasters of the visible window (B04/B03/B02) on a worker pool, painted on a 2D canvas; 256 kB blocks and stale reads dropped, not aborted (geotiff.js 3.0.5 fails tiles with its 64 kB default and after aborts); esbuild bundle',
  maplibre: "chronozarr's MapLibre layer (js/maplibre) on the same map and view as zarr-layer's: B04 stretched over the same range, decode workers; esbuild bundle, codecs by import map",
};
const CATEGORIES = ['toplevel', 'blink.user_timing', 'devtools.timeline', 'gpu', 'viz', 'loading'];

if (OPS.join() === 'region') {
  const { runRegionBench } = await import('./compare-region.mjs');
  const only = option('--profile');
  const profiles = PROFILES.filter((p) => (only ? p.name.startsWith(only) : p.name === 'unthrottled' || p.name.startsWith('10 ')));
  const lod = option('--region-lod');
  await runRegionBench({ quick: QUICK, profiles, runs: Number(option('--region-runs') ?? (QUICK ? 1 : 3)), out: option('--json'), lod: lod == null ? null : Number(lod) });
  process.exit(0);
}

// ---------------------------------------------------------------- setup: store, bundles, server

const made = spawnSync(python, [join(here, 'make_store.py'), join(here, 'work'), '--browser', ...(QUICK ? ['--small'] : []), ...(TOOLS.includes('viewer-history') ? ['--history'] : [])], { encoding: 'utf8' });
if (made.status !== 0) throw new Error(`make_store.py failed:\n${made.stderr}`);
const [storeName = '', historyName = ''] = made.stdout.trim().split('\n').filter((line) => line.endsWith('.zarr'));
const storeDir = join(here, 'work', storeName);
const cogName = storeName.replace(/\.zarr$/, '-cogs');
const d = describe(storeDir, join(here, 'work', cogName));
bundle();
const server = spawn(join(repo, '.venv', 'bin', 'chronozarr'), ['serve', jsRoot, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
/** @type {string} */
const base = await new Promise((ok, fail) => {
  let text = '';
  server.stderr.on('data', (chunk) => {
    text += chunk;
    const m = / at (http:\/\/\S+?)\/? /.exec(text);
    if (m) ok(m[1]);
  });
  server.on('exit', (code) => fail(new Error(`chronozarr serve exited ${code}: ${text}`)));
});
const pages = urls(d, base, `${base}/bench/work/${storeName}`, `${base}/bench/work/${cogName}`, `${base}/bench/work/${historyName}`);
const browser = await launchBrowser();
/** @type {Row[]} */
const rows = [];
try {
  for (const profile of RUN_PROFILES) {
    const only = option('--profile');
    if (only && !profile.name.startsWith(only)) continue;
    warmPageCache(storeDir);
    warmPageCache(d.cogDir);
    /** @type {Partial<Record<Kind, Measured>>} */
    const measured = {};
    for (const tool of TOOLS) measured[tool] = await runTool(profile, tool);
    rows.push(...profileRows(profile, measured));
    await profileMisses(profile, rows.filter((r) => r.group === profile.name));
  }
} finally {
  await browser.close();
  server.kill();
}

const doc = document({
  // A run of some operations only is a document of its own, beside the full comparison's.
  benchmark: OPS.length === 3 ? 'browser' : `browser-${OPS.join('-')}`,
  title: OPS.length === 3 ? 'Browser: the viewer against zarr-layer and a COG-per-date page, under network profiles' : `Browser (${OPS.join(', ')} only): the viewer against zarr-layer and a COG-per-date page`,
  setup: {
    store: `${d.nTime} x 4 x ${d.height} x ${d.width} uint16, encoding none, zstd 5, 256 px chunks (${storeName}); the same with the history array (${historyName || 'not measured'}); COGs: \`chronozarr export-cog\` of level 0 (${cogName})`,
    view: '700 x 790 CSS px, 1 px per level-0 pixel, centred on pixel (384, 384): 3 x 3 cells of 256 px; the COG page reads the same window',
    browser: `${browser.version()} (Debian's Chromium, headless, SwiftShader WebGL), playwright-core; network profiles by CDP Network.emulateNetworkConditions`,
    server: '`chronozarr serve js/` on 127.0.0.1 (pages, bundles and data from one origin)',
    runs: `${OPENS} cold openings per page and profile; ${STEPS} steps per scrub; floors replayed in a fresh context of the same profile (${FLOOR_OPENS} openings, the first ${Math.min(STEPS, FLOOR_STEPS)} paced steps); ${HISTORY_RUNS} pixel histories of each kind, each on its own cold open`,
  },
  metrics: [{ key: 'ms', label: 'time', unit: 'ms', primary: true }, { key: 'requests', label: 'requests', unit: 'count' }, { key: 'bytes', label: 'bytes', unit: 'B' }],
  rows,
  versions: { ...versions(jsRoot, ['@carbonplan/zarr-layer', 'maplibre-gl', 'geotiff', 'esbuild', 'playwright-core', 'numcodecs']), chromium: browser.version() },
});
mkdirSync(join(here, 'results'), { recursive: true });
const out = option('--json') ?? join(here, 'results', 'browser.json');
writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
console.log(`wrote ${out}`);

// ---------------------------------------------------------------- one page under one profile

/** Every operation of one page under one profile, and the floors of their requests. @param {Profile} profile @param {Kind} tool */
async function runTool(profile, tool) {
  console.error(`${profile.name}: ${tool}`);
  const opens = [];
  for (let i = 0; i < (want('open') ? OPENS : 0); i++) {
    const tab = await open(profile, tool);
    opens.push({ ms: tab.ms, picture: tab.picture, pictureAfterRoot: tab.pictureAfterRoot, store: storeRequests(tab.net.log, tool, tab.completeAt), ...counts(tab.net.log), log: [...tab.net.log] });
    await tab.context.close();
  }
  /** @type {Awaited<ReturnType<typeof scrub>>} */
  const none = { everyMs: 0, latency: [], shown: 0, logs: [], perStep: [] };
  let [paced, burst] = [none, none];
  if (want('scrub')) {
    const scrubbing = await open(profile, tool);
    await idle(scrubbing.net);
    paced = await scrub(scrubbing, tool, 500);
    verbose(`  ${tool} paced: ${paced.shown}/${STEPS} shown`);
    await idle(scrubbing.net);
    burst = await scrub(scrubbing, tool, 100);
    verbose(`  ${tool} burst: last step ${burst.latency.at(-1)} ms`);
    await scrubbing.context.close();
  }
  /** @type {{ ms: number, log: import('./compare-net.mjs').Logged[] }[]} */
  const clicks = [];
  /** @type {typeof clicks} */
  const settledClicks = [];
  for (let i = 0; i < (want('history') ? HISTORY_RUNS : 0); i++) {
    clicks.push(await click(profile, tool, false));
    settledClicks.push(await click(profile, tool, true));
  }
  const historyLog = clicks[0]?.log ?? [];
  const settledLog = settledClicks[0]?.log ?? [];
  // The floors: each measured operation's requests replayed, in groups split back after.
  const groups = {
    open: opens.slice(0, FLOOR_OPENS).map((o) => o.log),
    paced: paced.logs.slice(0, FLOOR_STEPS),
    burst: want('scrub') ? [burst.logs.at(-1) ?? []] : [],
    history: want('history') ? [historyLog] : [],
    settled: want('history') ? [settledLog] : [],
  };
  const replays = await replay(browser, profile, base, Object.values(groups).flat());
  const take = (/** @type {number} */ n) => replays.splice(0, n);
  const floors = { open: take(groups.open.length), paced: take(groups.paced.length), burst: take(groups.burst.length)[0], history: take(groups.history.length)[0], settled: take(groups.settled.length)[0] };
  /** @param {typeof clicks} list */
  const summed = (list) => ({ ms: list.map((c) => c.ms), requests: list.map((c) => counts(c.log).requests), bytes: list.map((c) => counts(c.log).bytes) });
  return { opens, paced, burst, history: summed(clicks), settled: summed(settledClicks), floors };
}

/**
 * One pixel history on a fresh cold open: right after its first complete frame, or once the page
 * has settled (no request for 500 ms, at most 20 s); ms to the whole chart, and its requests.
 * @param {Profile} profile @param {Kind} tool @param {boolean} settle
 */
async function click(profile, tool, settle) {
  const tab = await open(profile, tool);
  if (settle) await idle(tab.net);
  const from = mark(tab.net);
  const ms = await history(tab.page, tool, d);
  const log = since(tab.net, from);
  verbose(`  ${tool} history${settle ? ' (settled)' : ''}: ${ms} ms, ${log.length} requests`);
  await tab.context.close();
  return { ms, log };
}

/** A fresh tab on the tool's page, once its first frame is complete. @param {Profile} profile @param {Kind} tool */
async function open(profile, tool) {
  const tab = await newTab(browser, profile);
  await tab.page.goto(pages[tool]);
  const { complete: ms, picture } = await firstComplete(tab.page, tool);
  // The first picture counted from the request for the store's first object (its metadata; for
  // the COG page its first file), in the page's clock.
  const origin = await tab.page.evaluate(() => performance.timeOrigin);
  const first = tab.net.log.find((e) => isStoreObject(e.url, tool));
  const pictureAfterRoot = first ? picture - (first.sentAt - origin) : null;
  verbose(`  ${tool} open ${ms.toFixed(0)} ms (picture ${picture.toFixed(0)} ms), ${tab.net.log.length} requests`);
  return { ...tab, ms, picture, pictureAfterRoot, completeAt: origin + ms };
}

/** A request for an object of the store (or of the COG export), not for a page's own files. @param {string} url @param {Kind} tool */
function isStoreObject(url, tool) {
  return url.includes(`/bench/work/${tool === 'cog' ? cogName : tool === 'viewer-history' ? historyName : storeName}/`);
}

/**
 * The store's requests sent before the first complete frame was shown, and how many of them its
 * frame and its coarse picture needed (the distinct chunks at the first date; metadata not counted).
 * @param {import('./compare-net.mjs').Logged[]} log @param {Kind} tool @param {number} completeAt epoch ms
 */
function storeRequests(log, tool, completeAt) {
  const objects = log.filter((e) => isStoreObject(e.url, tool) && e.sentAt <= completeAt);
  const chunks = new Set(objects.filter((e) => /\/data\/c\/0\//.test(e.url)).map((e) => `${e.url} ${e.range ?? ''}`));
  return { requests: objects.length, frameChunks: chunks.size };
}

/**
 * STEPS steps one per `everyMs`: per step the latency to its frame, and its requests.
 * @param {Awaited<ReturnType<typeof newTab>>} tab @param {Kind} tool @param {number} everyMs
 */
async function scrub(tab, tool, everyMs) {
  const shown = await frames(tab.page, tool);
  let t = shown.at(-1)?.t ?? 0;
  /** @type {{ t: number, from: import('./compare-net.mjs').Mark, at: number }[]} */
  const steps = [];
  for (let i = 0; i < STEPS; i++) {
    t = (t + 1) % d.nTime;
    steps.push({ t, from: mark(tab.net), at: await step(tab.page, tool, t) });
    await new Promise((r) => setTimeout(r, everyMs));
  }
  const last = steps[steps.length - 1];
  const deadline = Date.now() + 120_000;
  let all = await frames(tab.page, tool);
  while (!all.some((f) => f.t === last.t && f.at >= last.at) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    all = await frames(tab.page, tool);
  }
  const latency = steps.map((s, i) => {
    const f = all.find((x) => x.t === s.t && x.at >= s.at && (i + 1 === steps.length || x.at < steps[i + 1].at));
    return f ? f.at - s.at : null;
  });
  const logs = steps.map((s, i) => since(tab.net, s.from, steps[i + 1]?.from));
  return { everyMs, latency, shown: latency.filter((v) => v != null).length, logs, perStep: logs.map(counts) };
}

// ---------------------------------------------------------------- rows

/** The rows of one profile: each operation's figures per page, then their floors. @param {Profile} profile @param {Partial<Record<Kind, Measured>>} measured */
function profileRows(profile, measured) {
  /** @type {Row[]} */
  const out = [];
  /** @type {[string, (m: Measured) => Record<string, unknown>, (m: Measured) => (number | undefined)[]][]} */
  const ops = [
    ['cold open: first complete frame', (m) => ({ ms: stats(m.opens.map((o) => o.ms)), requests: stats(m.opens.map((o) => o.requests), 0), bytes: stats(m.opens.map((o) => o.bytes), 0) }), (m) => m.floors.open],
    ['cold open: first picture', (m) => ({ ms: stats(m.opens.map((o) => o.picture)) }), () => []],
    [`paced scrub, 1 step / 500 ms: step latency`, (m) => ({ ms: stats(m.paced.latency), requests: stats(m.paced.perStep.map((c) => c.requests), 0), bytes: stats(m.paced.perStep.map((c) => c.bytes), 0) }), (m) => m.floors.paced],
    [`burst scrub, 1 step / 100 ms: last-step latency`, (m) => ({ ms: stats([m.burst.latency.at(-1)]), requests: stats([sum(m.burst.perStep, 'requests')], 0), bytes: stats([sum(m.burst.perStep, 'bytes')], 0) }), (m) => [m.floors.burst]],
    [`pixel history (${d.nTime} dates): whole chart`, (m) => ({ ms: stats(m.history.ms), requests: stats(m.history.requests, 0), bytes: stats(m.history.bytes, 0) }), (m) => [m.floors.history]],
    [`pixel history (${d.nTime} dates), clicked on a settled page: whole chart`, (m) => ({ ms: stats(m.settled.ms), requests: stats(m.settled.requests, 0), bytes: stats(m.settled.bytes, 0) }), (m) => [m.floors.settled]],
  ];
  const measuredOps = ops.filter(([op]) => want(op.startsWith('pixel') ? 'history' : op.startsWith('cold') ? 'open' : 'scrub'));
  for (const [op, values, floor] of measuredOps) {
    for (const [tool, m] of /** @type {[Kind, Measured][]} */ (Object.entries(measured))) {
      const facts = op.startsWith('burst') ? { steps_shown: m.burst.shown, steps: STEPS, aborted: sum(m.burst.perStep, 'aborted') } : op.startsWith('paced') ? { steps_shown: m.paced.shown, steps: STEPS } : op.endsWith('first picture') ? pictureFacts(profile, m) : op.endsWith('complete frame') ? openFacts(m) : undefined;
      const same = otherWork(op, tool) ? { same_work: false } : {};
      out.push(row(profile.name, op, LABEL[tool], tool === subjectOf(op) ? 'subject' : 'peer', WORK[tool], values(m), { ...same, ...(facts ? { facts } : {}) }));
    }
    for (const [tool, m] of /** @type {[Kind, Measured][]} */ (Object.entries(measured))) {
      if (op.endsWith('first picture')) continue; // its bound is in the row's facts
      out.push(row(profile.name, op, `fetch only, ${LABEL[tool]}'s requests`, 'floor', `the same finished requests made at once on a blank page, bodies read, nothing decoded or drawn`, { ms: stats(floor(m)) }, { target: tool === subjectOf(op) }));
    }
  }
  return out;
}

/**
 * What the first picture took from the store's first request, against the bound for it:
 * two round trips and the transfer of 300 kB at the profile's bandwidth.
 * @param {Profile} profile @param {Measured} m
 */
function pictureFacts(profile, m) {
  const after = m.opens.map((o) => o.pictureAfterRoot).filter((v) => v != null);
  const bound = 2 * profile.rtt + (profile.mbit ? (300e3 * 8) / (profile.mbit * 1e6) * 1000 : 0);
  return { ms_after_first_store_request: stats(after), bound_ms: Math.round(bound) };
}

/** Store requests made by the first complete frame, and the distinct chunks of the first date among them. @param {Measured} m */
function openFacts(m) {
  return { store_requests: stats(m.opens.map((o) => o.store.requests), 0), first_date_chunks: stats(m.opens.map((o) => o.store.frameChunks), 0) };
}

/** @param {string} text */
function verbose(text) {
  if (process.env.BENCH_VERBOSE) console.error(text);
}

/** @template {string} K @param {Record<K, number>[]} list @param {K} key */
function sum(list, key) {
  return list.reduce((s, c) => s + c[key], 0);
}

/** Trace the viewer once on each operation that misses a target; the busiest threads go in its row. */
/** @param {Profile} profile @param {Row[]} block */
async function profileMisses(profile, block) {
  for (const subject of block.filter((r) => r.kind === 'subject')) {
    const same = block.filter((r) => r.op === subject.op && r !== subject);
    const ms = (/** @type {Row} */ r) => /** @type {{ median?: number } | undefined} */ (r.values.ms)?.median ?? 0;
    const missed = same.some((r) => (r.kind === 'peer' && r.same_work && ms(r) && ms(subject) >= ms(r)) || (r.kind === 'floor' && r.target && ms(r) && ms(subject) > 1.2 * ms(r)));
    if (!missed || subject.op.startsWith('burst')) continue;
    const tool = subjectOf(subject.op);
    const tab = await newTab(browser, profile);
    const isOpen = subject.op.startsWith('cold open');
    if (!isOpen) {
      await tab.page.goto(pages[tool]);
      await firstComplete(tab.page, tool);
      await idle(tab.net);
    }
    await browser.startTracing(tab.page, { categories: CATEGORIES });
    if (isOpen) {
      await tab.page.goto(pages[tool]);
      await firstComplete(tab.page, tool);
    } else if (subject.op.startsWith('pixel')) await history(tab.page, tool, d);
    else await scrub(tab, tool, 500);
    const trace = JSON.parse((await browser.stopTracing()).toString('utf8'));
    await tab.context.close();
    const result = split(trace, null);
    subject.profile = { method: 'one traced repetition, all Chromium processes, busy ms per thread (merged top-level tasks)', ...result, summary: summary(result) };
  }
}

/**
 * The pages' bundles (esbuild, minified as a site would ship them) into work/pages; chronozarr's
 * layer page leaves the codecs to its import map, as the viewer page does, and finds its decode
 * worker (the viewer's bundle of it) beside it.
 */
function bundle() {
  const esbuild = join(jsRoot, 'node_modules', '.bin', 'esbuild');
  const outdir = join(here, 'work', 'pages');
  const external = ['numcodecs', 'numcodecs/*', 'zstddec', 'node:*', './file-fetch.js'].map((e) => `--external:${e}`);
  const runs = [
    [join(here, 'pages', 'zarr-layer-page.js'), join(here, 'pages', 'cog-page.js'), `--outdir=${outdir}`],
    [join(here, 'pages', 'chronozarr-layer-page.js'), `--outdir=${outdir}`, ...external],
    [join(jsRoot, 'src', 'reader', 'decode-worker.js'), `--outfile=${join(outdir, 'decode-worker.js')}`, ...external],
    [join(jsRoot, 'node_modules', 'geotiff', 'dist-module', 'worker', 'decoder.js'), `--outfile=${join(outdir, 'geotiff-decoder.js')}`],
  ];
  for (const files of runs) {
    const done = spawnSync(esbuild, [...files, '--bundle', '--format=esm', '--platform=browser', '--minify', '--log-level=warning'], { encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`esbuild failed:\n${done.stderr}`);
  }
}
