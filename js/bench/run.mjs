// @ts-check
// Benchmark: chronozarr against zarrita 0.7.5 on the same `none` store (24 x 4 x 2765 x 2759
// uint16, zstd 5, chunk 512): one cell, a whole level-0 frame, one pixel's full history, in Node
// from disk and in Chromium over `chronozarr serve`; plus requests and sequential round trips to
// the first complete 3 x 3 view, unsharded and sharded; and in Chromium the floor under a frame:
// its chunks fetched without decoding, with the machine's CPU per frame. Writes results/<date>.json.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zarr from 'zarrita';
import { FileSystemStore } from '@zarrita/storage';
import { openStore } from '../src/index.js';
import { asFetch, python, serve } from '../test/helpers.js';
import { runOps } from './ops.js';
import { warmPageCache } from './page-cache.mjs';
import { document, row, stats, versions } from './record.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const jsRoot = join(here, '..');
const work = join(here, 'work');
const reps = Number(process.env.BENCH_REPS ?? 11);
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const LATENCY_MS = 1000;

if (!existsSync(join(work, 'none-sharded.zarr', 'zarr.json'))) {
  console.error('writing the benchmark stores (once)...');
  const made = spawnSync(python, [join(here, 'make_store.py'), work], { stdio: 'inherit' });
  if (made.status !== 0) process.exit(made.status ?? 1);
}
const storePath = join(work, 'none.zarr');
// The same store under a second name, for zarrita in Chromium: the two readers must not share
// the browser's HTTP cache (each would get the other's chunks without a request).
const alias = join(work, 'none-zarrita.zarr');
if (!existsSync(alias)) {
  try {
    lstatSync(alias);
  } catch {
    symlinkSync('none.zarr', alias);
  }
}

/** @typedef {Awaited<ReturnType<typeof runOps>>} OpsSummary */
/**
 * @type {{ date: string, machine: Record<string, unknown>, store: Record<string, unknown>, zarrita: string, nodeDisk?: OpsSummary,
 *   nodeDiskWorkers2?: OpsSummary, firstView?: Record<string, Record<string, unknown>>, chromium?: { version: string } & Record<string, any> }}
 */
const results = {
  date: new Date().toISOString(),
  machine: { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), platform: `${os.platform()} ${os.release()}` },
  store: { shape: [24, 4, 2765, 2759], dtype: 'uint16', codec: 'zstd 5', chunk: 512, encoding: 'none', level0Cells: 36 },
  zarrita: JSON.parse(readFileSync(join(jsRoot, 'node_modules/zarrita/package.json'), 'utf8')).version,
};

const zarritaDisk = () => zarr.open.v3(zarr.root(new FileSystemStore(storePath)).resolve('0/data'), { kind: 'array' });
console.error('node, disk, workers 0');
warmPageCache(join(storePath, '0'));
results.nodeDisk = await runOps({ openChrono: () => openStore(storePath, { workers: 0 }), openZarrita: zarritaDisk, zarr, reps });
console.error('node, disk, workers 2');
warmPageCache(join(storePath, '0'));
results.nodeDiskWorkers2 = await runOps({ openChrono: () => openStore(storePath, { workers: 2 }), openZarrita: zarritaDisk, zarr, reps });

const server = await serve(jsRoot);
try {
  // Requests and sequential round trips to the first complete 3 x 3 view: every request waits
  // LATENCY_MS before it is sent, so floor(elapsed / LATENCY_MS) counts the round trips on the
  // critical path (decoding nine chunks takes a small fraction of one).
  /** @param {string[]} log @returns {(url: string, init?: RequestInit) => Promise<Response>} */
  const delayed = (log) => (url, init) => {
    log.push(String(url));
    return new Promise((r) => setTimeout(r, LATENCY_MS)).then(() => fetch(url, init));
  };
  const firstView = /** @type {Record<string, Record<string, unknown>>} */ ({});
  results.firstView = firstView;
  for (const name of ['none.zarr', 'none-sharded.zarr']) {
    const url = `${server.url}/bench/work/${name}`;
    /** @type {string[]} */
    const log = [];
    const start = performance.now();
    const store = await openStore(url, { fetch: asFetch(delayed(log)), workers: 0 });
    const cells = [];
    for (let r = 2; r < 5; r++) for (let c = 2; c < 5; c++) cells.push(store.getCell(0, r, c, 5));
    await Promise.all(cells);
    const elapsed = performance.now() - start;
    store.close();
    /** @type {string[]} */
    const zlog = [];
    const zstart = performance.now();
    const arr = await zarr.open.v3(zarr.root(new zarr.FetchStore(url, { fetch: (req) => delayed(zlog)(req.url, req) })).resolve('0/data'), { kind: 'array' });
    const zcells = [];
    for (let r = 2; r < 5; r++) for (let c = 2; c < 5; c++) zcells.push(arr.getChunk([5, 0, r, c]));
    await Promise.all(zcells);
    const zelapsed = performance.now() - zstart;
    firstView[name] = {
      chronozarr: { requests: log.length, roundTrips: Math.floor(elapsed / LATENCY_MS), elapsedMs: Math.round(elapsed) },
      zarrita: { requests: zlog.length, roundTrips: Math.floor(zelapsed / LATENCY_MS), elapsedMs: Math.round(zelapsed) },
      latencyMs: LATENCY_MS,
    };
  }
  if (existsSync(CHROMIUM)) {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      page.on('pageerror', (e) => console.error('page error:', e));
      await page.goto(`${server.url}/bench/page.html`);
      await page.waitForFunction(() => window.ready === true);
      const chromiumResults = /** @type {{ version: string } & Record<string, any>} */ ({ version: browser.version() });
      results.chromium = chromiumResults;
      for (const workers of [2, 0]) {
        console.error(`chromium, http, workers ${workers}`);
        warmPageCache(join(storePath, '0'));
        chromiumResults[`workers${workers}`] = await page.evaluate(([u, w, n, z]) => window.bench(u, w, n, z), /** @type {[string, number, number, string]} */ ([`${server.url}/bench/work/none.zarr`, workers, reps, `${server.url}/bench/work/none-zarrita.zarr`]));
      }
      chromiumResults.fetchOnlyFrame = await fetchFloor(page, `${server.url}/bench/work/none.zarr`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.stop();
}

/**
 * A level-0 frame's chunks fetched and not decoded, `reps` times (other timesteps each time): the
 * median wall time, and the CPU the whole machine spent per frame (every Chromium process and the
 * server; Linux /proc/stat), the share of a frame no reader can avoid on this machine.
 * @param {import('playwright-core').Page} page @param {string} url
 */
async function fetchFloor(page, url) {
  const busyMs = () => {
    if (!existsSync('/proc/stat')) return null;
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const ticks = f.reduce((a, b) => a + b, 0) - f[3] - f[4]; // all but idle and iowait
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  };
  /** @type {number[]} */
  const runs = [];
  const before = busyMs();
  for (let i = 0; i < reps; i++) runs.push(await page.evaluate(([u, t]) => window.fetchFrame(u, t, 6, 6), /** @type {[string, number]} */ ([url, (i * 5 + 2) % 24])));
  const after = busyMs();
  const median = [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  return { medianMs: Number(median.toFixed(1)), machineCpuMsPerFrame: before == null || after == null ? null : Math.round((after - before) / reps), runsMs: runs.map((v) => Number(v.toFixed(1))) };
}

mkdirSync(join(here, 'results'), { recursive: true });
const file = join(here, 'results', `${results.date.slice(0, 10)}-node${process.versions.node.split('.')[0]}.json`);
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
/** @param {string} label @param {OpsSummary | undefined} r */
const line = (label, r) => r && console.log(`${label.padEnd(28)} cell ${r.cell.chronozarr.medianMs} vs ${r.cell.zarrita.medianMs} ms (${r.cell.ratio}x) | frame ${r.frame.chronozarr.medianMs} vs ${r.frame.zarrita.medianMs} ms (${r.frame.ratio}x; zarr.get ${r.frame.zarritaGet.medianMs}) | history ${r.history.chronozarr.medianMs} vs ${r.history.zarrita.medianMs} ms (${r.history.ratio}x)`);
line('node disk workers 0', results.nodeDisk);
line('node disk workers 2', results.nodeDiskWorkers2);
if (results.chromium) {
  for (const w of [2, 0]) line(`chromium http workers ${w}`, results.chromium[`workers${w}`]);
  const floor = results.chromium.fetchOnlyFrame;
  console.log(`chromium fetch only (a frame's 36 chunks, no decode): ${floor.medianMs} ms, machine CPU ${floor.machineCpuMsPerFrame} ms per frame`);
}
console.log(JSON.stringify(results.firstView));
writeFileSync(join(here, 'results', 'reader.json'), `${JSON.stringify(readerDocument(results), null, 2)}\n`);
console.log(`wrote ${file} and results/reader.json`);

/** The same figures in the format of bench/record.py, for bench/report.py. @param {typeof results} r */
function readerDocument(r) {
  const ops = { cell: 'one level-0 chunk', frame: 'level-0 frame (36 chunks)', history: 'pixel history (24 dates)' };
  /** @type {Record<string, string>} */
  const work = { chronozarr: 'chronozarr JS reader: openStore().getCell / readPixel', zarrita: 'zarrita 0.7.5: getChunk per chunk (frame, cell), zarr.get (history)', zarritaGet: 'zarrita zarr.get of the whole frame' };
  const groups = { 'Node, disk, no workers': r.nodeDisk, 'Node, disk, 2 workers': r.nodeDiskWorkers2, 'Chromium, HTTP, 2 workers': r.chromium?.workers2, 'Chromium, HTTP, no workers': r.chromium?.workers0 };
  const rows = [];
  for (const [group, g] of Object.entries(groups)) {
    if (!g) continue;
    for (const [op, label] of Object.entries(ops)) {
      for (const [tool, m] of Object.entries(g[op])) {
        if (tool === 'ratio') continue;
        rows.push(row(group, label, tool === 'zarritaGet' ? 'zarrita (zarr.get)' : tool, tool === 'chronozarr' ? 'subject' : 'peer', work[tool], { ms: stats(m.runsMs, 2) }));
      }
      if (op === 'frame' && group.startsWith('Chromium') && r.chromium?.fetchOnlyFrame) {
        rows.push(row(group, label, "fetch only, the frame's 36 chunks", 'floor', 'the 36 chunk bodies fetched at once, no decode (page.html fetchFrame)', { ms: stats(r.chromium.fetchOnlyFrame.runsMs) }));
      }
    }
  }
  return document({
    benchmark: 'reader',
    title: 'JS reader: chronozarr against zarrita on one none store, in Node and Chromium',
    setup: { store: '24 x 4 x 2765 x 2759 uint16, none, zstd 5, chunk 512 (make_store.py)', reps: `${reps} repetitions (BENCH_REPS), fresh handles each`, chromium: r.chromium?.version ?? 'not run' },
    metrics: [{ key: 'ms', label: 'time', unit: 'ms', primary: true }],
    rows,
    versions: versions(jsRoot, ['zarrita', 'numcodecs', 'playwright-core']),
  });
}
