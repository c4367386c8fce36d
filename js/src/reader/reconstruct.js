/**
 * Star-delta reconstruction (spec 4.2): anchor + residual, wrapping in the stored dtype.
 * @module
 */

/**
 * `anchor + delta` element by element, modulo 2^bits of the typed array: writing the sum into a
 * Uint8Array or Uint16Array wraps it exactly, with no clamp.
 * @template {Uint8Array | Uint16Array} T
 * @param {T} anchor
 * @param {T} delta
 * @param {T} [out] defaults to a new array of the same type
 * @returns {T}
 */
export function applyDelta(anchor, delta, out) {
  if (anchor.length !== delta.length) throw new RangeError(`anchor has ${anchor.length} elements, delta ${delta.length}`);
  if (!(anchor instanceof Uint8Array || anchor instanceof Uint16Array) || anchor.constructor !== delta.constructor) {
    throw new TypeError('star-delta applies to uint8 and uint16 arrays of one type');
  }
  const Type = /** @type {new (length: number) => T} */ (anchor.constructor); // Uint8Array or Uint16Array, checked above
  const target = out ?? new Type(anchor.length);
  for (let i = 0; i < anchor.length; i++) target[i] = anchor[i] + delta[i];
  return target;
}
