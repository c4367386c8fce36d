/**
 * The compressed bytes of one stored chunk: one GET per chunk when unsharded; one bounded index
 * read per shard (cached), then one range per chunk when sharded. The shard's length comes from
 * chronozarr.shard_bytes when the store lists it, from a HEAD otherwise (spec 7.3).
 * @module
 */
import { FILL, tierKey } from './context.js';
import { StoreError } from './errors.js';
import { chunkKey, shardBytesId } from './geometry.js';
import { parseShardIndex } from './shards.js';
import { shared } from './signals.js';

/** @typedef {import('./arrays.js').DataArrayInfo} ArrayInfo */

/**
 * The chunk reads (`compressed`) and the shard indexes they go through (`shardIndex`, which the
 * history reads use too).
 * @param {import('./context.js').StoreContext} ctx
 */
export function createChunkBytes(ctx) {
  const { meta, transport, cache, inflight, lent, state } = ctx;
  const shardIndex = createShardIndexes(ctx);

  /**
   * Compressed bytes of one stored chunk, or null when it is not stored (fill).
   * @param {ArrayInfo} info @param {number} t @param {number} row @param {number} col
   * @param {AbortSignal | undefined} signal @param {import('./limiter.js').Ticket} priority
   * @returns {Promise<Uint8Array | null>}
   */
  function compressed(info, t, row, col, signal, priority) {
    const key = tierKey('z', info, t, row, col);
    const away = lent.get(key);
    if (away) return away.then(() => compressed(info, t, row, col, signal, priority));
    const hit = /** @type {Uint8Array | typeof FILL | undefined} */ (cache.get(key)); // the z tier holds these
    if (hit !== undefined) return Promise.resolve(hit === FILL ? null : hit);
    return shared(inflight, key, signal, priority, async (s) => {
      const shardTime = info.shardShape?.[0];
      const bytes = shardTime ? await fromShard(info, shardTime, t, row, col, s, priority) : await whole(transport, info, t, row, col, s, priority);
      if (!state.closed) cache.set(key, bytes ?? FILL, bytes ? bytes.length : 64, 'compressed');
      return bytes;
    });
  }

  /**
   * A chunk inside its shard: the shard's index, then the chunk's range; null when not stored.
   * @param {ArrayInfo} info @param {number} shardTime timesteps per shard @param {number} t @param {number} row @param {number} col
   * @param {AbortSignal | undefined} signal @param {import('./limiter.js').Ticket} priority
   */
  async function fromShard(info, shardTime, t, row, col, signal, priority) {
    const shardKey = chunkKey(info.path, t, row, col, { banded: info.banded, shardTime });
    const index = await shardIndex(info, shardKey, listedLength(meta, info, t, row, col, shardTime), signal, priority);
    const position = t % shardTime;
    if (!index || index.offsets[position] < 0) return null;
    const bytes = await transport.range(shardKey, index.offsets[position], index.lengths[position], { signal, priority });
    if (bytes == null) throw new StoreError(`${transport.url(shardKey)} disappeared while it was being read`);
    return bytes;
  }

  return { compressed, shardIndex };
}

/**
 * The shard indexes, read once (concurrent reads joined) and kept in `ctx.indexes`.
 * @param {import('./context.js').StoreContext} ctx
 */
function createShardIndexes(ctx) {
  const { meta, transport, inflight, indexes, state } = ctx;

  /**
   * The shard's index from cache or store; null when the shard does not exist (all fill).
   * `lengthsListed`: the array's shard lengths are listed, so one that is not listed costs a HEAD
   * (the level arrays' when chronozarr.shard_bytes has entries; the history array's always).
   * @param {ArrayInfo} info @param {string} shardKey @param {number | null} listed
   * @param {AbortSignal | undefined} signal @param {import('./limiter.js').Ticket} priority
   * @param {boolean} [lengthsListed]
   * @returns {Promise<import('./shards.js').ShardIndex | null>}
   */
  function shardIndex(info, shardKey, listed, signal, priority, lengthsListed = Object.keys(meta.shardBytes).length > 0) {
    const known = /** @type {import('./shards.js').ShardIndex | null | undefined} */ (indexes.get(shardKey)); // what keep() put there
    if (known !== undefined) return Promise.resolve(known);
    const reading = shared(inflight, `i|${shardKey}`, signal, priority, async (s) => {
      const n = info.indexBytes;
      let length = listed;
      if (length == null && info.indexAtEnd && lengthsListed) {
        // The store lists shard lengths; one it does not list (a mask shard) costs a HEAD (spec 7.3).
        length = await transport.size(shardKey, { signal: s, priority });
        if (length == null) return keep(shardKey, null);
      }
      let raw;
      if (!info.indexAtEnd) raw = await transport.range(shardKey, 0, n, { signal: s, priority });
      else if (length != null) {
        if (length < n) throw new StoreError(`${transport.url(shardKey)}: shard_bytes gives ${length} bytes, less than its ${n}-byte index`);
        raw = await transport.range(shardKey, length - n, n, { signal: s, priority });
      } else raw = await transport.suffix(shardKey, n, { signal: s, priority });
      return keep(shardKey, raw == null ? null : parseShardIndex(raw, info, length, transport.url(shardKey)));
    });
    // A read that joined a queued read-ahead of this index (the viewer's warm-up) raised its rank
    // after its caller last asked the limiter: it may go now, not when a request next ends.
    ctx.reorder();
    return reading;
  }

  /**
   * Cache a shard's index (null: the shard does not exist) at what its entries take.
   * @param {string} shardKey @param {import('./shards.js').ShardIndex | null} index
   */
  function keep(shardKey, index) {
    if (!state.closed) indexes.set(shardKey, index, index ? index.offsets.byteLength + index.lengths.byteLength : 64, 'compressed');
    return index;
  }

  return shardIndex;
}

/**
 * An unsharded chunk, read whole within a little more than its decoded size.
 * @param {import('./context.js').StoreContext['transport']} transport
 * @param {ArrayInfo} info @param {number} t @param {number} row @param {number} col
 * @param {AbortSignal | undefined} signal @param {import('./limiter.js').Ticket} priority
 */
function whole(transport, info, t, row, col, signal, priority) {
  const limit = Math.ceil(info.chunkBytes * 1.1) + 65536;
  return transport.get(chunkKey(info.path, t, row, col, { banded: info.banded }), { signal, priority, limit });
}

/**
 * The shard's length from chronozarr.shard_bytes (data arrays only), else null.
 * @param {import('./metadata.js').StoreMetadata} meta
 * @param {ArrayInfo} info @param {number} t @param {number} row @param {number} col @param {number} shardTime
 */
function listedLength(meta, info, t, row, col, shardTime) {
  const levelPath = info.path.split('/')[0];
  if (info.path !== `${levelPath}/${meta.variable}`) return null;
  const listed = meta.shardBytes[levelPath]?.[shardBytesId(t, row, col, shardTime)];
  return Number.isInteger(listed) ? listed : null;
}
