/**
 * One pixel read through getCell: its bands at one timestep (`readPixel(lod, row, col, t)`, in
 * getCell's order; Python's `read_pixel(t, row, col, lod)`), its history over time
 * (`readPoint(row, col, { lod, times })`, Python's `read_point`) and its mask history
 * (`readPointMask`, `read_point_mask`). Row first everywhere, as in Python: `samplePixel(lod, x, y, t)`,
 * which took the column first, is kept as a deprecated alias that warns once. A level-0 history
 * comes from the time-major history array when the store has one (two requests instead of one per
 * timestep), its mask history from the history's mask copy when it has one; a history array that
 * turns out damaged is named once and level 0 answers instead.
 * @module
 */
import { samplePixelFrom } from './arrays.js';
import { StoreError } from './errors.js';
import { pixelCell } from './geometry.js';
import { ticketFor } from './limiter.js';

/**
 * @param {object} o
 * @param {(lod: number) => import('./metadata.js').Level} o.level the level, or a RangeError
 * @param {(lod: number, row: number, col: number, t: number, options: { signal?: AbortSignal, mask: false, priority?: import('./limiter.js').Priority }) => Promise<Readonly<import('./dataset.js').Cell>>} o.getCell
 * @param {(lod: number, row: number, col: number, t: number, options: { signal?: AbortSignal }) => Promise<Readonly<import('./dataset.js').Cell> | null>} o.getMask
 * @param {number} o.nBand
 * @param {number} o.nTime
 * @param {(level: number) => ReturnType<typeof import('./history.js').createHistoryReads> | null} o.historyAt a level's history reads (level 0's, or a coarser level's from format 1.3), null without one
 * @param {import('./dataset.js').Bounded} o.bounded
 * @param {string} o.where the store's URL, for the warning
 * @param {() => boolean} o.closed the store is closed (its reads fail for that, not for damage)
 */
export function createPointReads({ level, getCell, getMask, nBand, nTime, historyAt, bounded, where, closed }) {
  const historyOf = historyLookup({ historyAt, bounded, where, closed });
  /** The level and the cell position of pixel (x, y), or a RangeError. @param {number} lod @param {number} x @param {number} y */
  function locate(lod, x, y) {
    const lvl = level(lod);
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= lvl.width || y >= lvl.height) {
      throw new RangeError(`pixel (x ${x}, y ${y}) is outside level ${lod} (${lvl.width} x ${lvl.height})`);
    }
    return pixelCell(lvl, x, y);
  }

  /**
   * @param {number} lod @param {ReturnType<typeof pixelCell>} at @param {number} t @param {AbortSignal | undefined} signal
   * @param {import('./limiter.js').Priority} [priority]
   */
  async function bandsAt(lod, at, t, signal, priority) {
    const cell = await getCell(lod, at.row, at.col, t, { signal, mask: false, priority });
    return samplePixelFrom(cell.data, { nBand, chunkWidth: cell.chunkWidth, chunkHeight: cell.chunkHeight }, at.x, at.y);
  }

  /**
   * The bands of one pixel (row, col of level `lod`) at timestep t.
   * @param {number} lod @param {number} row @param {number} col @param {number} t
   * @param {{ signal?: AbortSignal }} [options]
   */
  async function readPixel(lod, row, col, t, { signal } = {}) {
    return bandsAt(lod, locate(lod, col, row), t, signal);
  }

  /**
   * Deprecated: readPixel(lod, y, x, t). The bands of pixel (column x, row y) at timestep t.
   * @param {number} lod @param {number} x @param {number} y @param {number} t
   * @param {{ signal?: AbortSignal }} [options]
   */
  async function samplePixel(lod, x, y, t, options) {
    warnOnce('samplePixel(lod, x, y, t)', 'readPixel(lod, row, col, t), row first as in Python');
    return readPixel(lod, y, x, t, options);
  }

  /**
   * The history of one pixel (row, col of level `lod`): its bands at each of `times` (every
   * timestep by default), in that order, as [time][band]. `priority` ranks its requests
   * (limiter.js; `frame` by default: someone waits for the answer).
   * @param {number} row @param {number} col
   * @param {{ lod?: number, times?: number[], signal?: AbortSignal, priority?: import('./limiter.js').Priority }} [options]
   */
  async function readPoint(row, col, { lod = 0, times, signal, priority = 'frame' } = {}) {
    const at = locate(lod, col, row);
    const steps = times ?? Array.from({ length: nTime }, (_, t) => t);
    const h = historyOf(lod);
    const found = h ? await h.fromHistory(h.history.pixelHistory, row, col, steps, signal, priority) : null;
    return found ?? Promise.all(steps.map((t) => bandsAt(lod, at, t, signal, priority)));
  }

  /**
   * The mask history of one pixel (row, col of level `lod`): 1 valid, 0 not at each of `times`
   * (every timestep by default); null when the store has no mask. At level 0 from the history's
   * mask copy when it has one (two requests, side by side with readPoint's), else a mask chunk per date.
   * @param {number} row @param {number} col
   * @param {{ lod?: number, times?: number[], signal?: AbortSignal, priority?: import('./limiter.js').Priority }} [options]
   * @returns {Promise<Uint8Array | null>}
   */
  async function readPointMask(row, col, { lod = 0, times, signal, priority = 'frame' } = {}) {
    const at = locate(lod, col, row);
    if (!level(lod).mask) return null;
    const steps = times ?? Array.from({ length: nTime }, (_, t) => t);
    const h = historyOf(lod);
    const found = h?.history.hasMask ? await h.fromHistory(h.history.pixelMaskHistory, row, col, steps, signal, priority) : null;
    if (found) return found;
    const masks = await Promise.all(steps.map((t) => getMask(lod, at.row, at.col, t, { signal })));
    return Uint8Array.from(masks, (m) => (m ? m.data[at.y * m.chunkWidth + at.x] : 1));
  }

  return { readPixel, samplePixel, readPoint, readPointMask };
}

/**
 * A level's history reads with their fallback (one per level, made when first asked), or null
 * when the level has no history.
 * @param {{ historyAt: (level: number) => ReturnType<typeof import('./history.js').createHistoryReads> | null, bounded: import('./dataset.js').Bounded, where: string, closed: () => boolean }} o
 */
function historyLookup({ historyAt, bounded, where, closed }) {
  /** @type {Map<number, ReturnType<typeof createHistoryFallback>>} */
  const fallbacks = new Map();
  return (/** @type {number} */ lod) => {
    const history = historyAt(lod);
    if (!history) return null;
    if (!fallbacks.has(lod)) fallbacks.set(lod, createHistoryFallback({ history, bounded, where, closed, lod }));
    return { history, fromHistory: /** @type {ReturnType<typeof createHistoryFallback>} */ (fallbacks.get(lod)) };
  };
}

/**
 * Reads from the history arrays until they turn out damaged: then the damage is named once and
 * every later read answers null, for level 0 to answer instead.
 * @param {{ history: unknown, bounded: import('./dataset.js').Bounded, where: string, closed: () => boolean, lod: number }} o
 */
function createHistoryFallback({ history, bounded, where, closed, lod }) {
  let historyUsable = history != null;
  /**
   * A read from the history arrays, or null once they turned out damaged (named once; level 0 answers).
   * @template R
   * @param {(y: number, x: number, times: number[], signal: AbortSignal, priority: import('./limiter.js').Ticket) => Promise<R>} read
   * @param {number} row @param {number} col @param {number[]} steps
   * @param {AbortSignal | undefined} signal @param {import('./limiter.js').Priority} priority
   * @returns {Promise<R | null>}
   */
  async function fromHistory(read, row, col, steps, signal, priority) {
    if (!historyUsable) return null;
    const ticket = ticketFor(priority);
    try {
      return await bounded(signal, (call) => read(row, col, steps, call, ticket));
    } catch (err) {
      if (!(err instanceof StoreError) || signal?.aborted || closed()) throw err;
      const whose = lod === 0 ? 'the history array' : `level ${lod}'s history array`;
      if (historyUsable) console.warn(`chronozarr: ${where}: ${whose} cannot be read (${err.message}); pixel histories are read from level ${lod}'s chunks`);
      historyUsable = false;
      return null;
    }
  }
  return fromHistory;
}

/** @type {Set<string>} */
const warned = new Set();

/** One console warning per renamed call and page (a loop over pixels warns once). @param {string} old @param {string} now */
export function warnOnce(old, now) {
  if (warned.has(old)) return;
  warned.add(old);
  console.warn(`chronozarr: ${old} is deprecated; use ${now} (docs/api.md)`);
}
