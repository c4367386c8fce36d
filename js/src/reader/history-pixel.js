/**
 * One pixel's history from a level's history array (`readPoint` and `readPointMask` through
 * points.js): the inner chunks holding it, one per time block, read at once through history.js's
 * `innerChunk` (cached, shared with other readers of the same chunk). Split from history.js by job.
 * @module
 */
import { historyPlace } from './history-format.js';

/** @typedef {import('./arrays.js').DataValues} Values */
/** @typedef {import('./limiter.js').Ticket} Ticket */
/** @typedef {import('./history-window.js').Part} Part */

/**
 * @param {object} o
 * @param {import('./context.js').StoreContext} o.ctx
 * @param {import('./history-format.js').HistoryLayout} o.layout
 * @param {(part: Part, tb: number, at: import('./history-format.js').HistoryPlace, signal: AbortSignal, priority: Ticket) => Promise<Values>} o.innerChunk
 * @param {Part} o.dataPart
 * @param {Part | null} o.maskPart
 */
export function createPixelReads({ ctx, layout, innerChunk, dataPart, maskPart }) {
  const [, nBand, p] = layout.array.chunkShape;
  const nTime = layout.array.shape[0];

  /**
   * The inner chunks of a part holding level-0 pixel (y, x) for the time blocks of `times`, read
   * at once, each once; by time block.
   * @param {Part} part @param {number} y @param {number} x @param {number[]} times
   * @param {AbortSignal} signal @param {Ticket} priority
   */
  async function blocksOf(part, y, x, times, signal, priority) {
    for (const t of times) if (!Number.isInteger(t) || t < 0 || t >= nTime) throw new RangeError(`timestep ${t} does not exist; the store has ${nTime} timesteps`);
    const at = historyPlace(layout, y, x);
    const blocks = [...new Set(times.map((t) => Math.floor(t / layout.timeCap)))];
    // A click's read: no read-ahead takes the link between its index and its range (on a slow
    // link a chunk of read-ahead started in that gap would share the bandwidth with the range).
    const release = ctx.holdReadAhead(priority);
    try {
      const reading = Promise.all(blocks.map(async (tb) => /** @type {const} */ ([tb, await innerChunk(part, tb, at, signal, priority)])));
      ctx.reorder(); // a read-ahead of the same index this joined may go now
      return { chunks: new Map(await reading), pixel: at.iy * p + at.ix };
    } finally {
      release();
    }
  }

  /**
   * The bands of level-0 pixel (y, x) at each of `times`, as [time][band]: the time blocks they
   * fall in are read at once, each once.
   * @param {number} y @param {number} x @param {number[]} times
   * @param {AbortSignal} signal @param {Ticket} priority
   * @returns {Promise<Values[]>}
   */
  async function pixelHistory(y, x, times, signal, priority) {
    const T = layout.timeCap;
    const { chunks, pixel } = await blocksOf(dataPart, y, x, times, signal, priority);
    return times.map((t) => {
      const data = /** @type {Values} */ (chunks.get(Math.floor(t / T)));
      const out = /** @type {Values} */ (new (/** @type {new (n: number) => Values} */ (data.constructor))(nBand));
      for (let b = 0; b < nBand; b++) out[b] = data[((t % T) * nBand + b) * p * p + pixel];
      return out;
    });
  }

  /**
   * The mask (1 valid, 0 not) of level-0 pixel (y, x) at each of `times`, from the mask copy;
   * null when the history has none.
   * @param {number} y @param {number} x @param {number[]} times
   * @param {AbortSignal} signal @param {Ticket} priority
   * @returns {Promise<Uint8Array | null>}
   */
  async function pixelMaskHistory(y, x, times, signal, priority) {
    if (!maskPart) return null;
    const T = layout.timeCap;
    const { chunks, pixel } = await blocksOf(maskPart, y, x, times, signal, priority);
    return Uint8Array.from(times, (t) => /** @type {Values} */ (chunks.get(Math.floor(t / T)))[(t % T) * p * p + pixel]);
  }

  return { pixelHistory, pixelMaskHistory };
}
