/**
 * The time-major history array (docs/format-history.md, version 1.2): the JS side's one copy of its
 * rules. The root block's `history` declaration is checked field by field and against the arrays'
 * documents (the data's, and the mask copy's when declared) and level 0; a declaration this reader
 * cannot use is named once and the store reads pixel histories from level 0, as the format asks
 * (never a failed store, never other values). Also here: the history shard keys (data and mask
 * copy), their shard_bytes ids and where a pixel lies in the arrays.
 * @module
 */
import { parseArray } from './arrays.js';
import { isObject } from './attributes.js';
import { HistoryError } from './errors.js';

/** The major version of the extension this reader knows. */
export const HISTORY_MAJOR = 1;

/**
 * A usable history array: what the declaration says, checked.
 * @typedef {object} HistoryLayout
 * @property {string} path the array's key prefix ("history")
 * @property {number} timeCap T, timesteps per time block
 * @property {number} inner p, the side of an inner chunk's square of pixels
 * @property {number} shard S, the side of a shard's square of pixels
 * @property {Record<string, number>} shardBytes "{tb}/{r}/{c}" → byte length of each history shard stored
 * @property {import('./arrays.js').DataArrayInfo} array the array's document as the reader uses it
 * @property {HistoryMask | null} mask the mask copy (version 1.1), when declared
 */

/**
 * The history's copy of level 0's mask: inner chunks [T, p, p] in shards [T, S, S], keys
 * `history_mask/c/{tb}/{r}/{c}`, at the same places as the data's.
 * @typedef {object} HistoryMask
 * @property {string} path "history_mask"
 * @property {Record<string, number>} shardBytes "{tb}/{r}/{c}" → byte length of each mask shard stored
 * @property {import('./arrays.js').DataArrayInfo} array its document as the reader uses it (uint8)
 */

/** The mask copy's path (version 1.1). */
export const HISTORY_MASK_PATH = 'history_mask';

/**
 * Where pixel (y, x) of level 0 lies in the history array.
 * @typedef {{ r: number, c: number, inner: number, iy: number, ix: number }} HistoryPlace
 */

/** @param {unknown} v */
const show = (v) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
};

/** @param {unknown} v @returns {v is number} */
const isCount = (v) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/**
 * The declaration's own fields, checked against level 0's geometry (not yet against the array).
 * @param {unknown} value the root block's `history` (untrusted JSON)
 * @param {{ shape: number[], chunkSize: number }} level0
 */
export function parseDeclaration(value, { shape, chunkSize }) {
  if (!isObject(value)) throw new HistoryError('', `must be an object, got ${show(value)}`);
  const version = /^(\d+)\.(\d+)$/.exec(typeof value.version === 'string' ? value.version : '');
  if (!version) throw new HistoryError('version', `must be "<major>.<minor>", got ${show(value.version)}`);
  if (Number(version[1]) !== HISTORY_MAJOR) throw new HistoryError('version', `is ${show(value.version)}: this reader knows major version ${HISTORY_MAJOR} only`);
  if (value.path !== 'history') throw new HistoryError('path', `must be "history" in version 1, got ${show(value.path)}`);
  const timeCap = value.time_cap;
  if (!isCount(timeCap)) throw new HistoryError('time_cap', `must be a positive integer, got ${show(timeCap)}`);
  const nBand = shape[1];
  const [chunk, shard] = /** @type {const} */ (['chunk_shape', 'shard_shape']).map((field) => {
    const v = value[field];
    if (!Array.isArray(v) || v.length !== 4 || !v.every(isCount)) throw new HistoryError(field, `must be 4 positive integers, got ${show(v)}`);
    if (v[0] !== timeCap) throw new HistoryError(field, `${show(v)} must start with time_cap (${timeCap})`);
    if (v[1] !== nBand) throw new HistoryError(field, `${show(v)} must hold every band (${nBand})`);
    if (v[2] !== v[3]) throw new HistoryError(field, `${show(v)} must be square in y and x`);
    return /** @type {number[]} */ (v);
  });
  const p = chunk[2];
  if (p % 2 || chunkSize % p) throw new HistoryError('chunk_shape', `${show(chunk)}: p = ${p} must be even and divide the chunk size ${chunkSize}`);
  if (shard[2] % chunkSize) throw new HistoryError('shard_shape', `${show(shard)}: S = ${shard[2]} must be a multiple of the chunk size ${chunkSize}`);
  const shardBytes = lengthsOf(value.shard_bytes, 'shard_bytes');
  let maskBytes = null;
  if ('mask_path' in value || 'mask_shard_bytes' in value) {
    if (value.mask_path !== HISTORY_MASK_PATH) throw new HistoryError('mask_path', `must be "${HISTORY_MASK_PATH}" beside mask_shard_bytes, got ${show(value.mask_path)}`);
    maskBytes = lengthsOf(value.mask_shard_bytes, 'mask_shard_bytes');
  }
  return { path: 'history', timeCap, inner: p, shard: shard[2], chunkShape: chunk, shardShape: shard, shardBytes, maskBytes };
}

/**
 * A checked shard_bytes map. @param {unknown} lengths @param {string} field
 * @returns {Record<string, number>}
 */
function lengthsOf(lengths, field) {
  if (!isObject(lengths)) throw new HistoryError(field, `must map "{tb}/{r}/{c}" to byte lengths, got ${show(lengths)}`);
  for (const [id, n] of Object.entries(lengths)) {
    if (!/^\d+\/\d+\/\d+$/.test(id)) throw new HistoryError(`${field}[${show(id)}]`, 'is not a "{tb}/{r}/{c}" shard id');
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new HistoryError(`${field}[${show(id)}]`, `is ${show(n)}, not a byte length`);
  }
  return /** @type {Record<string, number>} */ (lengths);
}

/**
 * A history array's document must be what the declaration and level 0 say it is.
 * @param {string} path the array's key ("history" or "history_mask")
 * @param {string} field the declaration's field that names it ("path" or "mask_path")
 * @param {any} doc its zarr.json (untrusted)
 * @param {import('./arrays.js').ArrayInfo} copied the level-0 array it copies
 * @param {{ chunkShape: number[], shardShape: number[] }} declared its inner chunk and shard shapes
 */
function checkCopy(path, field, doc, copied, declared) {
  let array;
  try {
    array = parseArray(path, doc);
  } catch (err) {
    throw new HistoryError(field, `names an array the reader cannot read (${err instanceof Error ? err.message : err})`);
  }
  const same = (/** @type {unknown} */ a, /** @type {unknown} */ b) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(array.shape, copied.shape)) throw new HistoryError(field, `names an array of shape ${show(array.shape)}; level 0's is ${show(copied.shape)}`);
  if (array.dtype !== copied.dtype || !Object.is(array.fillValue, copied.fillValue)) {
    throw new HistoryError(field, `names an array of ${array.dtype} with fill_value ${array.fillValue}; level 0's is ${copied.dtype} with ${copied.fillValue}`);
  }
  if (!array.shardShape || !array.indexAtEnd) throw new HistoryError(field, 'names an array that is not sharded with its index at the end');
  const shapes = field === 'path' ? ['chunk_shape', 'shard_shape'] : [field, field];
  if (!same(array.chunkShape, declared.chunkShape)) throw new HistoryError(shapes[0], `${show(declared.chunkShape)} is not the array's inner chunk ${show(array.chunkShape)}`);
  if (!same(array.shardShape, declared.shardShape)) throw new HistoryError(shapes[1], `${show(declared.shardShape)} is not the array's shard ${show(array.shardShape)}`);
  return array;
}

/**
 * The arrays' documents must be what the declaration and level 0 say they are.
 * @param {ReturnType<typeof parseDeclaration>} declared
 * @param {any} doc the data array's zarr.json (untrusted) @param {any} maskDoc the mask copy's (when declared)
 * @param {{ data: import('./arrays.js').DataArrayInfo, mask: import('./arrays.js').ArrayInfo | null }} level0
 * @returns {HistoryLayout}
 */
export function checkArray(declared, doc, maskDoc, level0) {
  const array = checkCopy(declared.path, 'path', doc, level0.data, declared);
  const { path, timeCap, inner, shard, shardBytes, maskBytes, chunkShape, shardShape } = declared;
  let mask = null;
  if (maskBytes) {
    if (!level0.mask) throw new HistoryError('mask_path', 'declares a mask copy but the store has no mask');
    const without = (/** @type {number[]} */ shape) => [shape[0], shape[2], shape[3]];
    const maskArray = checkCopy(HISTORY_MASK_PATH, 'mask_path', maskDoc, level0.mask, { chunkShape: without(chunkShape), shardShape: without(shardShape) });
    if (maskArray.dtype !== 'uint8') throw new HistoryError('mask_path', `names an array of ${maskArray.dtype}; a mask is uint8`);
    mask = { path: HISTORY_MASK_PATH, shardBytes: maskBytes, array: /** @type {import('./arrays.js').DataArrayInfo} */ (maskArray) };
  }
  return { path, timeCap, inner, shard, shardBytes, array: /** @type {import('./arrays.js').DataArrayInfo} */ (array), mask };
}

/**
 * The store's history layout, or null when it declares none or one this reader cannot use (then
 * a warning names the field, once per opening, and histories come from level 0).
 * @param {unknown} declared the root block's `history`
 * @param {(key: string) => Promise<any>} node reads a node's zarr.json (consolidated or its own)
 * @param {{ data: import('./arrays.js').DataArrayInfo, mask: import('./arrays.js').ArrayInfo | null, chunkSize: number }} level0
 * @param {string} where the store's root URL, for the warning
 * @param {AbortSignal | undefined} signal the opening's: once it aborts, its error goes on
 * @returns {Promise<HistoryLayout | null>}
 */
export async function historyLayout(declared, node, level0, where, signal) {
  if (declared === undefined) return null;
  try {
    const fields = parseDeclaration(declared, { shape: level0.data.shape, chunkSize: level0.chunkSize });
    /** @param {string} path @param {string} field */
    const read = async (path, field) => {
      try {
        return await node(path);
      } catch (err) {
        if (signal?.aborted) throw err; // the opening ended, not the declaration
        throw new HistoryError(field, `names an array whose zarr.json cannot be read (${err instanceof Error ? err.message : err})`);
      }
    };
    const wantMask = fields.maskBytes && level0.mask;
    const [doc, maskDoc] = await Promise.all([read(fields.path, 'path'), wantMask ? read(HISTORY_MASK_PATH, 'mask_path') : null]);
    return checkArray(fields, doc, maskDoc, level0);
  } catch (err) {
    if (!(err instanceof HistoryError)) throw err;
    console.warn(`chronozarr: ${where}: ${err.message}; pixel histories are read from level 0`);
    return null;
  }
}

/** The key of history shard (tb, r, c). @param {HistoryLayout} layout @param {number} tb @param {number} r @param {number} c */
export const historyShardKey = (layout, tb, r, c) => `${layout.path}/c/${tb}/0/${r}/${c}`;

/** The key of the mask copy's shard (tb, r, c): no band axis. @param {number} tb @param {number} r @param {number} c */
export const historyMaskShardKey = (tb, r, c) => `${HISTORY_MASK_PATH}/c/${tb}/${r}/${c}`;

/** The shard's id in the declaration's shard_bytes. @param {number} tb @param {number} r @param {number} c */
export const historyShardId = (tb, r, c) => `${tb}/${r}/${c}`;

/** Time blocks of an axis of n timesteps. @param {HistoryLayout} layout @param {number} nTime */
export const timeBlocks = (layout, nTime) => Math.ceil(nTime / layout.timeCap);

/**
 * The shard and inner chunk of level-0 pixel (y, x), and the pixel's row and column in the chunk.
 * @param {HistoryLayout} layout @param {number} y @param {number} x
 * @returns {HistoryPlace}
 */
export function historyPlace({ inner: p, shard: s }, y, x) {
  const across = s / p;
  return { r: Math.floor(y / s), c: Math.floor(x / s), inner: Math.floor((y % s) / p) * across + Math.floor((x % s) / p), iy: y % p, ix: x % p };
}
