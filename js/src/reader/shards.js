/**
 * Shard indexes (spec 7.2): one (offset, nbytes) pair of uint64 per inner chunk and a crc32c.
 * @module
 */
import { crc32c } from './crc32c.js';
import { StoreError } from './errors.js';

/**
 * @typedef {object} ShardIndex
 * @property {Float64Array} offsets -1 where the chunk is empty (fill)
 * @property {Float64Array} lengths
 */

/**
 * Check the checksum and bounds of a raw index and return its entries.
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
  const body = raw.subarray(0, raw.length - 4);
  if (crc32c(body) !== view.getUint32(raw.length - 4, true)) {
    throw new StoreError(`${where}: shard index checksum mismatch (a corrupt shard, or a shard length from an outdated root zarr.json: reopen the store)`);
  }
  const offsets = new Float64Array(n);
  const lengths = new Float64Array(n);
  const dataStart = info.indexAtEnd ? 0 : info.indexBytes;
  const dataEnd = shardLength == null ? Infinity : info.indexAtEnd ? shardLength - info.indexBytes : shardLength;
  for (let i = 0; i < n; i++) {
    const oLo = view.getUint32(16 * i, true);
    const oHi = view.getUint32(16 * i + 4, true);
    const lLo = view.getUint32(16 * i + 8, true);
    const lHi = view.getUint32(16 * i + 12, true);
    if (oLo === 0xffffffff && oHi === 0xffffffff && lLo === 0xffffffff && lHi === 0xffffffff) {
      offsets[i] = -1;
      lengths[i] = -1;
      continue;
    }
    if (oHi >= 0x200000 || lHi >= 0x200000) throw new StoreError(`${where}: shard index entry ${i} is out of range`);
    const offset = oHi * 2 ** 32 + oLo;
    const length = lHi * 2 ** 32 + lLo;
    if (offset < dataStart || offset + length > dataEnd) throw new StoreError(`${where}: shard index points outside the shard's data`);
    offsets[i] = offset;
    lengths[i] = length;
  }
  return { offsets, lengths };
}

/** The key of a shard in chronozarr.shard_bytes: "<t_shard>/<row>/<col>". */
export function shardBytesKey(shardKey) {
  const parts = shardKey.split('/c/')[1].split('/');
  return [parts[0], ...parts.slice(-2)].join('/');
}
