/**
 * zstd (spec 8's default codec): the frame's declared content size, and decoding with zstddec, a
 * decoder-only WebAssembly build of the reference library: a tenth of the bytes of numcodecs' zstd
 * module (which carries the encoder too) on a page's first load, and faster to decode. Chunks
 * larger than ZSTDDEC_MAX bytes, which its allocator could fail to take, and every chunk where
 * zstddec cannot be loaded (a page whose import map names only numcodecs) go through numcodecs.
 * Nothing is imported by a bare name statically: a module worker gets the module's URL (setZstdUrl).
 * @module
 */

/** Largest decoded chunk (and frame) zstddec is given. */
export const ZSTDDEC_MAX = 64 * 2 ** 20;

/** @typedef {{ init(): Promise<void>, decode(bytes: Uint8Array, size: number): Uint8Array }} Decoder */

/** @type {Promise<Decoder> | null} */
let loading = null;
/** zstddec could not be loaded here (a page whose import map does not name it): numcodecs decodes. */
let unavailable = false;
/** @type {string | undefined} */
let url;

/** The resolved URL of zstddec, for a worker (undefined: a bundler or no import map resolves it). */
export function resolveZstdUrl() {
  try {
    return import.meta.resolve('zstddec');
  } catch {
    return undefined;
  }
}

/** @param {string | undefined} resolved zstddec's URL, from the page that started this worker */
export function setZstdUrl(resolved) {
  url = resolved;
}

/** The decoder, loaded and compiled once per thread. @returns {Promise<Decoder>} */
export function zstdDecoder() {
  if (!loading) {
    loading = (url ? import(url) : import('zstddec')).then(async (/** @type {{ ZSTDDecoder: new () => Decoder }} */ m) => {
      const decoder = new m.ZSTDDecoder();
      await decoder.init();
      decoder.decode(WARM_FRAME, WARM_SIZE); // the first call sets its heap up
      return decoder;
    });
    loading.catch(() => (unavailable = true));
  }
  return loading;
}

const WARM_SIZE = 64;
/** A frame of WARM_SIZE bytes in one raw block: magic, single-segment header with a 1-byte size, block header. */
const WARM_FRAME = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x20, WARM_SIZE, 1 | (WARM_SIZE << 3), 0, 0, ...new Array(WARM_SIZE).fill(7)]);

/**
 * The frame's declared content size, or null when the frame does not declare it (RFC 8878 3.1.1.1).
 * @param {Uint8Array} bytes
 * @returns {number | null}
 */
export function zstdContentSize(bytes) {
  if (bytes.length < 6) throw new Error('zstd frame shorter than its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== 0xfd2fb528) throw new Error('not a zstd frame (bad magic number)');
  const descriptor = bytes[4];
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictIdSize = [0, 1, 2, 4][descriptor & 3];
  const at = 5 + (singleSegment ? 0 : 1) + dictIdSize;
  const size = fcsFlag === 0 ? (singleSegment ? 1 : 0) : [0, 2, 4, 8][fcsFlag];
  if (size === 0) return null;
  if (bytes.length < at + size) throw new Error('zstd frame shorter than its header');
  if (size === 1) return bytes[at];
  if (size === 2) return view.getUint16(at, true) + 256;
  if (size === 4) return view.getUint32(at, true);
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
}

/**
 * The frame, declaring `expected` as its content size when it declares none (as the Python
 * reader's format/codecs.py does). A streamed frame makes a decoder grow its output without
 * bound; declared, the decoder allocates exactly `expected` and fails if the frame holds more or
 * less. A frame that declares another size is refused.
 * @param {Uint8Array} bytes @param {number} expected
 */
export function zstdWithSize(bytes, expected) {
  const declared = zstdContentSize(bytes);
  if (declared != null) {
    if (declared !== expected) throw new Error(`zstd frame declares ${declared} bytes, expected ${expected}`);
    return bytes;
  }
  const fields = 6 + [0, 1, 2, 4][bytes[4] & 3]; // magic, descriptor, window, dictionary id
  if (bytes.length < fields) throw new Error('zstd frame shorter than its header');
  const out = new Uint8Array(bytes.length + 8);
  out.set(bytes.subarray(0, fields));
  out[4] = bytes[4] | 0xc0;
  new DataView(out.buffer).setBigUint64(fields, BigInt(expected), true);
  out.set(bytes.subarray(fields), fields + 8);
  return out;
}

/**
 * Decode a frame to `expected` bytes with zstddec, or null when it is too large for it. zstddec
 * answers a frame it cannot decode with fewer bytes than asked for (its error code), which the
 * caller's length check refuses.
 * @param {Uint8Array} framed a frame declaring `expected` (zstdWithSize) @param {number} expected
 * @returns {Promise<Uint8Array | null>}
 */
export async function decodeZstd(framed, expected) {
  if (unavailable || expected > ZSTDDEC_MAX || framed.length > ZSTDDEC_MAX) return null;
  let decoder;
  try {
    decoder = await zstdDecoder();
  } catch {
    return null;
  }
  return decoder.decode(framed, expected);
}
