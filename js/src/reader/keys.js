/**
 * Object keys of chunks and shards (spec 2, 7.1).
 * @module
 */

/**
 * The key of the object holding timestep `t` of cell (row, col): the chunk itself when unsharded,
 * else its time shard (`floor(t / shardTime)`).
 * @param {string} arrayPath e.g. "0/data"
 * @param {number} t
 * @param {number} row
 * @param {number} col
 * @param {{ banded?: boolean, shardTime?: number }} [options] banded: data arrays have a band index
 *   (always 0); mask and coverage do not. shardTime: timesteps per shard, 0 when unsharded.
 * @returns {string}
 */
export function chunkKey(arrayPath, t, row, col, { banded = true, shardTime = 0 } = {}) {
  const index = shardTime > 0 ? Math.floor(t / shardTime) : t;
  return banded ? `${arrayPath}/c/${index}/0/${row}/${col}` : `${arrayPath}/c/${index}/${row}/${col}`;
}
