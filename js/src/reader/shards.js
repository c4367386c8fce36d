/**
 * Shard indexes (spec 7.2): one (offset, nbytes) pair of uint64 per inner chunk and a crc32c.
 * @module
 */
import { crc32c } from './crc32c.js';
import { StoreError } from './errors.js';
import { SHARD_INDEX_CHECKSUM_BYTES as CHECKSUM, SHARD_INDEX_ENTRY_BYTES as ENTRY } from './limits.js';

/**
 * @typedef {object} ShardIndex
 * @property {Float64Array} offsets -1 where the chunk is empty (fill)
 * @property {Float64Array} lengths
 */

/** Bytes of the index of a shard of `chunks` inner chunks: 16 * n + 4 (spec 7.2). @param {number} chunks */
export const indexBytes = (chunks) => ENTRY * chunks + CHECKSUM;

/**
 * Check the checksum and every entry of a raw index and return its entries, by the rules of the
 * Python format/shard_index.py: a stored chunk has bytes, lies inside the shard's data (its end is
 * checked when the shard's length is known), and overlaps or repeats no other chunk. A shard can
 * carry a valid checksum over entries that lie, and one timestep would then read as another.
 * @param {Uint8Array} raw
 * @param {import('./arrays.js').ArrayInfo} info
 * @param {number | null} shardLength when known, every chunk must lie inside the shard's data
 * @param {string} where
 * @returns {ShardIndex}
 */
export function parseShardIndex(raw, info, shardLength, where) {
  const n = info.chunksPerShard;
  if (raw.length !== info.indexBytes) throw new StoreError(`${where}: shard index is ${raw.length} bytes, expected ${info.indexBytes}`);
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const body = raw.subarray(0, raw.length - CHECKSUM);
  if (crc32c(body) !== view.getUint32(raw.length - CHECKSUM, true)) {
    throw new StoreError(`${where}: shard index checksum mismatch (a corrupt shard, or a shard length from an outdated root zarr.json: reopen the store)`);
  }
  const offsets = new Float64Array(n);
  const lengths = new Float64Array(n);
  const dataStart = info.indexAtEnd ? 0 : info.indexBytes;
  const dataEnd = shardLength == null ? Infinity : info.indexAtEnd ? shardLength - info.indexBytes : shardLength;
  /** @param {string} message */
  const damaged = (message) => new StoreError(`${where}: shard index ${message}; the shard is damaged: re-encode or re-upload it`);
  for (let i = 0; i < n; i++) {
    const emptyOffset = view.getUint32(ENTRY * i, true) === 0xffffffff && view.getUint32(ENTRY * i + 4, true) === 0xffffffff;
    const emptyLength = view.getUint32(ENTRY * i + 8, true) === 0xffffffff && view.getUint32(ENTRY * i + 12, true) === 0xffffffff;
    if (emptyOffset !== emptyLength) throw damaged(`entry ${i} is half empty: both values must be 2^64-1`);
    if (emptyOffset) {
      offsets[i] = -1;
      lengths[i] = -1;
      continue;
    }
    const offset = uint64(view, ENTRY * i);
    const length = uint64(view, ENTRY * i + 8);
    if (length === 0) throw damaged(`entry ${i} stores a chunk of 0 bytes`);
    if (offset == null || length == null || offset < dataStart || offset + length > dataEnd) {
      const inside = shardLength == null ? 'past the index' : `inside bytes ${dataStart}-${dataEnd - 1}, the shard's data`;
      throw damaged(`entry ${i} (offset ${offset ?? '> 2^53'}, ${length ?? '> 2^53'} bytes) does not lie ${inside}`);
    }
    offsets[i] = offset;
    lengths[i] = length;
  }
  checkDisjoint(offsets, lengths, damaged);
  return { offsets, lengths };
}

/** A uint64 as a number, or null beyond 2^53 (no shard is that large). @param {DataView} view @param {number} at */
function uint64(view, at) {
  const high = view.getUint32(at + 4, true);
  return high >= 0x200000 ? null : high * 2 ** 32 + view.getUint32(at, true);
}

/**
 * No two stored chunks share a byte.
 * @param {Float64Array} offsets @param {Float64Array} lengths @param {(message: string) => StoreError} damaged
 */
function checkDisjoint(offsets, lengths, damaged) {
  const stored = [];
  for (let i = 0; i < offsets.length; i++) if (offsets[i] >= 0) stored.push(i);
  stored.sort((a, b) => offsets[a] - offsets[b] || a - b);
  for (let k = 1; k < stored.length; k++) {
    const [a, b] = [stored[k - 1], stored[k]];
    if (offsets[a] + lengths[a] > offsets[b]) {
      const [i, j] = a < b ? [a, b] : [b, a];
      const kind = offsets[i] === offsets[j] && lengths[i] === lengths[j] ? 'repeat each other' : 'overlap';
      throw damaged(`entries ${i} (offset ${offsets[i]}, ${lengths[i]} bytes) and ${j} (offset ${offsets[j]}, ${lengths[j]} bytes) ${kind}: each inner chunk must have bytes of its own`);
    }
  }
}
