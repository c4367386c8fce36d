/**
 * Decompressing one stored chunk (spec 8: zstd, blosc with zstd or lz4, gzip) to exactly the bytes
 * its shape holds. zstd and blosc are numcodecs' WebAssembly builds; gzip uses the platform's
 * DecompressionStream where there is one. Nothing here imports a bare specifier statically, so the
 * module also loads in a module worker, where import maps do not apply: the pool hands the worker
 * resolved URLs of the codec modules instead.
 * @module
 */
import { StoreError } from './errors.js';

/**
 * @typedef {object} CodecSpec
 * @property {'zstd' | 'blosc' | 'gzip'} name
 * @property {string} [cname]
 * @property {string} [shuffle]
 */

/** @type {Record<string, Promise<any>>} */
const modules = {};

/** @type {Record<string, string>} resolved module URLs, set by a worker's first message */
let moduleUrls = {};

/** @param {Record<string, string>} urls */
export function setCodecUrls(urls) {
  moduleUrls = { ...urls };
}

/** Resolved URLs of the codec modules, for a worker (undefined entries fall back to bare names). */
export function resolveCodecUrls() {
  /** @type {Record<string, string>} */
  const urls = {};
  for (const name of ['zstd', 'blosc', 'gzip']) {
    try {
      urls[name] = import.meta.resolve(`numcodecs/${name}`);
    } catch {
      // no resolver (a bundler) or no mapping: the worker tries the bare name
    }
  }
  return urls;
}

/** @param {'zstd' | 'blosc' | 'gzip'} name */
function codecModule(name) {
  if (!modules[name]) {
    const url = moduleUrls[name];
    if (url) modules[name] = import(url);
    else if (name === 'zstd') modules[name] = import('numcodecs/zstd');
    else if (name === 'blosc') modules[name] = import('numcodecs/blosc');
    else modules[name] = import('numcodecs/gzip');
    modules[name].catch(() => delete modules[name]);
  }
  return modules[name];
}

/**
 * Load a codec now and compile its WebAssembly (by running it over a small synthetic chunk), so
 * that the first real chunk waits for neither. Failures are ignored: the real decode reports them.
 * @param {'zstd' | 'blosc' | 'gzip'} name
 */
export async function prepareCodec(name) {
  await exercise(name, 4096, 1);
}

/**
 * Load a codec and run it over a synthetic chunk of about `bytes` bytes a few times, so that the
 * real chunks decoded later neither wait for compilation, nor grow the WebAssembly memory, nor run
 * on V8's baseline tier (the optimized code is shared by every thread of the page).
 * @param {'zstd' | 'blosc' | 'gzip'} name
 * @param {number} [bytes]
 */
export async function warmCodec(name, bytes = 2 ** 21) {
  await exercise(name, Math.max(4096, Math.min(bytes, 2 ** 23)), 3);
}

/** Encode a synthetic chunk of `size` bytes and decode it `times` times. */
async function exercise(name, size, times) {
  try {
    if (name === 'gzip' && typeof DecompressionStream === 'undefined') await codecModule(name);
    if (name !== 'zstd' && name !== 'blosc') return;
    const { default: Codec } = await codecModule(name);
    const codec = new Codec();
    const sample = new Uint8Array(size);
    let x = 1;
    for (let i = 0; i < sample.length; i += 2) {
      x = (x * 1103515245 + 12345) >>> 0;
      sample[i] = x >>> 28; // low-entropy "pixels": the frame has literals, sequences and Huffman tables
      sample[i + 1] = 1;
    }
    const frame = await codec.encode(sample);
    for (let i = 0; i < times; i++) await codec.decode(frame);
  } catch {
    // the real decode reports a codec that cannot load
  }
}

/**
 * Decode `bytes` to exactly `expected` bytes; a corrupt chunk or one that would decode to more
 * than its shape holds is a StoreError naming `where`.
 * @param {CodecSpec | null} codec
 * @param {Uint8Array} bytes
 * @param {number} expected
 * @param {string} where
 * @returns {Promise<Uint8Array>}
 */
export async function decodeBytes(codec, bytes, expected, where) {
  let out;
  try {
    if (!codec) out = bytes;
    else if (codec.name === 'zstd') out = await zstd(bytes, expected);
    else if (codec.name === 'blosc') out = await blosc(bytes, expected);
    else if (codec.name === 'gzip') out = await gzip(bytes, expected);
    else throw new StoreError(`unsupported codec ${JSON.stringify(codec.name)}`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new StoreError(`${where}: chunk does not decode (${message})`, { cause: err });
  }
  if (out.length !== expected) {
    throw new StoreError(`${where}: chunk decodes to ${out.length} bytes, expected ${expected}`);
  }
  return out;
}

/** The frame's declared content size, or null when the frame does not declare it. */
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

async function zstd(bytes, expected) {
  const declared = zstdContentSize(bytes);
  if (declared != null && declared !== expected) {
    throw new Error(`zstd frame declares ${declared} bytes, expected ${expected}`);
  }
  const { default: Zstd } = await codecModule('zstd');
  return (await new Zstd().decode(bytes));
}

async function blosc(bytes, expected) {
  if (bytes.length < 16) throw new Error('blosc chunk shorter than its 16-byte header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nbytes = view.getUint32(4, true);
  const cbytes = view.getUint32(12, true);
  if (nbytes !== expected) throw new Error(`blosc header says ${nbytes} bytes, expected ${expected}`);
  if (cbytes !== bytes.length) throw new Error(`blosc header says ${cbytes} compressed bytes, the chunk has ${bytes.length}`);
  const { default: Blosc } = await codecModule('blosc');
  return await new Blosc().decode(bytes);
}

async function gzip(bytes, expected) {
  if (typeof DecompressionStream === 'undefined') {
    const { default: GZip } = await codecModule('gzip');
    return new GZip().decode(bytes);
  }
  // Stream through the platform inflater and stop one byte past the bound.
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const reader = stream.getReader();
  const out = new Uint8Array(expected);
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.length > expected) {
      await reader.cancel();
      throw new Error(`gzip chunk inflates to more than ${expected} bytes`);
    }
    out.set(value, at);
    at += value.length;
  }
  return at === expected ? out : out.subarray(0, at);
}
