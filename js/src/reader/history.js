/**
 * A pixel's history from the time-major history array of its level (docs/format-history.md;
 * level 0's, or from version 1.3 a coarser level's, one reader per level): per time
 * block, the shard's index (one bounded range with the declaration's shard_bytes, cached per store
 * handle with the other shard indexes) and the inner chunk's range, decoded where the level's
 * chunks are (a decode worker when there are workers). A store whose axis fits one block answers
 * with two requests. The decoded inner chunks are cached, so the pixels around one cost nothing.
 * The mask copy (version 1.1) is read the same way; asked together, the data's and the mask's
 * reads go out side by side: four requests in two round trips.
 * @module
 */
import { fillChunk, typedView } from './arrays.js';
import { decodeBytes } from './codecs.js';
import { StoreError } from './errors.js';
import { historyParts, historyPlace, historyShardId } from './history-format.js';
import { createPixelReads } from './history-pixel.js';
import { createIndexWarming } from './history-warm.js';
import { createWindowReads } from './history-window.js';
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
  /** @typedef {import('./history-window.js').Part} Part */
  const { dataPart, maskPart } = historyParts(layout);

  /**
   * The decoded inner chunk ([T][band] or [T]) x [p][p] of a part holding a place in time block tb
   * (fill when not stored).
   * @param {Part} part @param {number} tb @param {import('./history-format.js').HistoryPlace} at
   * @param {AbortSignal} signal @param {Ticket} priority
   * @returns {Promise<Values>}
   */
  function innerChunk(part, tb, at, signal, priority) {
    const key = `${part.tag}|${tb}|${at.r}|${at.c}|${at.inner}`;
    const hit = /** @type {Values | undefined} */ (cache.get(key)); // the h and hm keys hold decoded inner chunks
    if (hit !== undefined) return Promise.resolve(hit);
    return shared(inflight, key, signal, priority, async (s) => {
      const shardKey = part.key(tb, at.r, at.c);
      const listed = part.shardBytes[historyShardId(tb, at.r, at.c)];
      const index = await shardIndex(part.info, shardKey, Number.isInteger(listed) ? listed : null, s, priority, true);
      const out = index && index.offsets[at.inner] >= 0 ? await decoded(part.info, shardKey, index.offsets[at.inner], index.lengths[at.inner], s, priority) : fillChunk(part.info);
      if (!state.closed) cache.set(key, out, out.byteLength, 'decoded');
      return out;
    });
  }

  /**
   * One stored inner chunk, read by its range and decoded.
   * @param {import('./arrays.js').DataArrayInfo} info @param {string} shardKey @param {number} offset @param {number} length
   * @param {AbortSignal} signal @param {Ticket} priority
   */
  async function decoded(info, shardKey, offset, length, signal, priority) {
    const bytes = await transport.range(shardKey, offset, length, { signal, priority });
    if (bytes == null) throw new StoreError(`${transport.url(shardKey)} disappeared while it was being read`);
    return decodedBytes(info, shardKey, offset, bytes, signal, priority);
  }

  /**
   * An inner chunk's bytes decoded.
   * @param {import('./arrays.js').DataArrayInfo} info @param {string} shardKey @param {number} offset @param {Uint8Array} bytes
   * @param {AbortSignal} signal @param {Ticket} priority
   */
  async function decodedBytes(info, shardKey, offset, bytes, signal, priority) {
    const where = `${transport.url(shardKey)} (bytes ${offset}-${offset + bytes.length - 1})`;
    state.decodes++;
    let raw;
    if (!info.codec) raw = bytes;
    else if (pool) raw = await pool.decode(info.codec, bytes, info.chunkBytes, where, signal, () => {}, decodesFirst(priority) ? 0 : 1);
    else raw = await decodeBytes(info.codec, bytes, info.chunkBytes, where);
    if (raw.length !== info.chunkBytes) throw new StoreError(`${where}: chunk decodes to ${raw.length} bytes, expected ${info.chunkBytes}`);
    return typedView(info.dtype, raw);
  }

  const { pixelHistory, pixelMaskHistory } = createPixelReads({ ctx, layout, innerChunk, dataPart, maskPart });
  const { windowHistory } = createWindowReads({ ctx, layout, shardIndex, decodedBytes, dataPart, maskPart });
  const { warmIndexes } = createIndexWarming({ ctx, layout, shardIndex, dataPart, maskPart });
  return { pixelHistory, pixelMaskHistory, windowHistory, warmIndexes, hasMask: maskPart != null, level: layout.level };
}
