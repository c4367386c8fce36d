/**
 * Zarr v3 array documents as the reader needs them, checked before they are trusted: unsupported
 * data types, codecs, grids and shard layouts are refused by name.
 * @module
 */
import { CHECKSUM_CODEC } from './codecs.js';
import { StoreError } from './errors.js';
import { indexBytes } from './shards.js';

/** Typed array constructors of the data types a chronozarr store may hold. */
export const DTYPES = /** @type {const} */ ({
  uint8: Uint8Array,
  uint16: Uint16Array,
  int16: Int16Array,
  float32: Float32Array,
});

/** @typedef {keyof typeof DTYPES} DataType a data type of chronozarr data */

/** The data arrays' types and those of coordinate arrays (time is int64). */
const COORD_DTYPES = { ...DTYPES, int32: Int32Array, int64: BigInt64Array, float64: Float64Array };

/** @typedef {keyof typeof COORD_DTYPES} ArrayDataType a data type this reader decodes */
/**
 * The typed array a chunk of data type D decodes to.
 * @template {ArrayDataType} D
 * @typedef {(typeof COORD_DTYPES)[D]['prototype']} Values
 */
/** @typedef {Values<DataType>} DataValues a decoded chunk of a data, mask or coverage array */
/** @typedef {Values<ArrayDataType>} ArrayValues a decoded chunk of any array the reader reads */

/**
 * @template {ArrayDataType} [D=ArrayDataType]
 * @typedef {object} ArrayInfo
 * @property {string} path key prefix of the array, e.g. "0/data"
 * @property {number[]} shape
 * @property {D} dtype
 * @property {number} fillValue
 * @property {number[]} chunkShape inner chunk shape
 * @property {number[] | null} shardShape shard shape when sharded
 * @property {import('./codecs.js').CodecSpec | null} codec
 * @property {boolean} indexAtEnd
 * @property {number} chunkBytes bytes one decoded chunk holds
 * @property {number} chunksPerShard
 * @property {number} indexBytes
 * @property {boolean} banded true for (time, band, y, x), false for (time, y, x)
 */

/** @typedef {ArrayInfo<DataType>} DataArrayInfo an array of a level: data, mask or coverage */

/** The array holds one of chronozarr's data types (not a coordinate's). @param {ArrayInfo} info @returns {info is DataArrayInfo} */
export const isDataArray = (info) => Object.hasOwn(DTYPES, info.dtype);

/**
 * @param {string} path
 * @param {any} doc the parsed zarr.json, untrusted: every field is checked before it is used
 * @returns {ArrayInfo}
 */
export function parseArray(path, doc) {
  try {
    return parse(path, doc);
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StoreError(`${path}/zarr.json is not a valid Zarr v3 array document (${err instanceof Error ? err.message : err})`);
  }
}

/** @param {string} path @param {any} doc untrusted JSON @returns {ArrayInfo} */
function parse(path, doc) {
  if (!doc || doc.zarr_format !== 3 || doc.node_type !== 'array') throw new StoreError(`${path}/zarr.json is not a Zarr v3 array`);
  const dtype = doc.data_type;
  if (!isArrayDataType(dtype)) {
    throw new StoreError(`${path}: unsupported data_type ${JSON.stringify(dtype)} (chronozarr data is uint8, uint16, int16 or float32)`);
  }
  const shape = doc.shape.map((/** @type {unknown} */ v) => nonNegative(v, `${path} shape`));
  const transformers = doc.storage_transformers ?? [];
  if (!Array.isArray(transformers) || transformers.length) {
    throw new StoreError(`${path}: storage_transformers ${JSON.stringify(transformers)} are not supported (they change where chunks are stored)`);
  }
  if (doc.chunk_grid?.name !== 'regular') throw new StoreError(`${path}: unsupported chunk grid ${JSON.stringify(doc.chunk_grid?.name)}`);
  const outer = doc.chunk_grid.configuration.chunk_shape.map((/** @type {unknown} */ v) => positive(v, `${path} chunk_shape`));
  const keys = doc.chunk_key_encoding ?? { name: 'default' };
  if (keys.name !== 'default' || (keys.configuration?.separator ?? '/') !== '/') {
    throw new StoreError(`${path}: unsupported chunk_key_encoding ${JSON.stringify(keys)}; chronozarr uses default with "/"`);
  }
  if (outer.length !== shape.length) throw new StoreError(`${path}: chunk_shape ${JSON.stringify(outer)} does not match shape ${JSON.stringify(shape)}`);
  let codecs = doc.codecs;
  let chunkShape = outer;
  /** @type {number[] | null} */
  let shardShape = null;
  let indexAtEnd = true;
  if (codecs[0]?.name === 'sharding_indexed') {
    if (codecs.length !== 1) throw new StoreError(`${path}: codecs after sharding_indexed are not supported`);
    const config = codecs[0].configuration;
    chunkShape = config.chunk_shape.map((/** @type {unknown} */ v) => positive(v, `${path} inner chunk_shape`));
    if (chunkShape.length !== outer.length || outer.some((/** @type {number} */ o, /** @type {number} */ i) => o % chunkShape[i])) {
      throw new StoreError(`${path}: inner chunk_shape ${JSON.stringify(chunkShape)} does not divide the shard shape ${JSON.stringify(outer)}`);
    }
    const indexCodecs = (config.index_codecs ?? []).map((/** @type {any} */ c) => c?.name);
    if (indexCodecs.join() !== 'bytes,crc32c') {
      throw new StoreError(`${path}: unsupported shard index codecs ${JSON.stringify(indexCodecs)}; expected bytes then crc32c`);
    }
    const location = config.index_location ?? 'end';
    if (location !== 'start' && location !== 'end') throw new StoreError(`${path}: unsupported index_location ${JSON.stringify(location)}`);
    indexAtEnd = location === 'end';
    shardShape = outer;
    codecs = config.codecs;
  }
  const codec = parseCodecs(path, codecs, dtype);
  const itemSize = COORD_DTYPES[dtype].BYTES_PER_ELEMENT;
  const chunkBytes = chunkShape.reduce((/** @type {number} */ a, /** @type {number} */ b) => a * b, 1) * itemSize;
  if (chunkBytes > 2 ** 31) throw new StoreError(`${path}: a chunk of shape ${JSON.stringify(chunkShape)} would exceed 2 GiB`);
  const arrayBytes = shape.reduce((/** @type {number} */ a, /** @type {number} */ b) => a * b, itemSize);
  if (arrayBytes >= 2 ** 63) {
    // As the Python reader: more bytes than a 64-bit address space, so no reader can hold it.
    throw new StoreError(`${path}: shape ${JSON.stringify(shape)} holds about ${arrayBytes.toExponential(2)} bytes, more than a reader can address (2^63): it cannot be read; the array document is damaged`);
  }
  const chunksPerShard = shardShape ? shardShape.reduce((a, s, i) => a * (s / chunkShape[i]), 1) : 1;
  return {
    path,
    shape,
    dtype,
    fillValue: fillNumber(path, doc.fill_value === undefined ? 0 : doc.fill_value, dtype),
    chunkShape,
    shardShape,
    codec,
    indexAtEnd,
    chunkBytes,
    chunksPerShard,
    indexBytes: indexBytes(chunksPerShard),
    banded: shape.length === 4,
  };
}

/**
 * @param {string} path @param {any[]} codecs untrusted JSON @param {ArrayDataType} dtype
 * @returns {import('./codecs.js').CodecSpec | null}
 */
function parseCodecs(path, codecs, dtype) {
  const names = codecs.map((c) => c?.name);
  if (names[0] !== 'bytes') throw new StoreError(`${path}: unsupported codecs ${JSON.stringify(names)}; chronozarr arrays start with bytes`);
  const endian = codecs[0].configuration?.endian ?? 'little';
  if (endian !== 'little' && COORD_DTYPES[dtype].BYTES_PER_ELEMENT > 1) throw new StoreError(`${path}: big-endian bytes codec is not supported`);
  const checked = codecs.length === 3 && names[2] === CHECKSUM_CODEC;
  const checksum = checked ? { checksum: true } : {};
  const rest = codecs.slice(1, checked ? 2 : undefined);
  if (rest.length > 1) throw new StoreError(`${path}: unsupported codecs ${JSON.stringify(names)}; chronozarr uses one compressor, optionally followed by crc32c`);
  if (!rest.length) return null;
  const { name, configuration = {} } = rest[0];
  if (name === 'zstd' || name === 'gzip') return { name, ...checksum };
  if (name === 'blosc') {
    const cname = configuration.cname ?? 'zstd';
    const shuffle = configuration.shuffle ?? 'noshuffle';
    if (cname !== 'zstd' && cname !== 'lz4') throw new StoreError(`${path}: unsupported blosc cname ${JSON.stringify(cname)} (zstd or lz4)`);
    // bitshuffle is the history array's (docs/format-history.md); spec 8 keeps it out of a level's arrays
    if (!['noshuffle', 'shuffle', 'bitshuffle'].includes(shuffle)) throw new StoreError(`${path}: unsupported blosc shuffle ${JSON.stringify(shuffle)} (noshuffle, shuffle or bitshuffle)`);
    return { name, cname, shuffle, itemSize: COORD_DTYPES[dtype].BYTES_PER_ELEMENT, ...checksum };
  }
  throw new StoreError(`${path}: unsupported codec ${JSON.stringify(name)}; chronozarr stores use zstd, blosc or gzip (spec 8)`);
}

/** @type {Record<string, number>} */
const NAMED_FLOATS = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };
/** @type {Partial<Record<ArrayDataType, [number, number]>>} */
const INT_RANGES = { uint8: [0, 2 ** 8 - 1], uint16: [0, 2 ** 16 - 1], int16: [-(2 ** 15), 2 ** 15 - 1], int32: [-(2 ** 31), 2 ** 31 - 1], int64: [-(2 ** 63), 2 ** 63 - 1] };

/**
 * fill_value as a number of the dtype (Zarr v3 JSON: a number; for floats also the names "NaN",
 * "Infinity", "-Infinity" or "0x" and the big-endian bytes in hex). A chunk that is not stored
 * decodes to it, so a value the dtype cannot hold is refused rather than wrapped.
 * @param {string} path @param {unknown} value untrusted JSON @param {ArrayDataType} dtype
 * @returns {number}
 */
function fillNumber(path, value, dtype) {
  const size = COORD_DTYPES[dtype].BYTES_PER_ELEMENT;
  const range = INT_RANGES[dtype];
  if (!range && typeof value === 'number') return value;
  if (!range && typeof value === 'string' && Object.hasOwn(NAMED_FLOATS, value)) return NAMED_FLOATS[value];
  if (!range && typeof value === 'string' && new RegExp(`^0x[0-9a-fA-F]{${2 * size}}$`).test(value)) {
    const view = new DataView(new ArrayBuffer(size));
    for (let i = 0; i < size; i++) view.setUint8(i, parseInt(value.slice(2 + 2 * i, 4 + 2 * i), 16));
    return size === 4 ? view.getFloat32(0) : view.getFloat64(0);
  }
  if (range && typeof value === 'number' && Number.isInteger(value) && value >= range[0] && value <= range[1]) return value;
  throw new StoreError(`${path}: fill_value ${JSON.stringify(value)} is not a ${dtype} value`);
}

/** @param {unknown} value @param {string} where @returns {number} */
function positive(value, where) {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw new StoreError(`${where}: expected a positive integer up to 2^53, got ${JSON.stringify(value)}`);
  return value;
}

/** @param {unknown} value @param {string} where @returns {number} */
function nonNegative(value, where) {
  // Beyond 2^53 a JSON number no longer names one integer: no reader would agree on the shape.
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new StoreError(`${where}: expected a non-negative integer up to 2^53, got ${JSON.stringify(value)}`);
  return value;
}

/** @param {unknown} dtype @returns {dtype is ArrayDataType} */
const isArrayDataType = (dtype) => typeof dtype === 'string' && Object.hasOwn(COORD_DTYPES, dtype);

/**
 * The constructor of dtype's typed arrays, as one TypeScript can call (it cannot call a union of
 * constructors); what it makes is a Values<D>.
 * @param {ArrayDataType} dtype
 */
const valuesType = (dtype) =>
  /** @type {{ new (buffer: ArrayBufferLike, byteOffset: number, length: number): ArrayValues, new (length: number): ArrayValues, readonly BYTES_PER_ELEMENT: number }} */ (COORD_DTYPES[dtype]);

/**
 * A typed array view of decoded little-endian chunk bytes.
 * @template {ArrayDataType} D
 * @param {D} dtype
 * @param {Uint8Array} bytes
 * @returns {Values<D>}
 */
export function typedView(dtype, bytes) {
  const Type = valuesType(dtype);
  if (bytes.byteOffset % Type.BYTES_PER_ELEMENT) bytes = bytes.slice();
  return /** @type {Values<D>} */ (new Type(bytes.buffer, bytes.byteOffset, bytes.byteLength / Type.BYTES_PER_ELEMENT));
}

/**
 * A typed array of `length` zeros of data type D.
 * @template {ArrayDataType} D
 * @param {D} dtype @param {number} length
 * @returns {Values<D>}
 */
export const emptyValues = (dtype, length) => /** @type {Values<D>} */ (new (valuesType(dtype))(length));

/**
 * The bands of pixel (x, y) of a decoded chunk laid out [band][y][x] (what getCell returns), as a
 * typed array of the chunk's own type: no request, for a cell already in hand.
 * @template {ArrayValues} V
 * @param {V} data
 * @param {{ nBand: number, chunkWidth: number, chunkHeight: number }} shape
 * @param {number} x column inside the chunk
 * @param {number} y row inside the chunk
 * @returns {V}
 */
export function samplePixelFrom(data, { nBand, chunkWidth, chunkHeight }, x, y) {
  const plane = chunkWidth * chunkHeight;
  if (!(Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < chunkWidth && y < chunkHeight)) {
    throw new RangeError(`pixel (x ${x}, y ${y}) is outside the ${chunkWidth} x ${chunkHeight} chunk`);
  }
  if (data.length < nBand * plane) throw new RangeError(`a chunk of ${nBand} bands of ${chunkWidth} x ${chunkHeight} needs ${nBand * plane} values, got ${data.length}`);
  const out = /** @type {V} */ (new (/** @type {new (n: number) => V} */ (data.constructor))(nBand));
  for (let b = 0; b < nBand; b++) out[b] = data[b * plane + y * chunkWidth + x];
  return out;
}

/**
 * A chunk of fill_value.
 * @template {ArrayDataType} D
 * @param {ArrayInfo<D>} info
 * @returns {Values<D>}
 */
export function fillChunk(info) {
  const out = emptyValues(info.dtype, info.chunkBytes / COORD_DTYPES[info.dtype].BYTES_PER_ELEMENT);
  if (Object.is(info.fillValue, 0)) return out;
  if (out instanceof BigInt64Array) out.fill(BigInt(info.fillValue));
  else out.fill(info.fillValue);
  return out;
}
