/**
 * The state one open store's parts share: its metadata, transport, cache and the maps of work in
 * flight. The cache keys live here so that every part names a chunk's tiers alike.
 * @module
 */

/**
 * @typedef {object} StoreContext
 * @property {import('./metadata.js').StoreMetadata} meta
 * @property {ReturnType<typeof import('./transport.js').createTransport>} transport
 * @property {ReturnType<typeof import('./cache.js').createCache>} cache
 * @property {ReturnType<typeof import('./pool.js').createPool> | null} pool
 * @property {Map<string, import('./signals.js').SharedWork>} inflight requests and decodes by cache key, joined by later callers
 * @property {Map<string, Promise<void>>} lent compressed chunks lent (transferred) to a decode worker: key → settles when they are back
 * @property {ReturnType<typeof import('./cache.js').createCache>} indexes shard indexes (ShardIndex, or null for
 *   a shard that does not exist) by shard key, within their own byte budget
 * @property {boolean} star the store is star-delta encoded
 * @property {{ closed: boolean, decodes: number }} state
 * @property {() => void} reorder a waiting request's rank rose: let the limiter look again
 * @property {(t: import('./limiter.js').Ticket) => () => void} holdReadAhead a foreground read of dependent requests keeps read-ahead back until released
 */

/** Marks a chunk that is not stored (its fill value) in the compressed tier. */
export const FILL = Symbol('fill');

/**
 * One chunk of one array: the part of its cache keys after the tier prefix.
 * @param {{ path: string }} info @param {number} t @param {number} row @param {number} col
 */
export const chunkId = (info, t, row, col) => `${info.path}|${t}|${row}|${col}`;

/**
 * Cache key of a chunk in one tier: z compressed, v true values, s stored residuals, i shard index.
 * @param {'z' | 'v' | 's'} tier @param {{ path: string }} info @param {number} t @param {number} row @param {number} col
 */
export const tierKey = (tier, info, t, row, col) => `${tier}|${chunkId(info, t, row, col)}`;

/**
 * The anchor timestep t decodes through for this array, -1 when its chunks hold true values
 * (mask and coverage, and every timestep of a store without star-delta).
 * @param {StoreContext} ctx @param {{ banded: boolean }} info @param {number} t
 */
export const anchorOf = (ctx, info, t) => (ctx.star && info.banded ? ctx.meta.references[t] : -1);
