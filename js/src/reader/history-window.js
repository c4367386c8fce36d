/**
 * A box of level-0 pixels over every date from the time-major history array (Python's
 * HistoryReader.window): per shard and time block its index, then one range per run of the inner
 * chunks needed that are stored back to back, decoded chunks cached like a pixel history's.
 * @module
 */
import { fillChunk } from './arrays.js';
import { StoreError } from './errors.js';
import { historyPlace, historyShardId, timeBlocks } from './history-format.js';

const RUN_BYTES = 16 * 2 ** 20; // one range of neighbouring inner chunks holds at most this much (Python's RUN_BYTES)

/** @typedef {import('./arrays.js').DataValues} Values */
/** @typedef {import('./limiter.js').Ticket} Ticket */
/**
 * One of the history's arrays: the data's, or the mask copy's.
 * @typedef {{ tag: string, info: import('./arrays.js').DataArrayInfo, key: (tb: number, r: number, c: number) => string, shardBytes: Record<string, number> }} Part
 */

/**
 * @param {object} o
 * @param {import('./context.js').StoreContext} o.ctx
 * @param {import('./history-format.js').HistoryLayout} o.layout
 * @param {import('./history.js').ShardIndexRead} o.shardIndex
 * @param {(info: import('./arrays.js').DataArrayInfo, shardKey: string, offset: number, bytes: Uint8Array, signal: AbortSignal, priority: Ticket) => Promise<Values>} o.decodedBytes
 * @param {Part} o.dataPart
 * @param {Part | null} o.maskPart
 */
export function createWindowReads({ ctx, layout, shardIndex, decodedBytes, dataPart, maskPart }) {
  const { transport, cache, state } = ctx;
  const [, nBand, p] = layout.array.chunkShape;
  const nTime = layout.array.shape[0];

  /**
   * Every date of a box of level-0 pixels (rows and columns [start, stop)), from the data history
   * and the mask copy when there is one: per shard and time block its index, then one range per
   * run of needed inner chunks stored back to back (Python's HistoryReader.window). Resolves with
   * `value(t, b, y, x)` and `mask(t, y, x)` (null without a mask copy) at level-0 positions.
   * @param {[number, number]} rows @param {[number, number]} cols @param {AbortSignal} signal @param {Ticket} priority
   */
  async function windowHistory(rows, cols, signal, priority) {
    const T = layout.timeCap;
    const read = async (/** @type {Part} */ part) => {
      const shards = shardsUnder(layout, nTime, rows, cols);
      /** @type {Map<string, Values>} */
      const chunks = new Map();
      await Promise.all([...shards.values()].map(async ({ tb, r, c, inner }) => {
        for (const [i, v] of await shardChunks(part, tb, r, c, inner, signal, priority)) chunks.set(`${tb}|${r}|${c}|${i}`, v);
      }));
      // The window's inner chunks on a grid (time block, inner row, inner column), so that a
      // pixel's chunk is found by arithmetic: a string key per pixel and date cost a minute on a
      // 256 x 256 pixel area of 120 dates.
      /** @type {Values[]} */
      const grid = new Array(timeBlocks(layout, nTime) * gh * gw);
      for (let tb = 0; tb < timeBlocks(layout, nTime); tb++) {
        for (let gy = 0; gy < gh; gy++) {
          for (let gx = 0; gx < gw; gx++) {
            const at = historyPlace(layout, y0 + gy * p, x0 + gx * p);
            grid[(tb * gh + gy) * gw + gx] = /** @type {Values} */ (chunks.get(`${tb}|${at.r}|${at.c}|${at.inner}`));
          }
        }
      }
      return grid;
    };
    const y0 = Math.floor(rows[0] / p) * p, x0 = Math.floor(cols[0] / p) * p;
    const gh = Math.ceil((rows[1] - y0) / p), gw = Math.ceil((cols[1] - x0) / p);
    const [data, mask] = await Promise.all([read(dataPart), maskPart ? read(maskPart) : null]);
    const cell = (/** @type {number} */ t, /** @type {number} */ y, /** @type {number} */ x) => (Math.floor(t / T) * gh + Math.floor((y - y0) / p)) * gw + Math.floor((x - x0) / p);
    const pixel = (/** @type {number} */ y, /** @type {number} */ x) => (y % p) * p + (x % p);
    return {
      value: (/** @type {number} */ t, /** @type {number} */ b, /** @type {number} */ y, /** @type {number} */ x) => data[cell(t, y, x)][((t % T) * nBand + b) * p * p + pixel(y, x)],
      mask: mask && ((/** @type {number} */ t, /** @type {number} */ y, /** @type {number} */ x) => mask[cell(t, y, x)][(t % T) * p * p + pixel(y, x)]),
    };
  }

  /**
   * The decoded inner chunks `inner` of one shard of a part, by position: cached ones as they are,
   * the others in one range per run of chunks stored back to back, fill for those not stored.
   * @param {Part} part @param {number} tb @param {number} r @param {number} c @param {number[]} inner
   * @param {AbortSignal} signal @param {Ticket} priority
   * @returns {Promise<Map<number, Values>>}
   */
  async function shardChunks(part, tb, r, c, inner, signal, priority) {
    const out = new Map();
    const cacheKey = (/** @type {number} */ i) => `${part.tag}|${tb}|${r}|${c}|${i}`;
    const missing = inner.filter((i) => {
      const hit = /** @type {Values | undefined} */ (cache.get(cacheKey(i)));
      if (hit !== undefined) out.set(i, hit);
      return hit === undefined;
    });
    if (!missing.length) return out;
    const shardKey = part.key(tb, r, c);
    const listed = part.shardBytes[historyShardId(tb, r, c)];
    const index = await shardIndex(part.info, shardKey, Number.isInteger(listed) ? listed : null, signal, priority, true);
    const stored = missing.filter((i) => index && index.offsets[i] >= 0).sort((a, b) => /** @type {any} */ (index).offsets[a] - /** @type {any} */ (index).offsets[b]);
    for (const i of missing) if (!stored.includes(i)) out.set(i, fillChunk(part.info));
    const ix = /** @type {import('./shards.js').ShardIndex} */ (index);
    await Promise.all(runsOf(stored, ix).map(async (run) => {
      const start = ix.offsets[run[0]];
      const bytes = await transport.range(shardKey, start, ix.offsets[run[run.length - 1]] + ix.lengths[run[run.length - 1]] - start, { signal, priority });
      if (bytes == null) throw new StoreError(`${transport.url(shardKey)} disappeared while it was being read`);
      await Promise.all(run.map(async (i) => {
        const piece = bytes.subarray(ix.offsets[i] - start, ix.offsets[i] - start + ix.lengths[i]);
        const v = await decodedBytes(part.info, shardKey, ix.offsets[i], piece, signal, priority);
        if (!state.closed) cache.set(cacheKey(i), v, v.byteLength, 'decoded');
        out.set(i, v);
      }));
    }));
    return out;
  }

  return { windowHistory };
}

/**
 * The shards of every time block under a box of level-0 pixels, each with the inner chunks the
 * box needs from it.
 * @param {import('./history-format.js').HistoryLayout} layout @param {number} nTime
 * @param {[number, number]} rows @param {[number, number]} cols
 */
function shardsUnder(layout, nTime, rows, cols) {
  const p = layout.array.chunkShape[2];
  /** @type {Map<string, { tb: number, r: number, c: number, inner: number[] }>} */
  const shards = new Map();
  for (let tb = 0; tb < timeBlocks(layout, nTime); tb++) {
    for (let y = Math.floor(rows[0] / p) * p; y < rows[1]; y += p) {
      for (let x = Math.floor(cols[0] / p) * p; x < cols[1]; x += p) {
        const at = historyPlace(layout, y, x);
        const id = `${tb}|${at.r}|${at.c}`;
        if (!shards.has(id)) shards.set(id, { tb, r: at.r, c: at.c, inner: [] });
        /** @type {{ inner: number[] }} */ (shards.get(id)).inner.push(at.inner);
      }
    }
  }
  return shards;
}

/**
 * Stored inner chunks (sorted by offset) grouped in runs stored back to back, each run at most
 * RUN_BYTES, so that a run is one range request.
 * @param {number[]} stored @param {import('./shards.js').ShardIndex} ix @returns {number[][]}
 */
function runsOf(stored, ix) {
  /** @type {number[][]} */
  const runs = [];
  for (const i of stored) {
    const last = runs[runs.length - 1];
    const end = last && ix.offsets[last[last.length - 1]] + ix.lengths[last[last.length - 1]];
    if (last && end === ix.offsets[i] && ix.offsets[i] + ix.lengths[i] - ix.offsets[last[0]] <= RUN_BYTES) last.push(i);
    else runs.push([i]);
  }
  return runs;
}
