/**
 * A level-0 pixel's history from the time-major history array (docs/format-history.md): per time
 * block, the shard's index (one bounded range with the declaration's shard_bytes, cached per store
 * handle with the other shard indexes) and the inner chunk's range, decoded where the level's
 * chunks are (a decode worker when there are workers). A store whose axis fits one block answers
 * with two requests. The decoded inner chunks are cached, so the pixels around one cost nothing.
 * The mask copy (version 1.1) is read the same way; asked together, the data's and the mask's
 * reads go out side by side: four requests in two round trips.
 * @module
 */
import { fillChunk, typedView } from './arrays.js';
import { decodeBytes, decoderOf, prepareCodec } from './codecs.js';
import { StoreError } from './errors.js';
import { historyMaskShardKey, historyPlace, historyShardId, historyShardKey, timeBlocks } from './history-format.js';
import { createWindowReads } from './history-window.js';
import { decodesFirst, ticketFor } from './limiter.js';
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
  const [, nBand, p] = layout.array.chunkShape;
  const nTime = layout.array.shape[0];
  /**
   * One of the history's arrays: the data's, or the mask copy's.
   * @typedef {import('./history-window.js').Part} Part
   */
  /** @type {Part} */
  const dataPart = { tag: 'h', info: layout.array, key: (tb, r, c) => historyShardKey(layout, tb, r, c), shardBytes: layout.shardBytes };
  /** @type {Part | null} */
  const maskPart = layout.mask && { tag: 'hm', info: layout.mask.array, key: historyMaskShardKey, shardBytes: layout.mask.shardBytes };

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

  /**
   * Read ahead the shard indexes (the data's and the mask copy's, every time block) of the history
   * shards over a box of level-0 pixels, nearest its centre first, within `maxShards` shards and
   * `maxBytes` of index, at `priority`: a pixel there then costs one range per time block.
   * Indexes held already cost nothing; shards not stored (absent from shard_bytes) are skipped.
   * Never rejects: a failed or aborted read is counted and left for the pixel's own read.
   * @param {{ y0: number, x0: number, y1: number, x1: number }} box level-0 pixels, ends exclusive
   * @param {{ maxShards: number, maxBytes: number, signal?: AbortSignal, priority: 'frame' | 'background' }} options
   * @returns {Promise<{ shards: number, indexes: number, read: number, bytes: number, failed: number }>}
   */
  async function warmIndexes(box, { maxShards, maxBytes, signal, priority }) {
    warmCodecs();
    const s = layout.shard;
    const [height, width] = layout.array.shape.slice(2);
    const span = (/** @type {number} */ a, /** @type {number} */ b, /** @type {number} */ n) => [Math.max(0, Math.floor(a / s)), Math.min(Math.ceil(n / s), Math.ceil(b / s)) - 1];
    const [[r0, r1], [c0, c1]] = [span(box.y0, box.y1, height), span(box.x0, box.x1, width)];
    const [cy, cx] = [(box.y0 + box.y1) / 2, (box.x0 + box.x1) / 2];
    const shards = [];
    for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) shards.push({ r, c, d: Math.hypot((r + 0.5) * s - cy, (c + 0.5) * s - cx) });
    shards.sort((a, b) => a.d - b.d);
    const parts = maskPart ? [dataPart, maskPart] : [dataPart];
    const perShard = timeBlocks(layout, nTime) * parts.reduce((n, part) => n + part.info.indexBytes, 0);
    const chosen = shards.slice(0, Math.max(0, Math.min(maxShards, Math.floor(maxBytes / perShard))));
    const out = { shards: chosen.length, indexes: 0, read: 0, bytes: 0, failed: 0 };
    const reads = [];
    for (const { r, c } of chosen) {
      for (let tb = 0; tb < timeBlocks(layout, nTime); tb++) {
        for (const part of parts) {
          const listed = part.shardBytes[historyShardId(tb, r, c)];
          if (!Number.isInteger(listed)) continue; // not stored: all fill, nothing to read
          const key = part.key(tb, r, c);
          out.indexes++;
          if (ctx.indexes.has(key)) continue;
          if (!inflight.has(`i|${key}`)) {
            out.read++;
            out.bytes += part.info.indexBytes;
          }
          // A ticket per index: a pixel's read that joins one moves up that one only.
          reads.push(shardIndex(part.info, key, listed, signal, ticketFor(priority), true).catch(() => out.failed++));
        }
      }
    }
    await Promise.all(reads);
    return out;
  }

  let codecsWarmed = false;
  /**
   * Load the history's decoders now, in the workers and here, with the shard indexes: from version
   * 1.2 the data history is blosc with bit shuffle, which the levels may not use, and a click
   * would otherwise wait for its module (about 600 kB of script) as well as for its bytes.
   */
  function warmCodecs() {
    if (codecsWarmed) return;
    codecsWarmed = true;
    const names = [...new Set([dataPart, maskPart].flatMap((part) => (part?.info.codec ? [decoderOf(part.info.codec)] : [])))];
    pool?.prepare(names);
    for (const name of names) prepareCodec(name);
  }

  const { windowHistory } = createWindowReads({ ctx, layout, shardIndex, decodedBytes, dataPart, maskPart });
  return { pixelHistory, pixelMaskHistory, windowHistory, warmIndexes, hasMask: maskPart != null };
}
