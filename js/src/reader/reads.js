/**
 * The dataset's calls that read (openDataset's `getCell`, `getMask`, `getCoverage`, `readPixel`
 * and the other point reads, `readRegionSeries`, `prefetch`, `prefetchHistory`), each with its
 * arguments checked first: the checks, the cell reads and the read-ahead are each their own part.
 * @module
 */
import { anchorOf } from './context.js';
import { StoreError } from './errors.js';
import { cellExtent } from './geometry.js';
import { ticketFor } from './limiter.js';
import { createPointReads } from './points.js';
import { createRegionSeries } from './region-series.js';

/** @typedef {import('./dataset.js').Cell} Cell */
/** @typedef {import('./dataset.js').Bounded} Bounded */
/** @typedef {ReturnType<typeof import('./history.js').createHistoryReads> | null} History */

/**
 * The calls that read: cells, planes, pixels and prefetch, with their arguments checked.
 * @param {import('./context.js').StoreContext} ctx
 * @param {{ values: import('./decoding.js').ChunkRead, storedValues: import('./decoding.js').ChunkRead, prefetch: ReturnType<typeof import('./prefetch.js').createPrefetcher>['prefetch'], bounded: Bounded, history: History, historyAt: (level: number) => History }} parts
 */
export function createReads(ctx, { values, storedValues, prefetch: prefetchCells, bounded, history, historyAt }) {
  const { meta } = ctx;
  const checks = createChecks(ctx);
  const { getCell, getMask, getCoverage } = createCellReads(ctx, checks, { values, storedValues, bounded });
  const { prefetch, prefetchHistory } = createReadAhead(meta, checks, prefetchCells, history);
  const where = ctx.transport.url('zarr.json');
  const closed = () => ctx.state.closed;
  const points = createPointReads({ level: checks.level, getCell, getMask, nBand: meta.bands.length, nTime: meta.times.length, historyAt, bounded, where, closed });
  const { readPixel, samplePixel, readPoint, readPointMask } = points;
  const { readRegionSeries } = createRegionSeries({ meta, getCell, historyAt, bounded });
  return { getCell, getMask, getCoverage, readPixel, samplePixel, readPoint, readPointMask, readRegionSeries, prefetch, prefetchHistory };
}

/**
 * The checks every read call makes first: the store is open, the level exists, the cell and the
 * timestep are inside it.
 * @param {import('./context.js').StoreContext} ctx
 */
function createChecks(ctx) {
  const { meta } = ctx;
  const nTime = meta.times.length;
  return {
    checkOpen() {
      if (ctx.state.closed) throw new StoreError('the store is closed');
    },
    /** @param {number} lod */
    level(lod) {
      const found = Number.isInteger(lod) ? meta.levels[lod] : undefined;
      if (!found) throw new RangeError(`level ${lod} does not exist; the store has levels 0..${meta.levels.length - 1}`);
      return found;
    },
    /** @param {import('./metadata.js').Level} lvl @param {number} row @param {number} col @param {number} t */
    checkCell(lvl, row, col, t) {
      if (!Number.isInteger(row) || !Number.isInteger(col) || row < 0 || col < 0 || row >= lvl.gridRows || col >= lvl.gridCols) {
        throw new RangeError(`cell (${row}, ${col}) is outside level ${lvl.index}'s ${lvl.gridRows} x ${lvl.gridCols} grid`);
      }
      if (!Number.isInteger(t) || t < 0 || t >= nTime) throw new RangeError(`timestep ${t} does not exist; the store has ${nTime} timesteps`);
    },
  };
}

/** @typedef {ReturnType<typeof createChecks>} Checks */

/**
 * One cell of the data (`getCell`) or of a plane (`getMask`, `getCoverage`) at one timestep.
 * @param {import('./context.js').StoreContext} ctx @param {Checks} checks
 * @param {{ values: import('./decoding.js').ChunkRead, storedValues: import('./decoding.js').ChunkRead, bounded: Bounded }} reads
 */
function createCellReads(ctx, { checkOpen, level, checkCell }, { values, storedValues, bounded }) {
  const { meta } = ctx;

  /** @param {import('./metadata.js').Level} lvl @param {number} row @param {number} col @param {import('./arrays.js').DataValues} data @returns {Cell} */
  const frame = (lvl, row, col, data) => ({ data, chunkWidth: lvl.chunkSize, chunkHeight: lvl.chunkSize, ...cellExtent(lvl, row, col) });

  /**
   * One cell at one timestep: exact stored values (reconstructed under star-delta), laid out
   * [band][y][x] over the padded chunk, with the cell's mask when the store has one.
   * With `stored: true` the data are the values as stored, not reconstructed: for a star-delta
   * timestep with an anchor, the residuals (true = (anchor + residual) mod 2^bits, with the anchor's
   * data from `getCell(lod, row, col, cell.anchor, { stored: true })`), and the cell carries
   * `anchor`: that anchor timestep, or null when the data are true values.
   * @param {number} lod @param {number} row @param {number} col @param {number} t
   * `priority` says what the cell is for, which decides when its requests go out (limiter.js):
   * `frame` (the default) for what is on screen, `picture` for a coarse stand-in of a view that
   * shows nothing yet, `ahead` and `background` for read-ahead, `metadata` goes before all.
   * @param {{ signal?: AbortSignal, mask?: boolean, stored?: boolean, priority?: import('./limiter.js').Priority }} [options] mask: false skips the mask read
   * @returns {Promise<Readonly<Cell>>}
   */
  async function getCell(lod, row, col, t, { signal, mask = true, stored: raw = false, priority = 'frame' } = {}) {
    checkOpen();
    const lvl = level(lod);
    checkCell(lvl, row, col, t);
    const place = ticketFor(priority);
    const [data, maskData] = await bounded(signal, (call) => {
      const reading = Promise.all([
        raw ? storedValues(lvl.data, t, row, col, call, place) : values(lvl.data, t, row, col, call, place),
        mask && lvl.mask ? values(lvl.mask, t, row, col, call, place) : undefined,
      ]);
      ctx.reorder(); // a read-ahead of the same chunk this joined may go now
      return reading;
    });
    const cell = frame(lvl, row, col, data);
    if (raw) cell.anchor = anchorOf(ctx, lvl.data, t) >= 0 ? meta.references[t] : null;
    if (maskData) cell.mask = /** @type {Uint8Array} */ (maskData);
    return Object.freeze(cell);
  }

  /** @param {'mask' | 'coverage'} which */
  const plane = (which) =>
    /**
     * @param {number} lod @param {number} row @param {number} col @param {number} t
     * @param {{ signal?: AbortSignal }} [options]
     * @returns {Promise<Readonly<Cell> | null>}
     */
    async (lod, row, col, t, { signal } = {}) => {
      checkOpen();
      const lvl = level(lod);
      checkCell(lvl, row, col, t);
      const info = lvl[which];
      if (!info) return null;
      return Object.freeze(frame(lvl, row, col, await bounded(signal, (call) => values(info, t, row, col, call, ticketFor('frame')))));
    };

  return { getCell, getMask: plane('mask'), getCoverage: plane('coverage') };
}

/**
 * The read-ahead calls: cells around a timestep (`prefetch`) and the history's shard indexes
 * over a box (`prefetchHistory`).
 * @param {import('./metadata.js').StoreMetadata} meta @param {Checks} checks
 * @param {ReturnType<typeof import('./prefetch.js').createPrefetcher>['prefetch']} prefetchCells @param {History} history
 */
function createReadAhead(meta, { checkOpen, level, checkCell }, prefetchCells, history) {
  const nTime = meta.times.length;

  /**
   * Fill the caches around timestep t for the given cells, in windowOrder, within horizonSteps
   * and the idle budgets (the whole loop, bounded by half the cache, when playing). A newer call
   * cancels what this one still has to do. Resolves with what it did; never rejects on a failed
   * chunk (those are counted) or on cancellation.
   * `stored: true` decodes delta timesteps near t as stored residuals (for `getCell(..., { stored: true })`)
   * instead of reconstructing them.
   * `priority`: `background` (the default) or `ahead`, for the timesteps next to the one on screen.
   * `onProgress(done, total)` after each chunk (playback shows how much of the loop is buffered).
   * @param {{ lod: number, cells: Array<[number, number] | { row: number, col: number }>, t: number, playing?: boolean, masks?: boolean, stored?: boolean, signal?: AbortSignal, priority?: 'ahead' | 'background', onProgress?: (done: number, total: number) => void }} request
   */
  function prefetch(request) {
    checkOpen();
    if (request.priority != null && request.priority !== 'ahead' && request.priority !== 'background') {
      throw new RangeError(`prefetch priority ${JSON.stringify(request.priority)}: read-ahead is 'ahead' or 'background'`);
    }
    const lvl = level(request.lod);
    const pairs = request.cells.map((c) => (Array.isArray(c) ? c : [c.row, c.col]));
    for (const [row, col] of pairs) checkCell(lvl, row, col, Math.min(Math.max(0, request.t), nTime - 1));
    return prefetchCells(lvl, pairs, request);
  }

  /**
   * Read ahead the history array's shard indexes over a box of level-0 pixels (`{ y0, x0, y1, x1 }`,
   * ends exclusive), nearest its centre first and at most `maxShards` shards and `maxBytes` of index
   * (16 and 256 kB by default), so that a pixel's history there is one range per time block.
   * `priority` is `background` (the default, the lowest) or `frame`, for an index a click on the
   * view is likely to need as soon as the view is complete (it queues behind the frame's chunks
   * asked before it). Resolves with what it did (`{ shards, indexes, read, bytes, failed }`, zeros
   * on a store without the array); never rejects on a failed read.
   * @param {{ y0: number, x0: number, y1: number, x1: number }} box
   * @param {{ maxShards?: number, maxBytes?: number, signal?: AbortSignal, priority?: 'frame' | 'background' }} [options]
   */
  async function prefetchHistory(box, { maxShards = 16, maxBytes = 256 * 1024, signal, priority = 'background' } = {}) {
    checkOpen();
    for (const k of /** @type {const} */ (['y0', 'x0', 'y1', 'x1'])) if (!Number.isFinite(box?.[k])) throw new RangeError(`prefetchHistory: box.${k} must be a number, got ${box?.[k]}`);
    if (!history) return { shards: 0, indexes: 0, read: 0, bytes: 0, failed: 0 };
    if (priority !== 'frame' && priority !== 'background') throw new RangeError(`prefetchHistory: priority must be 'frame' or 'background', got ${JSON.stringify(priority)}`);
    return history.warmIndexes(box, { maxShards, maxBytes, signal, priority });
  }

  return { prefetch, prefetchHistory };
}
