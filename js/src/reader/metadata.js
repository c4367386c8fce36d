/**
 * Opening a store (spec 10.1, 10.2): everything from the root zarr.json when its mirrors and
 * consolidated metadata are there (one request), per-node zarr.json documents when they are not
 * (v0.1 stores).
 * @module
 */
import { isDataArray, parseArray, typedView } from './arrays.js';
import { isObject, parseBands, parseNodata, parsePlaneName, parseSchedule, parseShardBytes, parseTimes } from './attributes.js';
import { decodeBytes } from './codecs.js';
import { StoreError } from './errors.js';
import { cellGrid, checkLevelLayout, checkLevelShapes } from './geometry.js';
import { historyLayout } from './history-format.js';
import { MAX_JSON_DEPTH, STAR_DELTA_DATA_TYPES } from './limits.js';

/**
 * @typedef {object} Level
 * @property {number} index
 * @property {string} path
 * @property {number} resolution
 * @property {number[]} transform
 * @property {number} width
 * @property {number} height
 * @property {number} gridRows
 * @property {number} gridCols
 * @property {number} chunkSize
 * @property {import('./arrays.js').DataArrayInfo} data
 * @property {import('./arrays.js').DataArrayInfo | null} mask
 * @property {import('./arrays.js').DataArrayInfo | null} coverage
 */

/**
 * @typedef {object} StoreMetadata
 * @property {string} specVersion
 * @property {string} variable
 * @property {string[]} times ISO-8601
 * @property {import('./attributes.js').Band[]} bands
 * @property {number | null} nodata
 * @property {string | null} crs
 * @property {'none' | 'star-delta'} encoding
 * @property {number[]} anchorIndices
 * @property {Int32Array} references anchor of each timestep, -1 for true values
 * @property {string | null} maskVariable
 * @property {string | null} coverageVariable
 * @property {Record<string, Record<string, number>>} shardBytes
 * @property {Level[]} levels
 * @property {import('./history-format.js').HistoryLayout | null} history the time-major history array, when declared and usable
 * @property {Record<string, any>} block the chronozarr attribute block as stored (untrusted JSON)
 * @property {Record<string, any>} rootAttributes every attribute of the root group as stored (untrusted JSON)
 */

/**
 * What opening reads through: whole objects (null when missing) and their URLs for messages.
 * @typedef {{ get: (key: string, o?: { signal?: AbortSignal }) => Promise<Uint8Array | null>, url: (key: string) => string }} MetadataSource
 */

/** A node's zarr.json by its key, from the consolidated metadata or its own document. @typedef {(key: string) => Promise<any>} NodeReader */

/**
 * @param {MetadataSource} transport
 * @param {AbortSignal} [signal]
 * @returns {Promise<StoreMetadata>}
 */
export async function loadMetadata(transport, signal) {
  const root = await readJson(transport, 'zarr.json', signal);
  if (root == null) {
    throw new StoreError(`no zarr.json at ${transport.url('zarr.json')}: not a chronozarr store, or an upload that has not finished (the root zarr.json is written last)`);
  }
  const block = root?.attributes?.chronozarr;
  if (!block || typeof block !== 'object') throw new StoreError(`${transport.url('zarr.json')} has no "chronozarr" attribute: not a chronozarr store`);
  try {
    return await parseRoot(transport, root, block, signal);
  } catch (err) {
    if (err instanceof StoreError || (err instanceof Error && (err.name === 'FetchError' || err.name === 'AbortError'))) throw err;
    throw new StoreError(`${transport.url('zarr.json')}: malformed chronozarr metadata (${err instanceof Error ? err.message : err})`, { cause: err });
  }
}


/**
 * A parsed JSON document (untrusted), or null when the object is missing.
 * @param {MetadataSource} transport @param {string} key @param {AbortSignal | undefined} signal
 * @returns {Promise<any>}
 */
async function readJson(transport, key, signal) {
  const raw = await transport.get(key, { signal });
  if (raw == null) return null;
  let doc;
  try {
    doc = JSON.parse(new TextDecoder().decode(raw));
  } catch (err) {
    if (err instanceof RangeError) throw new StoreError(`${transport.url(key)} is not a usable JSON document: it is nested deeper than ${MAX_JSON_DEPTH} levels`);
    throw new StoreError(`${transport.url(key)} is not valid JSON (${err instanceof Error ? err.message : err})`);
  }
  if (jsonDepth(doc) > MAX_JSON_DEPTH) throw new StoreError(`${transport.url(key)} is not a usable JSON document: it is nested deeper than ${MAX_JSON_DEPTH} levels`);
  return doc;
}

/** How deeply a parsed document nests, walked without recursion (stopping past the limit). @param {unknown} doc */
function jsonDepth(doc) {
  let deepest = 0;
  /** @type {[unknown, number][]} */
  const stack = [[doc, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [value, depth] = top;
    if (value === null || typeof value !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_JSON_DEPTH) break;
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * @param {MetadataSource} transport @param {any} root the root zarr.json (untrusted JSON)
 * @param {any} block its chronozarr attribute block (untrusted JSON) @param {AbortSignal | undefined} signal
 * @returns {Promise<StoreMetadata>}
 */
async function parseRoot(transport, root, block, signal) {
  const { specVersion, legacy, temporal, encoding, variable } = parseHeader(block);
  const consolidated = isObject(root.consolidated_metadata?.metadata) ? root.consolidated_metadata.metadata : null;
  const mirrors = Array.isArray(block.levels) ? block.levels : null;
  const datasets = root.attributes.multiscales?.[0]?.datasets;
  if (!mirrors && !Array.isArray(datasets)) throw new StoreError('the store lists no levels: no chronozarr.levels and no multiscales[0].datasets (spec 10.2)');
  /** @type {string[]} */
  const paths = (mirrors ?? datasets).map((/** @type {any} */ m) => String(m?.path));
  if (!paths.length) throw new StoreError('the store lists no levels');
  const maskVariable = parsePlaneName(block, 'mask_variable');
  const coverageVariable = parsePlaneName(block, 'coverage_variable');
  const node = nodeReader(transport, consolidated, signal);
  const names = { variable, maskVariable, coverageVariable };
  const levels = await Promise.all(paths.map((path, index) => parseLevel(node, mirrors, names, path, index)));
  const checked = levels.map((level) => checkLevelLayout(level, levels[0].data));
  checkLevelShapes(checked, mirrors);
  const [nTime, nBand] = levels[0].data.shape;
  const dtype = levels[0].data.dtype;
  if (encoding === 'star-delta' && !STAR_DELTA_DATA_TYPES.includes(dtype)) {
    throw new StoreError(`star-delta store with data_type ${dtype}: star-delta is uint8/uint16 only`);
  }
  const times = Array.isArray(block.times) ? parseTimes(block.times) : await timeMirror(transport, node, paths[0], signal);
  const bands = parseBands(block, legacy);
  if (times.length !== nTime) throw new StoreError(`chronozarr.times lists ${times.length} timesteps but the data array has ${nTime}`);
  if (bands.length !== nBand) throw new StoreError(`chronozarr.bands lists ${bands.length} bands but the data array has ${nBand}`);
  const { anchorIndices, references } = encoding === 'star-delta' ? parseSchedule(temporal, nTime) : { anchorIndices: [], references: new Int32Array(nTime).fill(-1) };
  const history = await historyLayout(block.history, node, checked, transport.url('zarr.json'), signal);
  return {
    specVersion,
    variable,
    times,
    bands,
    nodata: parseNodata(block.nodata),
    crs: typeof block.crs === 'string' ? block.crs : null,
    encoding,
    anchorIndices,
    references,
    maskVariable,
    coverageVariable,
    shardBytes: parseShardBytes(block.shard_bytes),
    levels: checked,
    history,
    block,
    rootAttributes: root.attributes,
  };
}

/**
 * Timestamps from the int64 time coordinate, for stores without the times mirror.
 * @param {MetadataSource} transport @param {NodeReader} node @param {string} levelPath
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<string[]>}
 */
async function timeMirror(transport, node, levelPath, signal) {
  const info = parseArray(`${levelPath}/time`, await node(`${levelPath}/time`));
  const key = `${levelPath}/time/c/0`;
  const raw = await transport.get(key, { signal });
  if (raw == null) throw new StoreError(`${transport.url(key)} is missing`);
  const values = typedView(info.dtype, await decodeBytes(info.codec, raw, info.chunkBytes, transport.url(key)));
  const times = [];
  for (const ms of values.subarray(0, info.shape[0])) times.push(new Date(Number(ms)).toISOString().replace('.000Z', 'Z'));
  return times;
}

/**
 * The root's version, temporal encoding and data variable, checked.
 * @param {any} block the chronozarr attribute block (untrusted JSON)
 */
function parseHeader(block) {
  const specVersion = block.spec_version;
  if (typeof specVersion !== 'string' || !/^0\.[12]\.\d+$/.test(specVersion)) {
    throw new StoreError(`unsupported chronozarr spec_version ${JSON.stringify(specVersion)}: this reader reads 0.1.x and 0.2.x`);
  }
  const legacy = specVersion.startsWith('0.1');
  const temporal = block.temporal ?? {};
  const encoding = temporal.encoding ?? (legacy ? 'star-delta' : undefined);
  if (encoding !== 'none' && encoding !== 'star-delta') {
    throw new StoreError(`unsupported temporal encoding ${JSON.stringify(encoding)}: expected "none" or "star-delta" (spec 4.1)`);
  }
  const variable = block.variable ?? 'data';
  if (typeof variable !== 'string' || !variable || variable.includes('/')) throw new StoreError(`chronozarr.variable must be an array name, got ${JSON.stringify(variable)}`);
  return { specVersion, legacy, temporal, encoding, variable };
}

/**
 * A node's zarr.json: its consolidated copy, or (absent or not an object) its own document.
 * @param {MetadataSource} transport @param {Record<string, any> | null} consolidated @param {AbortSignal | undefined} signal
 * @returns {NodeReader}
 */
function nodeReader(transport, consolidated, signal) {
  return async (key) => {
    const doc = isObject(consolidated?.[key]) ? consolidated[key] : await readJson(transport, `${key}/zarr.json`, signal);
    if (doc == null) throw new StoreError(`${transport.url(`${key}/zarr.json`)} is missing`);
    return doc;
  };
}

/**
 * One level: its placement (from the root's mirror or its group) and its arrays, before the
 * checks across levels.
 * @param {NodeReader} node @param {any[] | null} mirrors the root's chronozarr.levels (untrusted JSON)
 * @param {{ variable: string, maskVariable: string | null, coverageVariable: string | null }} names
 * @param {string} path @param {number} index
 */
async function parseLevel(node, mirrors, { variable, maskVariable, coverageVariable }, path, index) {
  if (path !== String(index)) throw new StoreError(`levels must be named 0, 1, ... in order; level ${index} is ${JSON.stringify(path)}`);
  const [group, dataDoc, maskDoc, coverageDoc] = await Promise.all([
    mirrors ? null : node(path),
    node(`${path}/${variable}`),
    maskVariable ? node(`${path}/${maskVariable}`) : null,
    coverageVariable ? node(`${path}/${coverageVariable}`) : null,
  ]);
  const source = mirrors ? mirrors[index] : group.attributes;
  const transform = Array.isArray(source?.transform) ? source.transform.map(Number) : [];
  const resolution = Number(source?.resolution);
  if (transform.length !== 6 || transform.some((/** @type {number} */ v) => !Number.isFinite(v))) throw new StoreError(`level ${path} transform must have 6 numbers, got ${JSON.stringify(source?.transform)}`);
  if (!(resolution > 0 && Number.isFinite(resolution))) throw new StoreError(`level ${path} resolution must be a positive number, got ${JSON.stringify(source?.resolution)}`);
  const data = parseArray(`${path}/${variable}`, dataDoc);
  if (!isDataArray(data) || data.shape.length !== 4) {
    throw new StoreError(`${path}/${variable}: unsupported data array (data_type ${data.dtype}, ${data.shape.length} dims)`);
  }
  const chunkSize = data.chunkShape[2];
  const [, , height, width] = data.shape;
  return {
    index,
    path,
    resolution,
    transform,
    width,
    height,
    ...cellGrid(width, height, chunkSize),
    chunkSize,
    data,
    mask: maskDoc ? parseArray(`${path}/${maskVariable}`, maskDoc) : null,
    coverage: coverageDoc ? parseArray(`${path}/${coverageVariable}`, coverageDoc) : null,
  };
}
