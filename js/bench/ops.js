// @ts-check
// The benchmark operations, shared by Node (run.mjs) and the Chromium page (page.html): the same
// reads through chronozarr and through zarrita on the same `none` store, fresh handles and caches
// for every repetition, median of the repetitions.

const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Milliseconds `fn` takes. @param {() => Promise<unknown>} fn */
async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Bring a fresh handle to steady state (codecs loaded, decode workers up and ready: until then the
 * reader decodes on the calling thread) on a cell never timed.
 * @param {any} store a chronozarr store @param {any} array a zarrita array
 * @param {number} gridRows @param {number} gridCols @param {number} nTime
 */
async function warm(store, array, gridRows, gridCols, nTime) {
  const t = nTime - 1;
  while (store.stats().workersReady < store.stats().workers) await new Promise((resolve) => setTimeout(resolve, 5));
  await store.getCell(0, gridRows - 1, gridCols - 1, t);
  await array.getChunk([t, 0, gridRows - 1, gridCols - 1]);
}

/**
 * @param {object} o
 * @param {() => Promise<any>} o.openChrono a fresh chronozarr store
 * @param {() => Promise<any>} o.openZarrita a fresh zarrita array for level 0 data
 * @param {any} o.zarr the zarrita module
 * @param {number} o.reps
 */
export async function runOps({ openChrono, openZarrita, zarr, reps = 5 }) {
  const probe = await openChrono();
  const { gridRows, gridCols, width, height } = probe.levels[0];
  const nTime = probe.times.length;
  probe.close();
  // Warm up both (WebAssembly compilation, page cache, connections).
  {
    const s = await openChrono();
    await s.getCell(0, 0, 0, 0);
    s.close();
    const a = await openZarrita();
    await a.getChunk([0, 0, 0, 0]);
  }
  /** @type {Record<string, Record<string, number[]>>} milliseconds of each run, per operation and reader */
  const out = { cell: { chronozarr: [], zarrita: [] }, frame: { chronozarr: [], zarrita: [], zarritaGet: [] }, history: { chronozarr: [], zarrita: [] } };
  for (let i = 0; i < reps; i++) {
    const t = (3 + i * 5) % nTime;
    const row = (i + 1) % gridRows;
    const col = (i * 2 + 1) % gridCols;
    const s = await openChrono();
    const a = await openZarrita();
    await warm(s, a, gridRows, gridCols, nTime);
    const pair = [
      async () => out.cell.chronozarr.push(await timed(() => s.getCell(0, row, col, t))),
      async () => out.cell.zarrita.push(await timed(() => a.getChunk([t, 0, row, col]))),
    ];
    for (const run of i % 2 ? pair.reverse() : pair) await run();
    s.close();
  }
  const frameReps = Math.max(3, Math.ceil(reps / 2));
  for (let i = 0; i < frameReps; i++) {
    const t = (7 + i * 5) % nTime;
    /** @type {[number, number][]} */
    const cells = [];
    for (let r = 0; r < gridRows; r++) for (let c = 0; c < gridCols; c++) cells.push([r, c]);
    const s = await openChrono();
    const a = await openZarrita();
    await warm(s, a, gridRows, gridCols, nTime);
    out.frame.chronozarr.push(await timed(() => Promise.all(cells.map(([r, c]) => s.getCell(0, r, c, t)))));
    out.frame.zarrita.push(await timed(() => Promise.all(cells.map(([r, c]) => a.getChunk([t, 0, r, c])))));
    out.frame.zarritaGet.push(await timed(() => zarr.get(a, [t, null, null, null])));
    s.close();
    const x = (1000 + i * 377) % width;
    const y = (900 + i * 411) % height;
    const s2 = await openChrono();
    const a2 = await openZarrita();
    await warm(s2, a2, gridRows, gridCols, nTime);
    /** @type {ArrayLike<number>[]} */
    let ours = [];
    /** @type {{ data: ArrayLike<number> }} */
    let theirs = { data: [] };
    out.history.chronozarr.push(await timed(async () => {
      ours = await Promise.all(Array.from({ length: nTime }, (_, tt) => s2.readPixel(0, y, x, tt)));
    }));
    out.history.zarrita.push(await timed(async () => {
      theirs = await zarr.get(a2, [null, null, y, x]);
    }));
    for (let tt = 0; tt < nTime; tt++) for (let b = 0; b < ours[0].length; b++) {
      if (ours[tt][b] !== theirs.data[tt * ours[0].length + b]) throw new Error(`pixel history differs at t ${tt} band ${b}`);
    }
    s2.close();
  }
  /** @type {Record<string, Record<string, any>>} per operation: each reader's median and runs, and chronozarr's time over zarrita's */
  const summary = {};
  for (const [op, runs] of Object.entries(out)) {
    summary[op] = {};
    for (const [who, xs] of Object.entries(runs)) summary[op][who] = { medianMs: Number(median(xs).toFixed(2)), runsMs: xs.map((v) => Number(v.toFixed(2))) };
    summary[op].ratio = Number((summary[op].chronozarr.medianMs / summary[op].zarrita.medianMs).toFixed(3));
  }
  return summary;
}
