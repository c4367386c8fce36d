/**
 * Compressed chunk → typed array of its stored values, on the calling thread or in a decode
 * worker, and the two decoded cache tiers over it: true values (anchor + residual reconstructed
 * for a star-delta timestep) and stored values (the residuals as stored).
 * @module
 */
import { fillChunk, typedView } from './arrays.js';
import { decodeBytes } from './codecs.js';
import { anchorOf, tierKey } from './context.js';
import { StoreError } from './errors.js';
import { chunkKey } from './geometry.js';
import { decodesFirst } from './limiter.js';
import { applyDelta } from './reconstruct.js';
import { shared } from './signals.js';

/** @typedef {import('./arrays.js').DataArrayInfo} ArrayInfo */
/** @typedef {import('./arrays.js').DataValues} Values */
/** @typedef {(info: ArrayInfo, t: number, row: number, col: number, signal: AbortSignal | undefined, priority: import('./limiter.js').Ticket) => Promise<Values>} ChunkRead */

/**
 * @param {import('./context.js').StoreContext} ctx
 * @param {(info: ArrayInfo, t: number, row: number, col: number, signal: AbortSignal | undefined, priority: import('./limiter.js').Ticket) => Promise<Uint8Array | null>} compressed
 */
export function createDecoding(ctx, compressed) {
  const { transport, cache, inflight, lent, pool, state } = ctx;

  /**
   * Decoded stored values of one chunk (residuals for a delta timestep).
   * @type {ChunkRead}
   */
  async function stored(info, t, row, col, signal, priority) {
    const key = tierKey('z', info, t, row, col);
    let bytes = await compressed(info, t, row, col, signal, priority);
    // Decodes that joined one read get the same bytes: the first may have lent them to a worker by
    // now (transferred, detached here); the others wait until they are back in the cache.
    while (lent.has(key)) bytes = await compressed(info, t, row, col, signal, priority);
    if (bytes == null) return fillChunk(info);
    const where = transport.url(chunkKey(info.path, t, row, col, { banded: info.banded, shardTime: info.shardShape?.[0] ?? 0 }));
    state.decodes++;
    let raw;
    if (!info.codec) raw = bytes.slice();
    else if (pool) raw = await decodeInPool(ctx, { pool, codec: info.codec, expected: info.chunkBytes }, key, bytes, where, signal, priority);
    else raw = await decodeBytes(info.codec, bytes, info.chunkBytes, where);
    if (raw.length !== info.chunkBytes) throw new StoreError(`${where}: chunk decodes to ${raw.length} bytes, expected ${info.chunkBytes}`);
    return typedView(info.dtype, raw);
  }

  /**
   * True values of one chunk, cached: stored values, or anchor + residual for a delta timestep.
   * @type {ChunkRead}
   */
  function values(info, t, row, col, signal, priority) {
    const key = tierKey('v', info, t, row, col);
    const hit = /** @type {Values | undefined} */ (cache.get(key)); // the v and s tiers hold decoded chunks
    if (hit !== undefined) return Promise.resolve(hit);
    return shared(inflight, key, signal, priority, async (s) => {
      const anchor = anchorOf(ctx, info, t);
      let out;
      if (anchor >= 0) {
        // A timestep with an anchor is star-delta, so uint8 or uint16 (checked when the store opened; applyDelta checks again).
        const [base, residual] = /** @type {[Uint8Array | Uint16Array, Uint8Array | Uint16Array]} */ (
          await Promise.all([values(info, anchor, row, col, s, priority), stored(info, t, row, col, s, priority)])
        );
        out = applyDelta(base, residual, residual);
      } else {
        out = await stored(info, t, row, col, s, priority);
      }
      if (!state.closed) cache.set(key, out, out.byteLength, 'decoded');
      return out;
    });
  }

  /**
   * Decoded stored values of one chunk, cached: the residual for a delta timestep (not
   * reconstructed), the true values otherwise.
   * @type {ChunkRead}
   */
  function storedValues(info, t, row, col, signal, priority) {
    if (anchorOf(ctx, info, t) < 0) return values(info, t, row, col, signal, priority);
    const key = tierKey('s', info, t, row, col);
    const hit = /** @type {Values | undefined} */ (cache.get(key)); // the v and s tiers hold decoded chunks
    if (hit !== undefined) return Promise.resolve(hit);
    return shared(inflight, key, signal, priority, async (s) => {
      const out = await stored(info, t, row, col, s, priority);
      if (!state.closed) cache.set(key, out, out.byteLength, 'decoded');
      return out;
    });
  }

  return { values, storedValues };
}

/**
 * Decode in a worker, transferring the compressed bytes instead of copying them. While they are
 * away their cache entry is marked lent (a reader of it waits); the worker sends them back and
 * they go back into the entry, or the entry is dropped if they are lost (a failed worker).
 * @param {Pick<import('./context.js').StoreContext, 'cache' | 'lent' | 'state'>} ctx
 * @param {{ pool: NonNullable<import('./context.js').StoreContext['pool']>, codec: import('./codecs.js').CodecSpec, expected: number }} job
 * @param {string} key @param {Uint8Array} bytes @param {string} where
 * @param {AbortSignal | undefined} signal @param {import('./limiter.js').Ticket} priority
 */
async function decodeInPool({ cache, lent, state }, { pool, codec, expected }, key, bytes, where, signal, priority) {
  /** @type {() => void} */
  let settle = () => {};
  const away = new Promise((resolve) => (settle = () => resolve(undefined)));
  lent.set(key, away);
  let handled = false;
  /** @param {Uint8Array | null} input */
  const returned = (input) => {
    if (handled) return;
    handled = true;
    if (input !== bytes && cache.peek(key) === bytes) {
      if (input && !state.closed) cache.replace(key, input);
      else cache.remove(key);
    }
    if (lent.get(key) === away) lent.delete(key);
    settle();
  };
  try {
    return await pool.decode(codec, bytes, expected, where, signal, returned, decodesFirst(priority) ? 0 : 1);
  } finally {
    if (!handled) returned(bytes.byteLength ? bytes : null); // empty: it left and did not come back
  }
}
