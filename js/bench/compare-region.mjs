// @ts-check
// The area benchmark of the browser comparison (issue 39), run by `node bench/compare.mjs --ops
// region`: an area's whole series (every date, 4 bands: count, mean, std, min, max) on the demo
// series, in Debian's Chromium under the comparison's network profiles:
//   chronozarr  readRegionSeries on the store with the history array (bench/pages/region-page.js)
//   chronozarr  the same on the store without it (every date's data and mask chunks)
//   zarr-layer  queryData of the same polygon for every date, data and mask, summarised on the
//               page (bench/pages/region-zarr-layer-page.js)
// Stores: bench/region.py's (the demo series, encoding none, without and with --history), written
// once into bench/work by make_store.py --demo. The area is bench/region.py's centred box of
// REGION level-0 pixels a side; zarr-layer is given it as a lon/lat polygon of its corners. Each
// run is a fresh context (empty HTTP cache): the page opens the store (zarr-layer: both layers
// loaded, the network idle), then the series is timed from the call to the statistics, its
// requests and bytes counted from CDP. Every tool's statistics are compared with the subject's
// before a figure is kept. Floor: the subject's requests made again at once on a blank page.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import proj4 from 'proj4';
import { python } from '../test/helpers.js';
import { counts, idle, mark, newTab, replay, since } from './compare-net.mjs';
import { document, row, stats, versions } from './record.mjs';
import { launchBrowser, repo } from './viewer-harness.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const jsRoot = join(here, '..');
/** @typedef {import('./compare-net.mjs').Profile} Profile */
/** @typedef {{ ms: number, level: number, source: string, count: number[][], mean: (number | null)[][], std: (number | null)[][], min: (number | null)[][], max: (number | null)[][] }} Answer */
/** @typedef {'history' | 'chunks' | 'zarr-layer'} Tool */

const LABEL = { history: 'chronozarr readRegionSeries, store with the history array', chunks: 'chronozarr readRegionSeries, no history array', 'zarr-layer': 'zarr-layer queryData per date' };
const WORK = {
  history: 'openStore, then readRegionSeries(box): every date from the time-major history array and its mask copy (shard index, then the inner chunks by range)',
  chunks: 'the same call on the store without the array: every date\'s data and mask chunks under the box, background rank',
  'zarr-layer': '@carbonplan/zarr-layer 0.5 on MapLibre at level 0: queryData(polygon) of every date (all asked at once) on the data (4 bands) and on the mask (a second layer), joined by pixel, scaled, summarised on the page',
};
const TOOLS = /** @type {Tool[]} */ (['history', 'chunks', 'zarr-layer']);
const RETRIES = 2;

/** The stores (made once) and what the pages need of them. @param {boolean} quick */
export function regionStores(quick) {
  const made = spawnSync(python, [join(here, 'make_store.py'), join(here, 'work'), '--demo', ...(quick ? ['--small'] : [])], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`make_store.py --demo failed:\n${made.stderr}`);
  const [plain = '', history = ''] = made.stdout.trim().split('\n').filter((line) => line.endsWith('.zarr'));
  const root = JSON.parse(readFileSync(join(here, 'work', plain, 'zarr.json'), 'utf8')).attributes;
  const [a, , c, , e, f] = root.chronozarr.levels[0].transform;
  const [nTime, , height, width] = JSON.parse(readFileSync(join(here, 'work', plain, '0', 'data', 'zarr.json'), 'utf8')).shape;
  const epsg = Number(/EPSG:(\d+)/.exec(String(root.crs ?? root.chronozarr.crs))?.[1]);
  const utm = `+proj=utm +zone=${epsg % 100}${epsg >= 32700 ? ' +south' : ''} +datum=WGS84 +units=m +no_defs`;
  const size = quick ? 32 : 256;
  const top = Math.floor((height - size) / 2), left = Math.floor((width - size) / 2);
  const box = [c + a * left, f + e * (top + size), c + a * (left + size), f + e * top]; // west, south, east, north
  return { plain, history, nTime, height, width, a, c, e, f, utm, size, top, left, box };
}

/** @typedef {ReturnType<typeof regionStores>} Stores */

/** The page URL of each tool. @param {Stores} s @param {string} base */
function pageUrls(s, base) {
  const store = (/** @type {string} */ name) => `${base}/bench/work/${name}`;
  const [west, south, east, north] = s.box;
  const [lon, lat] = proj4(s.utm, 'WGS84', [(west + east) / 2, (south + north) / 2]);
  // 2 CSS px per level-0 pixel: at 1 zarr-layer may draw (and so query) level 1.
  const zoom = 1 + Math.log2((40075016.686 * Math.cos((lat * Math.PI) / 180)) / (512 * s.a));
  const bounds = [s.c, s.f + s.e * s.height, s.c + s.a * s.width, s.f].join(',');
  return {
    history: `${base}/bench/pages/region.html?store=${store(s.history)}`,
    chunks: `${base}/bench/pages/region.html?store=${store(s.plain)}`,
    'zarr-layer': `${base}/bench/pages/region-zarr-layer.html?store=${store(s.plain)}&lon=${lon}&lat=${lat}&zoom=${zoom}&proj4=${encodeURIComponent(s.utm)}&bounds=${bounds}&times=${s.nTime}&scale=0.0001`,
  };
}

/** The box's corners in lon/lat, as zarr-layer takes an area. @param {Stores} s */
function polygon(s) {
  const [w, so, ea, n] = s.box;
  const ring = [[w, so], [ea, so], [ea, n], [w, n], [w, so]].map((p) => proj4(s.utm, 'WGS84', p));
  return { type: 'Polygon', coordinates: [ring] };
}

/**
 * One cold run of one tool: a fresh context, the page opened and settled, then the series timed.
 * @param {import('playwright-core').Browser} browser @param {Profile} profile @param {Stores} s @param {string} url @param {Tool} tool
 * @param {number | null} lod the level chronozarr reads (null: its default)
 */
async function once(browser, profile, s, url, tool, lod) {
  const tab = await newTab(browser, profile);
  try {
    await tab.page.goto(url);
    await tab.page.waitForFunction(() => {
      if (window.__region?.error) throw new Error(window.__region.error);
      return window.__region?.ready;
    }, null, { timeout: 120_000, polling: 20 });
    await idle(tab.net);
    const from = mark(tab.net);
    const arg = tool === 'zarr-layer' ? polygon(s) : s.box;
    const answer = /** @type {Answer} */ (await tab.page.evaluate(([a, k]) => /** @type {NonNullable<typeof window.__region.series>} */ (window.__region.series)(/** @type {any} */ (a), k ?? undefined), /** @type {[any, number | null]} */ ([arg, lod])));
    const log = since(tab.net, from);
    return { answer, log, ...counts(log) };
  } finally {
    await tab.context.close();
  }
}

/**
 * Whether two answers agree: counts exactly, statistics to 1e-9 relative; the first difference otherwise.
 * @param {Answer} ours @param {Answer} theirs @returns {string | null}
 */
export function disagreement(ours, theirs) {
  for (let t = 0; t < ours.count.length; t++) {
    for (let b = 0; b < ours.count[t].length; b++) {
      if (ours.count[t][b] !== theirs.count[t]?.[b]) return `valid pixels at date ${t}, band ${b}: ${ours.count[t][b]} vs ${theirs.count[t]?.[b]}`;
      for (const k of /** @type {const} */ (['mean', 'std', 'min', 'max'])) {
        const x = ours[k][t][b], y = theirs[k][t]?.[b];
        if (x == null && y == null) continue;
        if (x == null || y == null || Math.abs(x - y) > 1e-9 * Math.max(Math.abs(x), Math.abs(y)) + 1e-12) return `${k} at date ${t}, band ${b}: ${x} vs ${y}`;
      }
    }
  }
  return null;
}

/**
 * Every tool under every profile, `runs` cold runs each (values checked on the first profile's
 * first runs); the rows in bench/record.py's format.
 * zarr-layer is left out when chronozarr is asked for another level (`lod`).
 * @param {{ browser: import('playwright-core').Browser, base: string, profiles: Profile[], runs: number, stores: Stores, lod: number | null }} o
 */
export async function regionRows({ browser, base, profiles, runs, stores: s, lod }) {
  const urls = pageUrls(s, base);
  const tools = lod == null ? TOOLS : TOOLS.filter((t) => t !== 'zarr-layer');
  /** @type {ReturnType<typeof row>[]} */
  const rows = [];
  let checked = 0;
  for (const profile of profiles) {
    /** @type {Record<Tool, Awaited<ReturnType<typeof once>>[]>} */
    const measured = { history: [], chunks: [], 'zarr-layer': [] };
    /** @type {Record<Tool, string[]>} */
    const retried = { history: [], chunks: [], 'zarr-layer': [] };
    for (let i = 0; i < runs; i++) {
      for (const tool of tools) {
        // A peer's run whose values differ from the subject's is not kept: it is run again (at
        // most RETRIES times, counted in the row's facts), then the benchmark stops.
        for (let attempt = 0; ; attempt++) {
          const run = await once(browser, profile, s, urls[tool], tool, lod);
          console.error(`${profile.name}: ${tool} ${run.answer.ms.toFixed(0)} ms, ${run.requests} requests, ${(run.bytes / 1e6).toFixed(1)} MB (level ${run.answer.level}, ${run.answer.source})`);
          const wrong = tool === 'history' ? null : disagreement(measured.history[i].answer, run.answer);
          if (!wrong) {
            measured[tool].push(run);
            if (tool !== 'history') checked++;
            break;
          }
          if (attempt >= RETRIES) throw new Error(`${LABEL[tool]} disagrees with ${LABEL.history}: ${wrong}`);
          console.error(`  ${tool}: values differ (${wrong}); run again`);
          retried[tool].push(wrong);
        }
      }
    }
    const at = lod == null ? 'px' : `level-0 px read at level ${lod}`;
    const op = `region series (${s.size} x ${s.size} ${at}, ${s.nTime} dates, 4 bands): whole series`;
    for (const tool of tools) {
      const list = measured[tool];
      const facts = { level: list[0].answer.level, source: list[0].answer.source, runs_dropped_for_wrong_values: retried[tool] };
      rows.push(row(profile.name, op, LABEL[tool], tool === 'history' ? 'subject' : 'peer', WORK[tool], {
        ms: stats(list.map((r) => r.answer.ms)), requests: stats(list.map((r) => r.requests), 0), bytes: stats(list.map((r) => r.bytes), 0),
      }, { facts }));
    }
    const floor = await replay(browser, profile, base, measured.history.slice(0, 1).map((r) => r.log));
    rows.push(row(profile.name, op, `fetch only, ${LABEL.history}'s requests`, 'floor', 'the same finished requests made at once on a blank page, bodies read, nothing decoded or summarised', { ms: stats(floor) }, { target: true }));
  }
  return { rows, checked };
}

/** The setup lines of the results document. @param {Stores} s @param {number} runs @param {number} checked */
export function regionSetup(s, runs, checked) {
  return {
    store: `the demo series (chronozarr.demo): ${s.nTime} x 4 x ${s.height} x ${s.width} uint16 with a mask, encoding none, 256 px cells (${s.plain}); the same with the history array (${s.history})`,
    region: `the centred box of ${s.size} x ${s.size} level-0 pixels (rows ${s.top}-${s.top + s.size}, columns ${s.left}-${s.left + s.size}), edges on pixel edges; chronozarr's default level for it is level 0 (the finest within the 512 x 512 pixel budget)`,
    runs: `${runs} cold runs per tool and profile, round-robin, each in a fresh context: the page opened and idle, then the series timed from the call to the statistics (the open is not counted)`,
    values: `${checked} comparisons of every date's and band's count, mean, std, min and max with the subject's (counts exact, the rest to 1e-9), before any figure is kept`,
    targets: 'issue 39: with the history array, the whole series in <= 12 requests and <= 2 s at 10 Mbit/s, and ahead of every peer (< 1.0x)',
  };
}

/**
 * The whole area benchmark: stores, page bundles, `chronozarr serve js/`, Chromium, the rows, and
 * results/browser-region.json (or `out`).
 * @param {{ quick: boolean, profiles: Profile[], runs: number, out?: string | null, lod?: number | null }} o
 */
export async function runRegionBench({ quick, profiles, runs, out, lod = null }) {
  const s = regionStores(quick);
  bundleRegionPages();
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
  const browser = await launchBrowser();
  try {
    const { rows, checked } = await regionRows({ browser, base, profiles, runs, stores: s, lod });
    const doc = document({
      benchmark: lod == null ? 'browser-region' : `browser-region-lod${lod}`,
      title: lod == null ? 'Browser: an area\'s whole series, chronozarr against zarr-layer, under network profiles' : `Browser: an area's whole series read at level ${lod}, with and without the history array`,
      setup: { ...regionSetup(s, runs, checked), browser: `${browser.version()} (Debian's Chromium, headless), playwright-core; network profiles by CDP Network.emulateNetworkConditions`, server: '`chronozarr serve js/` on 127.0.0.1' },
      metrics: [{ key: 'ms', label: 'time', unit: 'ms', primary: true }, { key: 'requests', label: 'requests', unit: 'count' }, { key: 'bytes', label: 'bytes', unit: 'B' }],
      rows,
      versions: { ...versions(jsRoot, ['@carbonplan/zarr-layer', 'maplibre-gl', 'esbuild', 'playwright-core']), chromium: browser.version() },
    });
    mkdirSync(join(here, 'results'), { recursive: true });
    const path = out ?? join(here, 'results', `${doc.benchmark}.json`);
    writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
    console.log(`wrote ${path}`);
  } finally {
    await browser.close();
    server.kill();
  }
}

/** The two region pages' bundles into work/pages (the reader's codecs by import map, its decode worker beside it). */
function bundleRegionPages() {
  const esbuild = join(jsRoot, 'node_modules', '.bin', 'esbuild');
  const outdir = join(here, 'work', 'pages');
  const external = ['numcodecs', 'numcodecs/*', 'zstddec', 'node:*', './file-fetch.js'].map((e) => `--external:${e}`);
  const runs = [
    [join(here, 'pages', 'region-zarr-layer-page.js'), `--outdir=${outdir}`],
    [join(here, 'pages', 'region-page.js'), `--outdir=${outdir}`, ...external],
    [join(jsRoot, 'src', 'reader', 'decode-worker.js'), `--outfile=${join(outdir, 'decode-worker.js')}`, ...external],
  ];
  for (const files of runs) {
    const done = spawnSync(esbuild, [...files, '--bundle', '--format=esm', '--platform=browser', '--minify', '--log-level=warning'], { encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`esbuild failed:\n${done.stderr}`);
  }
}
