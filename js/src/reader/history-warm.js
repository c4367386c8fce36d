/**
 * Read-ahead of a history's shard indexes (`prefetchHistory`): the shards over a box of pixels,
 * nearest its centre first, within a budget, with the history's decoders loaded beside them.
 * Split from history.js by job; it shares the store's index cache and limiter.
 * @module
 */
import { decoderOf, prepareCodec } from './codecs.js';
import { historyShardId, timeBlocks } from './history-format.js';
import { ticketFor } from './limiter.js';

/**
 * @param {object} o
 * @param {import('./context.js').StoreContext} o.ctx
 * @param {import('./history-format.js').HistoryLayout} o.layout
 * @param {import('./history.js').ShardIndexRead} o.shardIndex
 * @param {import('./history-window.js').Part} o.dataPart
 * @param {import('./history-window.js').Part | null} o.maskPart
 */
export function createIndexWarming({ ctx, layout, shardIndex, dataPart, maskPart }) {
  const { inflight, pool } = ctx;
  const nTime = layout.array.shape[0];
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

  return { warmIndexes };
}
