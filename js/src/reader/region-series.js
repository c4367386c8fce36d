/**
 * `readRegionSeries(geometry, { lod, bands, signal, priority, onProgress })`: an area's statistics
 * per timestep and band, the numbers Python's `ChronoStore.read_region_series` gives. Pixels and
 * level come from region.js. At a level with a history array (level 0's, or a coarser level's
 * from format 1.3) every date comes from it in a few range reads; otherwise the cells under the
 * area are read through getCell (so through the load plan's cache and the limiter, always at the
 * `background` rank), a batch of timesteps at a time, `onProgress` seeing the series fill in, and
 * summarised per cell in row-major order as Python does.
 * @module
 */
import { StoreError } from './errors.js';
import { ticketFor } from './limiter.js';
import { PRODUCTS, WATER_THRESHOLD, areaOf, areaWindow, chooseLevel, holds } from './region.js';

const BATCH = 16; // timesteps whose cells are in flight at once: bounds memory, keeps the limiter busy
const GEOGRAPHIC = new Set(['EPSG:4326', 'OGC:CRS84', 'EPSG:4258', 'EPSG:4269']);

/** @typedef {{ name: string, inputs: number[], product: string | null }} Quantity */

/** @param {readonly import('./attributes.js').Band[]} bands @param {string} role */
function findBand(bands, role) {
  const low = role.toLowerCase();
  const i = bands.findIndex((b) => (b.common_name ?? '').toLowerCase() === low);
  return i >= 0 ? i : bands.findIndex((b) => b.name.toLowerCase() === low);
}

/** @param {readonly import('./attributes.js').Band[]} bands @param {string[] | undefined} wanted @returns {Quantity[]} */
export function quantities(bands, wanted) {
  const names = bands.map((b) => b.name);
  const products = Object.keys(PRODUCTS).filter((p) => PRODUCTS[/** @type {keyof PRODUCTS} */ (p)].every((r) => findBand(bands, r) >= 0));
  return (wanted ?? names).map((name) => {
    if (names.includes(name)) return { name, inputs: [names.indexOf(name)], product: null };
    const id = name.toLowerCase();
    if (products.includes(id)) return { name: id, inputs: PRODUCTS[/** @type {keyof PRODUCTS} */ (id)].map((r) => findBand(bands, r)), product: id };
    throw new RangeError(`the store cannot give ${JSON.stringify(name)}: choose among its bands ${JSON.stringify(names)} and products ${JSON.stringify(products)}`);
  });
}

/** (a - b) / (a + b), 0 where the sum is 0, clamped to -1..1. @param {number} a @param {number} b */
const nd = (a, b) => {
  const total = a + b;
  return total === 0 ? 0 : Math.min(1, Math.max(-1, (a - b) / total));
};

/** Running (count, sum, M2, min, max) per (timestep, quantity). @param {number} n */
function summary(n) {
  const make = (/** @type {number} */ v) => new Float64Array(n).fill(v);
  return { count: make(0), total: make(0), m2: make(0), lo: make(Infinity), hi: make(-Infinity) };
}

/**
 * Stored values and validity of one timestep at level pixel positions.
 * @typedef {{ stored: (b: number, y: number, x: number) => number, valid: (b: number, y: number, x: number) => boolean }} Access
 */

/**
 * @param {object} o
 * @param {import('./metadata.js').StoreMetadata} o.meta
 * @param {(lod: number, row: number, col: number, t: number, options: { signal?: AbortSignal, priority?: import('./limiter.js').Priority }) => Promise<Readonly<import('./dataset.js').Cell>>} o.getCell
 * @param {(level: number) => History} o.historyAt a level's history reads, null when it has none
 * @param {import('./dataset.js').Bounded} o.bounded
 */
export function createRegionSeries({ meta, getCell, historyAt, bounded }) {
  const validity = validityOf(meta.nodata);
  const metres = !GEOGRAPHIC.has(String(meta.crs ?? '')) && meta.crs != null;
  /** The levels whose history turned out damaged: named once, then their chunks answer. @type {Set<number>} */
  const damaged = new Set();

  /**
   * @param {any} geometry [west, south, east, north] or a GeoJSON Polygon, MultiPolygon or Point, in the store's CRS
   * @param {{ lod?: number, bands?: string[], signal?: AbortSignal, priority?: import('./limiter.js').Priority,
   *   onProgress?: (partial: SeriesResult) => void }} [options] `onProgress` gets the series so far (`dates` of them
   *   read, the rest without valid pixels) as each batch of dates arrives from the chunks, and once from a history
   */
  async function readRegionSeries(geometry, { lod, bands, signal, priority = 'background', onProgress } = {}) {
    const area = areaOf(geometry);
    const wanted = quantities(meta.bands, bands);
    const level = chooseLevel(area, meta.levels, lod);
    const win = areaWindow(area, level);
    const pieces = win ? cellPieces(area, level, win) : [];
    if (!pieces.length) throw new RangeError(`the area holds no pixel centre at level ${level.index}: enlarge it, give a point, or choose a finer level`);
    const nT = meta.times.length;
    const s = summary(nT * wanted.length);
    const history = damaged.has(level.index) ? null : historyAt(level.index);
    const tryHistory = history != null && (history.hasMask || !level.mask);
    const fromHistory = tryHistory && (await readHistory(history, s, pieces, wanted, signal, priority));
    const source = /** @type {'history' | 'chunks'} */ (fromHistory ? 'history' : 'chunks');
    /** @returns {SeriesResult} */
    const partial = (/** @type {number} */ dates) => ({ ...result(s, wanted, level, pieces, metres), source, dates });
    if (!fromHistory) {
      // One read per date and cell: the background rank, whatever the call's, so it never holds
      // the connections a frame on screen waits for (the history path's few reads keep the call's).
      const cell = (/** @type {typeof pieces[number]} */ p, /** @type {number} */ t) => getCell(level.index, p.row, p.col, t, { signal, priority: 'background' });
      await readChunks(meta.bands, s, pieces, wanted, nT, cell, validity, (dates) => onProgress?.(partial(dates)));
    } else onProgress?.(partial(nT));
    return partial(nT);
  }

  /**
   * Every date at once from a level's history array (Python's _from_history); false, named once,
   * when the array turns out damaged, and the chunks answer.
   * @param {NonNullable<History>} history @param {ReturnType<typeof summary>} s @param {ReturnType<typeof cellPieces>} pieces @param {Quantity[]} wanted
   * @param {AbortSignal | undefined} signal @param {import('./limiter.js').Priority} priority
   */
  async function readHistory(history, s, pieces, wanted, signal, priority) {
    const rows = /** @type {[number, number]} */ ([Math.min(...pieces.map((p) => p.rows[0])), Math.max(...pieces.map((p) => p.rows[1]))]);
    const cols = /** @type {[number, number]} */ ([Math.min(...pieces.map((p) => p.cols[0])), Math.max(...pieces.map((p) => p.cols[1]))]);
    const ticket = ticketFor(priority);
    let h;
    try {
      h = await bounded(signal, (call) => history.windowHistory(rows, cols, call, ticket));
    } catch (err) {
      if (!(err instanceof StoreError) || signal?.aborted) throw err;
      console.warn(`chronozarr: level ${history.level}'s history array cannot be read (${err.message}); its area series are read from its chunks`);
      damaged.add(history.level);
      return false;
    }
    const { value, mask } = h;
    for (let t = 0; t < meta.times.length; t++) {
      /** @type {Access} */
      const access = { stored: (b, y, x) => value(t, b, y, x), valid: (b, y, x) => validity(mask ? mask(t, y, x) : undefined, value(t, b, y, x)) };
      for (const p of pieces) addPiece(meta.bands, s, t * wanted.length, access, p, wanted);
    }
    return true;
  }

  return { readRegionSeries };
}

/** @typedef {ReturnType<typeof import('./history.js').createHistoryReads> | null} History */
/** @typedef {ReturnType<typeof result> & { source: 'history' | 'chunks', dates: number }} SeriesResult */

/**
 * The per-date path: BATCH dates at a time, every cell of a batch in flight at once (through
 * `cell`, which sets the rank), merged in date order; `progress(dates)` after each batch.
 * @param {readonly import('./attributes.js').Band[]} bands @param {ReturnType<typeof summary>} s
 * @param {ReturnType<typeof cellPieces>} pieces @param {Quantity[]} wanted @param {number} nT
 * @param {(p: ReturnType<typeof cellPieces>[number], t: number) => Promise<Readonly<import('./dataset.js').Cell>>} cell
 * @param {ReturnType<typeof validityOf>} validity @param {(dates: number) => void} progress
 */
async function readChunks(bands, s, pieces, wanted, nT, cell, validity, progress) {
  for (let t0 = 0; t0 < nT; t0 += BATCH) {
    const steps = Array.from({ length: Math.min(BATCH, nT - t0) }, (_, i) => t0 + i);
    const cells = await Promise.all(steps.map((t) => Promise.all(pieces.map((p) => cell(p, t)))));
    steps.forEach((t, i) => pieces.forEach((p, k) => addPiece(bands, s, t * wanted.length, accessOf(validity, cells[i][k], p.top, p.left), p, wanted)));
    progress(t0 + steps.length);
  }
}

/**
 * Whether a stored value is valid: the mask's word where there is a mask, else not nodata.
 * @param {number | null | undefined} nodata
 */
function validityOf(nodata) {
  return (/** @type {number | undefined} */ mask, /** @type {number} */ stored) => (mask !== undefined ? mask !== 0 : nodata == null || stored !== nodata);
}

/**
 * A decoded cell seen at level pixel positions.
 * @param {ReturnType<typeof validityOf>} validity @param {Readonly<import('./dataset.js').Cell>} cell
 * @param {number} top @param {number} left @returns {Access}
 */
function accessOf(validity, cell, top, left) {
  const { data, mask, chunkWidth: cw, chunkHeight: ch } = cell;
  const at = (/** @type {number} */ y, /** @type {number} */ x) => (y - top) * cw + (x - left);
  return {
    stored: (b, y, x) => data[b * cw * ch + at(y, x)],
    valid: (b, y, x) => validity(mask ? mask[at(y, x)] : undefined, data[b * cw * ch + at(y, x)]),
  };
}

/**
 * Merge one cell's piece of one timestep into the summary rows at `at`.
 * @param {readonly import('./attributes.js').Band[]} bands @param {ReturnType<typeof summary>} s
 * @param {number} at @param {Access} access
 * @param {ReturnType<typeof cellPieces>[number]} p @param {Quantity[]} wanted
 */
function addPiece(bands, s, at, access, p, wanted) {
  const h = p.rows[1] - p.rows[0], w = p.cols[1] - p.cols[0];
  // Plain loops and one typed buffer: this runs per pixel, date and quantity (31 M times for a
  // 256 x 256 area of 120 dates and 4 bands), where a closure per pixel cost seconds.
  const values = new Float64Array(h * w);
  wanted.forEach((q, qi) => {
    const [a, b = a] = q.inputs;
    const scaleA = bands[a].scale, offsetA = bands[a].offset, scaleB = bands[b].scale, offsetB = bands[b].offset;
    let n = 0;
    for (let j = 0; j < h; j++) {
      const y = p.rows[0] + j;
      for (let i = 0; i < w; i++) {
        if (!p.held[j * w + i]) continue;
        const x = p.cols[0] + i;
        if (!access.valid(a, y, x) || (b !== a && !access.valid(b, y, x))) continue;
        const first = access.stored(a, y, x) * scaleA + offsetA;
        if (q.product == null) values[n++] = first;
        else {
          const index = nd(first, access.stored(b, y, x) * scaleB + offsetB);
          values[n++] = q.product === 'water' ? +(index > WATER_THRESHOLD) : index;
        }
      }
    }
    merge(s, at + qi, values.subarray(0, n));
  });
}

/** Chan's merge of one piece's values into row j. @param {ReturnType<typeof summary>} s @param {number} j @param {ArrayLike<number> & Iterable<number>} values */
function merge(s, j, values) {
  const n = values.length;
  let total = 0, lo = Infinity, hi = -Infinity;
  for (const v of values) { total += v; if (v < lo) lo = v; if (v > hi) hi = v; }
  const mean = total / Math.max(n, 1);
  let m2 = 0;
  for (const v of values) m2 += (v - mean) ** 2;
  const na = s.count[j];
  const delta = mean - s.total[j] / Math.max(na, 1);
  s.m2[j] += m2 + delta * delta * ((na * n) / Math.max(na + n, 1));
  s.total[j] += total;
  s.count[j] = na + n;
  s.lo[j] = Math.min(s.lo[j], lo);
  s.hi[j] = Math.max(s.hi[j], hi);
}

/**
 * Each cell under the window, row-major, with the part of the window in it cut to the pixels
 * the area holds (Python's read/region_series.pieces). Cells holding none are left out.
 * @param {import('./region.js').Area} area @param {import('./metadata.js').Level} level @param {{ rows: [number, number], cols: [number, number] }} win
 */
function cellPieces(area, level, win) {
  const cs = level.chunkSize;
  const out = [];
  for (let row = Math.floor(win.rows[0] / cs); row < Math.ceil(win.rows[1] / cs); row++) {
    for (let col = Math.floor(win.cols[0] / cs); col < Math.ceil(win.cols[1] / cs); col++) {
      const rows = /** @type {[number, number]} */ ([Math.max(win.rows[0], row * cs), Math.min(win.rows[1], (row + 1) * cs, level.height)]);
      const cols = /** @type {[number, number]} */ ([Math.max(win.cols[0], col * cs), Math.min(win.cols[1], (col + 1) * cs, level.width)]);
      const held = holds(area, level, rows, cols);
      if (held.some((v) => v)) out.push({ row, col, rows, cols, held, top: row * cs, left: col * cs });
    }
  }
  return out;
}

/**
 * @param {ReturnType<typeof summary>} s @param {Quantity[]} wanted @param {import('./metadata.js').Level} level
 * @param {ReturnType<typeof cellPieces>} pieces @param {boolean} metres whether a pixel's area is in m2
 */
function result(s, wanted, level, pieces, metres) {
  const nQ = wanted.length, nT = s.count.length / nQ;
  const grid = (/** @type {(j: number) => number | null} */ f) => Array.from({ length: nT }, (_, t) => wanted.map((_, q) => f(t * nQ + q)));
  const some = (/** @type {number} */ j) => s.count[j] > 0;
  const [a, , , , d] = level.transform;
  const pixelArea = Math.abs(a * d);
  return {
    level: level.index,
    pixelSize: level.resolution,
    pixelArea,
    bands: wanted.map((q) => q.name),
    regionPixels: pieces.reduce((n, p) => n + p.held.reduce((m, v) => m + v, 0), 0),
    validPixels: grid((j) => s.count[j]),
    mean: grid((j) => (some(j) ? s.total[j] / s.count[j] : null)),
    std: grid((j) => (some(j) ? Math.sqrt(s.m2[j] / s.count[j]) : null)),
    min: grid((j) => (some(j) ? s.lo[j] : null)),
    max: grid((j) => (some(j) ? s.hi[j] : null)),
    /** Water pixels x pixel area in km2, for the water product in a projected CRS (null otherwise). */
    waterKm2: grid((j) => (wanted[j % nQ].product === 'water' && metres ? (s.total[j] * pixelArea) / 1e6 : null)),
  };
}
