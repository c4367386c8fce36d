/**
 * A level-0 pixel's history from the time-major history array (docs/format-history.md): per time
 * block, the shard's index (one bounded range with the declaration's shard_bytes, cached per store
 * handle with the other shard indexes) and the inner chunk's range, decoded where the level's
 * chunks are (a decode worker when there are workers). A store whose axis fits one block answers
 * with two requests. The decoded inner chunks are cached, so the pixels around one cost nothing.
 * @module
 */
import { fillChunk, typedView } from './arrays.js';
import { decodeBytes } from './codecs.js';
import { StoreError } from './errors.js';
import { historyPlace, historyShardId, historyShardKey } from './history-format.js';
import { decodesFirst } from './limiter.js';
import { shared } from './signals.js';

/** @typedef {import('./arrays.js').DataValues} Values */
/** @typedef {import('./limiter.js').Ticket} Ticket */
/**
 * @typedef {(info: import('./arrays.js').DataArrayInfo, shardKey: string, listed: number | null, signal: AbortSignal | undefined,
 *   priority: Ticket, lengthsListed?: boolean) => Promise<import('./shards.js').ShardIndex | null>} ShardIndexRead
 */

/**
 * @param {import('./context.js').StoreContext} ctx
 * @param {import('./history-format.js').HistoryLayout} layout
 * @param {ShardIndexRead} shardIndex
 */
export function createHistoryReads(ctx, layout, shardIndex) {
  const { transport, cache, inflight, pool, state } = ctx;
  const info = layout.array;
  const [, nBand, p] = info.chunkShape;
  const nTime = info.shape[0];

  /**
   * The decoded inner chunk [T][band][p][p] holding a place in time block tb (fill when not stored).
   * @param {number} tb @param {import('./history-format.js').HistoryPlace} at
   * @param {AbortSignal} signal @param {Ticket} priority
   * @returns {Promise<Values>}
   */
  function innerChunk(tb, at, signal, priority) {
    const key = `h|${tb}|${at.r}|${at.c}|${at.inner}`;
    const hit = /** @type {Values | undefined} */ (cache.get(key)); // the h keys hold decoded inner chunks
    if (hit !== undefined) return Promise.resolve(hit);
    return shared(inflight, key, signal, priority, async (s) => {
      const shardKey = historyShardKey(layout, tb, at.r, at.c);
      const listed = layout.shardBytes[historyShardId(tb, at.r, at.c)];
      const index = await shardIndex(info, shardKey, Number.isInteger(listed) ? listed : null, s, priority, true);
      const out = index && index.offsets[at.inner] >= 0 ? await decoded(shardKey, index.offsets[at.inner], index.lengths[at.inner], s, priority) : fillChunk(info);
      if (!state.closed) cache.set(key, out, out.byteLength, 'decoded');
      return out;
    });
  }

  /**
   * One stored inner chunk, read by its range and decoded.
   * @param {string} shardKey @param {number} offset @param {number} length
   * @param {AbortSignal} signal @param {Ticket} priority
   */
  async function decoded(shardKey, offset, length, signal, priority) {
    const bytes = await transport.range(shardKey, offset, length, { signal, priority });
    const where = `${transport.url(shardKey)} (bytes ${offset}-${offset + length - 1})`;
    if (bytes == null) throw new StoreError(`${transport.url(shardKey)} disappeared while it was being read`);
    state.decodes++;
    let raw;
    if (!info.codec) raw = bytes;
    else if (pool) raw = await pool.decode(info.codec, bytes, info.chunkBytes, where, signal, () => {}, decodesFirst(priority) ? 0 : 1);
    else raw = await decodeBytes(info.codec, bytes, info.chunkBytes, where);
    if (raw.length !== info.chunkBytes) throw new StoreError(`${where}: chunk decodes to ${raw.length} bytes, expected ${info.chunkBytes}`);
    return typedView(info.dtype, raw);
  }

  /**
   * The bands of level-0 pixel (y, x) at each of `times`, as [time][band]: the time blocks they
   * fall in are read at once, each once.
   * @param {number} y @param {number} x @param {number[]} times
   * @param {AbortSignal} signal @param {Ticket} priority
   * @returns {Promise<Values[]>}
   */
  async function pixelHistory(y, x, times, signal, priority) {
    for (const t of times) if (!Number.isInteger(t) || t < 0 || t >= nTime) throw new RangeError(`timestep ${t} does not exist; the store has ${nTime} timesteps`);
    const at = historyPlace(layout, y, x);
    const T = layout.timeCap;
    const blocks = [...new Set(times.map((t) => Math.floor(t / T)))];
    const reading = Promise.all(blocks.map(async (tb) => /** @type {const} */ ([tb, await innerChunk(tb, at, signal, priority)])));
    ctx.reorder(); // a read-ahead of the same index this joined may go now
    const chunks = new Map(await reading);
    const pixel = at.iy * p + at.ix;
    return times.map((t) => {
      const data = /** @type {Values} */ (chunks.get(Math.floor(t / T)));
      const out = /** @type {Values} */ (new (/** @type {new (n: number) => Values} */ (data.constructor))(nBand));
      for (let b = 0; b < nBand; b++) out[b] = data[((t % T) * nBand + b) * p * p + pixel];
      return out;
    });
  }

  return { pixelHistory };
}
