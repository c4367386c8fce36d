/**
 * Reading an answer's body within a bound on its size, whether or not Content-Length says so, and
 * telling the request's watchdog of every read so that a stall is timed from the last one.
 * @module
 */
import { FetchError } from './errors.js';

/** @typedef {{ tick: (bytes: number) => void }} ReadWatch */

/** Let go of a body that is not read. @param {Response} response */
export async function discard(response) {
  try {
    await response.body?.cancel();
  } catch {
    // a body that cannot be cancelled is garbage collected instead
  }
}

/**
 * The body, refusing more than `limit` bytes.
 * @param {Response} response
 * @param {number} limit
 * @param {string} where the URL, for errors
 * @param {ReadWatch} watch told of every read
 * @returns {Promise<Uint8Array>}
 */
export async function readBody(response, limit, where, watch) {
  const declared = response.headers.get('content-length');
  if (declared != null && /^\d+$/.test(declared) && Number(declared) > limit) {
    await discard(response);
    throw new FetchError(where, response.status, `the object is ${declared} bytes, more than the ${limit}-byte bound on it`);
  }
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  if (declared != null && /^\d+$/.test(declared)) {
    // Read straight into one buffer of the declared size: no list of parts to join at the end
    // (arrayBuffer() builds one), which is most of the main thread's time for a large chunk.
    let reader = null;
    try {
      reader = response.body.getReader({ mode: 'byob' });
    } catch {
      // not a byte stream here: read it whole
    }
    if (!reader) return new Uint8Array(await response.arrayBuffer());
    return readInto(reader, Number(declared), limit, where, response.status, watch);
  }
  const reader = response.body.getReader();
  /** @type {Uint8Array[]} */
  const parts = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    watch.tick(value.length);
    total += value.length;
    if (total > limit) {
      await reader.cancel();
      throw new FetchError(where, response.status, `the object is more than the ${limit}-byte bound on it`);
    }
    parts.push(value);
  }
  return concat(parts, total);
}

/**
 * One buffer holding `parts` in order.
 * @param {Uint8Array[]} parts
 * @param {number} total their summed length
 */
function concat(parts, total) {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Read a byte stream into a buffer of `size` bytes (the declared length); a body that turns out
 * longer is still read whole, within `limit`.
 * @param {ReadableStreamBYOBReader} reader
 * @param {number} size
 * @param {number} limit
 * @param {string} where
 * @param {number} status
 * @param {ReadWatch} watch
 * @returns {Promise<Uint8Array>}
 */
async function readInto(reader, size, limit, where, status, watch) {
  /** @type {ArrayBufferLike} */
  let buffer = new ArrayBuffer(Math.max(size, 1));
  let at = 0;
  while (at < size) {
    /** @type {ReadableStreamReadResult<Uint8Array>} */
    const { done, value } = await reader.read(new Uint8Array(buffer, at, size - at));
    if (done) return new Uint8Array(value ? value.buffer : buffer, 0, at);
    watch.tick(value.byteLength);
    buffer = value.buffer;
    at += value.byteLength;
  }
  // Declared length reached: the stream should end here.
  const parts = [new Uint8Array(buffer, 0, at)];
  let total = at;
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(new ArrayBuffer(65536)));
    if (done) break;
    watch.tick(value.byteLength);
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw new FetchError(where, status, `the object is more than the ${limit}-byte bound on it`);
    }
    parts.push(value);
  }
  if (parts.length === 1) return size === buffer.byteLength ? new Uint8Array(buffer) : parts[0];
  return concat(parts, total);
}
