/**
 * Decompressing one stored chunk (spec 8: zstd, blosc with zstd or lz4, gzip) to exactly the bytes
 * its shape holds. zstd is zstddec's WebAssembly build (zstd.js), blosc numcodecs'; gzip uses the platform's
 * DecompressionStream where there is one. Nothing here imports a bare specifier statically, so the
 * module also loads in a module worker, where import maps do not apply: the pool hands the worker
 * resolved URLs of the codec modules instead.
 * @module
 */
import { decodeBloscZstd } from './blosc-zstd.js';
import { crc32c } from './crc32c.js';
import { StoreError } from './errors.js';
import { decodeZstd, resolveZstdUrl, setZstdUrl, zstdDecoder, zstdWithSize } from './zstd.js';

export { zstdContentSize } from './zstd.js';

/** The optional codec after the compressor: the chunk's crc32c, 4 bytes little-endian (format/checksum.py). */
export const CHECKSUM_CODEC = 'crc32c';

/**
 * @typedef {object} CodecSpec
 * @property {'zstd' | 'blosc' | 'gzip'} name
 * @property {string} [cname]
 * @property {string} [shuffle]
 * @property {number} [itemSize] bytes of one element of the array (blosc's shuffle works on them)
 * @property {boolean} [checksum] the chunk ends with the crc32c of its compressed bytes
 */

/**
 * A numcodecs codec module as it is used here: its default export is a class whose instances decode
 * (and encode, for the warm-up). numcodecs' own declarations give the class without its constructor.
 * @typedef {{ default: new () => { encode(data: Uint8Array): Uint8Array | Promise<Uint8Array>, decode(data: Uint8Array): Uint8Array | Promise<Uint8Array> } }} CodecModule
 */

/** @type {Record<string, Promise<CodecModule>>} */
const modules = {};

/** @type {Record<string, string>} resolved module URLs, set by a worker's first message */
let moduleUrls = {};

/** @param {Record<string, string>} urls */
export function setCodecUrls(urls) {
  moduleUrls = { ...urls };
  setZstdUrl(urls.zstddec);
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
  const zstddec = resolveZstdUrl();
  if (zstddec) urls.zstddec = zstddec;
  return urls;
}

/** @param {'zstd' | 'blosc' | 'gzip'} name */
function codecModule(name) {
  if (!modules[name]) {
    const url = moduleUrls[name];
    /** @type {Promise<unknown>} */
    let loading;
    if (url) loading = import(url);
    else if (name === 'zstd') loading = import('numcodecs/zstd');
    else if (name === 'blosc') loading = import('numcodecs/blosc');
    else loading = import('numcodecs/gzip');
    modules[name] = /** @type {Promise<CodecModule>} */ (loading);
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

/**
 * Encode a synthetic chunk of `size` bytes and decode it `times` times (zstd: load and compile
 * zstddec, which has no encoder to make such a chunk with).
 * @param {CodecSpec['name']} name @param {number} size @param {number} times
 */
async function exercise(name, size, times) {
  try {
    if (name === 'gzip' && typeof DecompressionStream === 'undefined') await codecModule(name);
    if (name === 'zstd') await zstdDecoder();
    if (name !== 'blosc') return;
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
  if (codec?.checksum) bytes = verified(bytes, where);
  try {
    if (!codec) out = bytes;
    else if (codec.name === 'zstd') out = await zstd(bytes, expected);
    else if (codec.name === 'blosc') out = await blosc(bytes, expected, codec);
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

/**
 * The compressed bytes of a checksummed chunk, once its crc32c matches them.
 * @param {Uint8Array} bytes @param {string} where
 */
function verified(bytes, where) {
  if (bytes.length < 4) throw new StoreError(`${where}: chunk of ${bytes.length} bytes is shorter than its 4-byte crc32c`);
  const body = bytes.subarray(0, bytes.length - 4);
  const stored = new DataView(bytes.buffer, bytes.byteOffset + body.length, 4).getUint32(0, true);
  if (crc32c(body) !== stored) throw new StoreError(`${where}: crc32c does not match the chunk's bytes: the chunk is damaged; re-encode or re-upload it`);
  return body;
}

/** @param {Uint8Array} bytes @param {number} expected @returns {Promise<Uint8Array>} */
async function zstd(bytes, expected) {
  const framed = zstdWithSize(bytes, expected);
  const decoded = await decodeZstd(framed, expected);
  if (decoded?.length === expected) return decoded;
  // zstddec tells a frame it cannot decode by a short answer: the frame is corrupt. numcodecs'
  // zstd is not asked again, as it decodes some corrupt frames to values (found by the hostile
  // corpus); it takes only the chunks zstddec was not given (too large, or no zstddec here).
  if (decoded) throw new Error(`the zstd frame is corrupt: it does not decode to the ${expected} bytes it declares`);
  const { default: Zstd } = await codecModule('zstd');
  return await new Zstd().decode(framed);
}

const BLOSC_SHUFFLE = 0x01;
const BLOSC_MEMCPYED = 0x02;
const BLOSC_BITSHUFFLE = 0x04;
const BLOSC_RESERVED = 0x08;
const BLOSC_DONT_SPLIT = 0x10;
/** @type {Record<string, number>} the compressor code in the top three bits of the flags, for the cnames spec 8 allows */
const BLOSC_FORMATS = { lz4: 1, zstd: 4 };
const BLOSC_COMPRESSOR_VERSION = 1; // header byte 1: the only lz4 and zstd stream format blosc reads
const BLOSC_FORMAT_VERSION = 2; // header byte 0: the format c-blosc 1.x writes; it refuses later ones

/**
 * The 16-byte blosc header must describe this chunk with the array's settings (the Python
 * reader's check_blosc_header): blosc trusts its header and decodes a chunk whose flags name
 * another compressor, shuffle or element size into wrong values without an error.
 * @param {Uint8Array} bytes @param {number} expected
 * @param {{ cname?: string, shuffle?: string, itemSize?: number }} codec
 */
export function checkBloscHeader(bytes, expected, codec) {
  if (bytes.length < 16) throw new Error('blosc chunk shorter than its 16-byte header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const flags = bytes[2];
  const typesize = bytes[3];
  const nbytes = view.getUint32(4, true);
  const cbytes = view.getUint32(12, true);
  const hex = `0x${flags.toString(16).padStart(2, '0')}`;
  if (nbytes !== expected) throw new Error(`blosc header says ${nbytes} bytes, expected ${expected}`);
  if (cbytes !== bytes.length) throw new Error(`blosc header says ${cbytes} compressed bytes, the chunk has ${bytes.length}`);
  if (flags & BLOSC_RESERVED || (flags & BLOSC_BITSHUFFLE && flags & BLOSC_SHUFFLE)) throw new Error(`blosc flags ${hex} ask for a reserved feature or for both shuffles`);
  if (flags & BLOSC_MEMCPYED) {
    if (cbytes !== nbytes + 16) throw new Error(`blosc flags ${hex} say the chunk is stored uncompressed, but it is ${cbytes} bytes for ${nbytes}`);
    return;
  }
  const cname = codec.cname ?? 'zstd';
  if (flags >> 5 !== BLOSC_FORMATS[cname]) throw new Error(`blosc flags ${hex} name compressor ${flags >> 5}, the array declares ${cname}`);
  if (bytes[1] !== BLOSC_COMPRESSOR_VERSION) throw new Error(`blosc header names ${cname} stream format ${bytes[1]}, not ${BLOSC_COMPRESSOR_VERSION}`);
  const shuffle = codec.shuffle ?? 'noshuffle';
  if (Boolean(flags & BLOSC_SHUFFLE) !== (shuffle === 'shuffle') || Boolean(flags & BLOSC_BITSHUFFLE) !== (shuffle === 'bitshuffle')) {
    throw new Error(`blosc flags ${hex} disagree with the array's shuffle "${shuffle}"`);
  }
  if (flags & (BLOSC_SHUFFLE | BLOSC_BITSHUFFLE) && codec.itemSize != null && typesize !== codec.itemSize) {
    throw new Error(`blosc chunk is shuffled with ${typesize}-byte items, the array's are ${codec.itemSize} bytes`);
  }
  checkBloscStreams(bytes, view, flags, typesize, nbytes);
}

/**
 * The compressed streams of every block must fill the chunk exactly: after the header, the start
 * of each block and in each one length-prefixed stream, or one per byte of an item when the
 * encoder split the block (the 0x10 flag says it did not). The WebAssembly blosc decodes streams
 * read at the wrong places into wrong values without an error, so a flags byte that lies about
 * splitting is caught here (the Python reader's format/codecs.py makes the same walk).
 * @param {Uint8Array} bytes @param {DataView} view over bytes @param {number} flags
 * @param {number} typesize @param {number} nbytes
 */
function checkBloscStreams(bytes, view, flags, typesize, nbytes) {
  const blocksize = view.getUint32(8, true);
  if (blocksize === 0 || blocksize > nbytes || typesize === 0 || bytes[0] > BLOSC_FORMAT_VERSION) {
    throw new Error(`blosc header (format ${bytes[0]}, ${typesize}-byte items, blocks of ${blocksize} bytes for ${nbytes}) is not one c-blosc writes or reads: the chunk is damaged`);
  }
  const blocks = Math.ceil(nbytes / blocksize);
  const leftover = nbytes % blocksize;
  let used = 16 + 4 * blocks;
  if (used > bytes.length) throw new Error(`blosc chunk of ${bytes.length} bytes is too short for the starts of its ${blocks} blocks`);
  const hex = `0x${flags.toString(16).padStart(2, '0')}`;
  const splittable = !(flags & BLOSC_DONT_SPLIT) && typesize <= 16 && Math.floor(blocksize / Math.max(typesize, 1)) >= 128;
  for (let i = 0; i < blocks; i++) {
    const streams = splittable && !(leftover && i === blocks - 1) ? typesize : 1;
    let at = view.getInt32(16 + 4 * i, true);
    for (let j = 0; j < streams; j++) {
      const size = at >= 0 && at <= bytes.length - 4 ? view.getInt32(at, true) : -1;
      if (size <= 0 || at + 4 + size > bytes.length) throw new Error(`blosc block ${i} does not hold the compressed streams its flags (${hex}) describe: the chunk is damaged`);
      at += 4 + size;
      used += 4 + size;
    }
  }
  if (used !== bytes.length) throw new Error(`blosc blocks take ${used} of the chunk's ${bytes.length} bytes (flags ${hex}): the chunk is damaged`);
}

/** A blosc codec whose streams are zstd: zstddec decodes it (blosc-zstd.js). @param {CodecSpec} codec */
const usesZstd = (codec) => codec.name === 'blosc' && (codec.cname ?? 'zstd') === 'zstd';

/** The codec module that decodes chunks of `codec` (what to load ahead): blosc zstd needs zstd's only. @param {CodecSpec} codec @returns {CodecSpec['name']} */
export const decoderOf = (codec) => (usesZstd(codec) ? 'zstd' : codec.name);

/** @param {Uint8Array} bytes @param {number} expected @param {CodecSpec} codec @returns {Promise<Uint8Array>} */
async function blosc(bytes, expected, codec) {
  checkBloscHeader(bytes, expected, codec);
  // zstd streams (or a chunk stored raw) need only zstddec, not numcodecs' 615 kB blosc module.
  const decoded = usesZstd(codec) || bytes[2] & BLOSC_MEMCPYED ? await decodeBloscZstd(bytes) : null;
  if (decoded) return decoded;
  const { default: Blosc } = await codecModule('blosc');
  return await new Blosc().decode(bytes);
}

/** @param {Uint8Array} bytes @param {number} expected @returns {Promise<Uint8Array>} */
async function gzip(bytes, expected) {
  if (typeof DecompressionStream === 'undefined') {
    const { default: GZip } = await codecModule('gzip');
    return new GZip().decode(bytes);
  }
  // Stream through the platform inflater and stop one byte past the bound.
  // Chunk bytes come from a response body or a file read, never from a shared buffer.
  const stream = new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)]).stream().pipeThrough(new DecompressionStream('gzip'));
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
