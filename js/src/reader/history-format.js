/**
 * The time-major history array (docs/format-history.md, version 1.3): the JS side's one copy of its
 * rules (Python's format/history.py). The root block's `history` declaration is checked field by
 * field and against the arrays' documents (the data's, and the mask copy's when declared) and the
 * level each copies: level 0's, and from version 1.3 each coarser level listed under `levels`. A
 * declaration this reader cannot use is named once and the store reads pixel histories from level
 * 0, as the format asks (never a failed store, never other values); a coarser level's history it
 * cannot use is named once and left out. Also here: the history shard keys (data and mask copy),
 * their shard_bytes ids and where a pixel lies in the arrays.
 * @module
 */
import { parseArray } from './arrays.js';
import { isObject } from './attributes.js';
import { HistoryError } from './errors.js';

/** The major version of the extension this reader knows. */
export const HISTORY_MAJOR = 1;
/** The minor version from which coarser levels may have a history (`levels`). */
const LEVELS_SINCE = 3;

/**
 * A usable history array: what the declaration says, checked.
 * @typedef {object} HistoryLayout
 * @property {number} level the level whose values it holds (0, or a coarser level from version 1.3)
 * @property {string} path the array's key prefix ("history", "history_1"...)
 * @property {number} timeCap T, timesteps per time block
 * @property {number} inner p, the side of an inner chunk's square of pixels
 * @property {number} shard S, the side of a shard's square of pixels
 * @property {Record<string, number>} shardBytes "{tb}/{r}/{c}" → byte length of each history shard stored
 * @property {import('./arrays.js').DataArrayInfo} array the array's document as the reader uses it
 * @property {HistoryMask | null} mask the mask copy (version 1.1), when declared
 * @property {HistoryLayout[]} coarse the usable histories of coarser levels (version 1.3), finest first; [] on them
 */

/**
 * The history's copy of level 0's mask: inner chunks [T, p, p] in shards [T, S, S], keys
 * `history_mask/c/{tb}/{r}/{c}`, at the same places as the data's.
 * @typedef {object} HistoryMask
 * @property {string} path "history_mask", "history_mask_1"...
 * @property {Record<string, number>} shardBytes "{tb}/{r}/{c}" → byte length of each mask shard stored
 * @property {import('./arrays.js').DataArrayInfo} array its document as the reader uses it (uint8)
 */

/** The mask copy's path (version 1.1). */
export const HISTORY_MASK_PATH = 'history_mask';

/** A level's data history path: "history" at level 0, "history_{k}" at coarser level k. @param {number} level */
export const historyPath = (level) => (level === 0 ? 'history' : `history_${level}`);

/** A level's mask copy path: "history_mask", then "history_mask_{k}". @param {number} level */
export const historyMaskPath = (level) => (level === 0 ? HISTORY_MASK_PATH : `${HISTORY_MASK_PATH}_${level}`);

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
  const maskBytes = maskLengthsOf(value, 0);
  // `levels` is a 1.3 field: an earlier declaration that carries one is read as level 0's only.
  const coarse = Number(version[2]) >= LEVELS_SINCE && value.levels !== undefined ? coarseOf(value.levels, maskBytes != null) : [];
  return { level: 0, path: 'history', timeCap, inner: p, shard: shard[2], chunkShape: chunk, shardShape: shard, shardBytes, maskBytes, coarse };
}

/**
 * A level's mask copy lengths, null when it declares none. @param {Record<string, unknown>} value @param {number} level
 * @returns {Record<string, number> | null}
 */
function maskLengthsOf(value, level) {
  if (!('mask_path' in value) && !('mask_shard_bytes' in value)) return null;
  const prefix = level === 0 ? '' : `levels.${level}.`;
  const path = historyMaskPath(level);
  if (value.mask_path !== path) throw new HistoryError(`${prefix}mask_path`, `must be "${path}" beside mask_shard_bytes, got ${show(value.mask_path)}`);
  return lengthsOf(value.mask_shard_bytes, `${prefix}mask_shard_bytes`);
}

/**
 * The coarser levels' entries of a 1.3 declaration, checked; each has a mask copy exactly when
 * level 0's history has one (a store has a mask at every level or at none).
 * @param {unknown} levels @param {boolean} masked
 * @returns {{ level: number, path: string, shardBytes: Record<string, number>, maskBytes: Record<string, number> | null }[]}
 */
function coarseOf(levels, masked) {
  if (!isObject(levels)) throw new HistoryError('levels', `must map level numbers to their history, got ${show(levels)}`);
  return Object.keys(levels).sort((a, b) => Number(a) - Number(b)).map((key) => {
    const level = Number(key);
    if (!/^\d+$/.test(key) || level < 1) throw new HistoryError(`levels.${key}`, 'is not a coarser level (a number >= 1)');
    const entry = levels[key];
    if (!isObject(entry)) throw new HistoryError(`levels.${key}`, `must be an object, got ${show(entry)}`);
    if (entry.path !== historyPath(level)) throw new HistoryError(`levels.${key}.path`, `must be "${historyPath(level)}", got ${show(entry.path)}`);
    const maskBytes = maskLengthsOf(entry, level);
    if ((maskBytes != null) !== masked) throw new HistoryError(`levels.${key}`, 'must declare a mask copy exactly when level 0 does');
    return { level, path: historyPath(level), shardBytes: lengthsOf(entry.shard_bytes, `levels.${key}.shard_bytes`), maskBytes };
  });
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
 * A history array's document must be what the declaration and its level say it is.
 * @param {string} path the array's key ("history", "history_mask_1"...)
 * @param {string} field the declaration's field that names it ("path", "levels.1.mask_path"...)
 * @param {any} doc its zarr.json (untrusted)
 * @param {import('./arrays.js').ArrayInfo} copied the level's array it copies
 * @param {{ chunkShape: number[], shardShape: number[], level: number }} declared its inner chunk and shard shapes, and its level
 */
function checkCopy(path, field, doc, copied, declared) {
  let array;
  try {
    array = parseArray(path, doc);
  } catch (err) {
    throw new HistoryError(field, `names an array the reader cannot read (${err instanceof Error ? err.message : err})`);
  }
  const same = (/** @type {unknown} */ a, /** @type {unknown} */ b) => JSON.stringify(a) === JSON.stringify(b);
  const own = `level ${declared.level}'s`;
  if (!same(array.shape, copied.shape)) throw new HistoryError(field, `names an array of shape ${show(array.shape)}; ${own} is ${show(copied.shape)}`);
  if (array.dtype !== copied.dtype || !Object.is(array.fillValue, copied.fillValue)) {
    throw new HistoryError(field, `names an array of ${array.dtype} with fill_value ${array.fillValue}; ${own} is ${copied.dtype} with ${copied.fillValue}`);
  }
  if (!array.shardShape || !array.indexAtEnd) throw new HistoryError(field, 'names an array that is not sharded with its index at the end');
  const prefix = declared.level === 0 ? '' : `levels.${declared.level}.`;
  const shapes = field === `${prefix}path` ? [`${prefix}chunk_shape`, `${prefix}shard_shape`] : [field, field];
  if (!same(array.chunkShape, declared.chunkShape)) throw new HistoryError(shapes[0], `${show(declared.chunkShape)} is not the array's inner chunk ${show(array.chunkShape)}`);
  if (!same(array.shardShape, declared.shardShape)) throw new HistoryError(shapes[1], `${show(declared.shardShape)} is not the array's shard ${show(array.shardShape)}`);
  return array;
}

/**
 * One level's arrays' documents must be what the declaration and the level say they are.
 * @param {{ level: number, path: string, timeCap: number, inner: number, shard: number, chunkShape: number[], shardShape: number[],
 *   shardBytes: Record<string, number>, maskBytes: Record<string, number> | null }} declared
 * @param {any} doc the data array's zarr.json (untrusted) @param {any} maskDoc the mask copy's (when declared)
 * @param {{ data: import('./arrays.js').DataArrayInfo, mask: import('./arrays.js').ArrayInfo | null }} copied the level's arrays
 * @returns {HistoryLayout}
 */
export function checkArray(declared, doc, maskDoc, copied) {
  const { level, path, timeCap, inner, shard, shardBytes, maskBytes, chunkShape, shardShape } = declared;
  const prefix = level === 0 ? '' : `levels.${level}.`;
  const array = checkCopy(path, `${prefix}path`, doc, copied.data, declared);
  let mask = null;
  if (maskBytes) {
    if (!copied.mask) throw new HistoryError(`${prefix}mask_path`, 'declares a mask copy but the store has no mask');
    const without = (/** @type {number[]} */ shape) => [shape[0], shape[2], shape[3]];
    const maskPath = historyMaskPath(level);
    const maskArray = checkCopy(maskPath, `${prefix}mask_path`, maskDoc, copied.mask, { chunkShape: without(chunkShape), shardShape: without(shardShape), level });
    if (maskArray.dtype !== 'uint8') throw new HistoryError(`${prefix}mask_path`, `names an array of ${maskArray.dtype}; a mask is uint8`);
    mask = { path: maskPath, shardBytes: maskBytes, array: /** @type {import('./arrays.js').DataArrayInfo} */ (maskArray) };
  }
  return { level, path, timeCap, inner, shard, shardBytes, array: /** @type {import('./arrays.js').DataArrayInfo} */ (array), mask, coarse: [] };
}

/**
 * The store's history layout, or null when it declares none or one this reader cannot use (then
 * a warning names the field, once per opening, and histories come from level 0). Each coarser
 * level's history (version 1.3) is checked against that level; one that fails is named once and
 * left out of `coarse`, and that level's series are read from its chunks.
 * @param {unknown} declared the root block's `history`
 * @param {(key: string) => Promise<any>} node reads a node's zarr.json (consolidated or its own)
 * @param {{ data: import('./arrays.js').DataArrayInfo, mask: import('./arrays.js').ArrayInfo | null, chunkSize: number }[]} levels the store's levels, finest first
 * @param {string} where the store's root URL, for the warning
 * @param {AbortSignal | undefined} signal the opening's: once it aborts, its error goes on
 * @returns {Promise<HistoryLayout | null>}
 */
export async function historyLayout(declared, node, levels, where, signal) {
  if (declared === undefined) return null;
  /** @param {string} path @param {string} field */
  const read = async (path, field) => {
    try {
      return await node(path);
    } catch (err) {
      if (signal?.aborted) throw err; // the opening ended, not the declaration
      throw new HistoryError(field, `names an array whose zarr.json cannot be read (${err instanceof Error ? err.message : err})`);
    }
  };
  /** @param {Parameters<typeof checkArray>[0]} fields */
  const checked = async (fields) => {
    const copied = levels[fields.level];
    const prefix = fields.level === 0 ? '' : `levels.${fields.level}.`;
    if (!copied) throw new HistoryError(`levels.${fields.level}`, `names a level the store does not have (it has ${levels.length})`);
    const wantMask = fields.maskBytes && copied.mask;
    const [doc, maskDoc] = await Promise.all([read(fields.path, `${prefix}path`), wantMask ? read(historyMaskPath(fields.level), `${prefix}mask_path`) : null]);
    return checkArray(fields, doc, maskDoc, copied);
  };
  let top;
  try {
    const fields = parseDeclaration(declared, { shape: levels[0].data.shape, chunkSize: levels[0].chunkSize });
    top = await checked(fields);
    const base = { timeCap: fields.timeCap, inner: fields.inner, shard: fields.shard, chunkShape: fields.chunkShape, shardShape: fields.shardShape };
    const coarse = await Promise.all(fields.coarse.map((entry) => checked({ ...base, ...entry }).catch((err) => {
      if (!(err instanceof HistoryError)) throw err;
      console.warn(`chronozarr: ${where}: ${err.message}; level ${entry.level}'s series are read from its chunks`);
      return null;
    })));
    top.coarse = /** @type {HistoryLayout[]} */ (coarse.filter((layout) => layout != null));
  } catch (err) {
    if (!(err instanceof HistoryError)) throw err;
    console.warn(`chronozarr: ${where}: ${err.message}; pixel histories are read from level 0`);
    return null;
  }
  return top;
}

/** A level's history layout: level 0's itself, a coarser level's from `coarse`, else null. @param {HistoryLayout | null} layout @param {number} level */
export const historyAt = (layout, level) => (level === 0 ? layout : (layout?.coarse.find((c) => c.level === level) ?? null));

/** The key of history shard (tb, r, c). @param {HistoryLayout} layout @param {number} tb @param {number} r @param {number} c */
export const historyShardKey = (layout, tb, r, c) => `${layout.path}/c/${tb}/0/${r}/${c}`;

/** The key of the mask copy's shard (tb, r, c): no band axis. @param {HistoryMask} mask @param {number} tb @param {number} r @param {number} c */
export const historyMaskShardKey = (mask, tb, r, c) => `${mask.path}/c/${tb}/${r}/${c}`;

/**
 * The arrays of one level's history as the readers walk them: the data's and the mask copy's,
 * each with its cache tag (distinct per level: decoded inner chunks share the store's cache).
 * @param {HistoryLayout} layout
 * @returns {{ dataPart: import('./history-window.js').Part, maskPart: import('./history-window.js').Part | null }}
 */
export function historyParts(layout) {
  const { mask, level } = layout;
  const suffix = level === 0 ? '' : String(level);
  return {
    dataPart: { tag: `h${suffix}`, info: layout.array, key: (tb, r, c) => historyShardKey(layout, tb, r, c), shardBytes: layout.shardBytes },
    maskPart: mask && { tag: `hm${suffix}`, info: mask.array, key: (tb, r, c) => historyMaskShardKey(mask, tb, r, c), shardBytes: mask.shardBytes },
  };
}

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
