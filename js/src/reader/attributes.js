/**
 * Fields of the chronozarr attribute block (spec 3.2), checked before they are trusted: a value of
 * the wrong type is an error naming the field, never a silent default that changes what is read.
 * @module
 */
import { StoreError } from './errors.js';

/** A JSON object (not null, not a list). @param {unknown} value @returns {value is Record<string, unknown>} */
export const isObject = (value) => value != null && typeof value === 'object' && !Array.isArray(value);

/** An ISO-8601 date or date-time, with or without a zone (spec 2.2). */
const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** chronozarr.times: ISO-8601 strings. @param {unknown[]} values */
export function parseTimes(values) {
  values.forEach((text, i) => {
    if (typeof text !== 'string' || !ISO.test(text) || Number.isNaN(Date.parse(text.replace(' ', 'T')))) {
      throw new StoreError(`chronozarr.times[${i}] must be an ISO-8601 timestamp string, got ${JSON.stringify(text)}`);
    }
  });
  return /** @type {string[]} */ (values);
}

/** chronozarr.nodata: a finite number or null (spec 2.3); absent is null. @param {unknown} value @returns {number | null} */
export function parseNodata(value) {
  if (value == null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new StoreError(`chronozarr.nodata must be a finite number or null, got ${JSON.stringify(value)}`);
}

/**
 * chronozarr.shard_bytes: { level path: { "<t_shard>/<row>/<col>": byte length } } (spec 7.3);
 * a reader MUST use it, so a malformed one is refused rather than skipped.
 * @param {unknown} value
 * @returns {Record<string, Record<string, number>>}
 */
export function parseShardBytes(value) {
  if (value === undefined) return {};
  const rule = 'chronozarr.shard_bytes must map level paths to {"<t_shard>/<row>/<col>": byte length} (spec 7.3)';
  if (!isObject(value)) throw new StoreError(`${rule}, got ${JSON.stringify(value)}`);
  for (const [level, lengths] of Object.entries(value)) {
    if (!isObject(lengths)) throw new StoreError(`${rule}; entry ${JSON.stringify(level)} is ${JSON.stringify(lengths)}`);
    for (const [key, n] of Object.entries(lengths)) {
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new StoreError(`${rule}; [${JSON.stringify(level)}][${JSON.stringify(key)}] is ${JSON.stringify(n)}, not a byte length`);
    }
  }
  return /** @type {Record<string, Record<string, number>>} */ (value);
}

/**
 * A band as the store lists it; the fields the reader does not check are passed on as stored.
 * @typedef {object} Band
 * @property {string} name
 * @property {string | null} [common_name]
 * @property {number} scale
 * @property {number} offset
 * @property {string | null} [units]
 */

/**
 * Band objects from chronozarr.bands, else band_names (spec 3.2). A v0.1 string is a band with that
 * name, read with the Sentinel-2 L2A reflectance scale 0.0001 (spec 3.6), which is what v0.1
 * stores held.
 * @param {any} block the chronozarr attribute block (untrusted JSON) @param {boolean} legacy a v0.1 store
 * @returns {Band[]}
 */
export function parseBands(block, legacy) {
  const { bands, band_names: names } = block;
  if (bands != null && !Array.isArray(bands)) throw new StoreError(`chronozarr.bands must be a list of band objects, got ${JSON.stringify(bands)}`);
  if (bands?.length) return bands.map((/** @type {unknown} */ b) => parseBand(b, legacy));
  if (names != null && !Array.isArray(names)) throw new StoreError(`chronozarr.band_names must be a list of names, got ${JSON.stringify(names)}`);
  return (names ?? []).map((/** @type {unknown} */ b) => parseBand(b, legacy));
}

/** @param {any} value a band entry (untrusted JSON) @param {boolean} legacy @returns {Band} */
function parseBand(value, legacy) {
  if (typeof value === 'string') return { name: value, scale: legacy ? 0.0001 : 1, offset: 0 };
  if (!value || typeof value.name !== 'string' || !value.name) throw new StoreError(`band entry must be an object with a name or a string, got ${JSON.stringify(value)}`);
  const scale = value.scale ?? 1;
  const offset = value.offset ?? 0;
  if (!Number.isFinite(scale) || !Number.isFinite(offset)) throw new StoreError(`band ${JSON.stringify(value.name)}: scale and offset must be finite numbers`);
  return { ...value, scale, offset };
}

/** temporal.anchor_indices: timestep indices (spec 4.1). @param {unknown} value @returns {number[]} */
export function parseAnchorIndices(value) {
  if (!Array.isArray(value) || !value.every((t) => Number.isInteger(t) && t >= 0)) {
    throw new StoreError(`chronozarr.temporal.anchor_indices must be a list of timestep indices, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A short JSON rendering of a value for a message. @param {unknown} value */
const short = (value) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 120 ? text : `${text.slice(0, 117)}...`;
};

/**
 * The anchor each timestep decodes through (-1 for an anchor), after the checks of spec 4.2 that
 * the Python reader makes (format/temporal.py schedule_problems): anchors exactly
 * [0, k, 2k, ...] below n_time, and every other timestep referencing an anchor at distance
 * 0 < d < k. Read through anything else, a timestep would hand back its residuals as values.
 * @param {any} temporal the temporal block @param {number} nTime
 * @returns {{ anchorIndices: number[], references: Int32Array }}
 */
export function parseSchedule(temporal, nTime) {
  /** @param {string} field @param {string} message */
  const refuse = (field, message) =>
    new StoreError(`chronozarr.temporal.${field} ${message}: the store cannot be decoded; re-encode it, or restore the temporal block its writer wrote`);
  const interval = temporal.anchor_interval;
  if (!Number.isInteger(interval) || interval < 1) throw refuse('anchor_interval', `must be an integer >= 1, got ${short(interval)} (spec 4.1)`);
  const anchorIndices = parseAnchorIndices(temporal.anchor_indices);
  const expected = [];
  for (let t = 0; t < nTime; t += interval) expected.push(t);
  if (anchorIndices.join() !== expected.join()) {
    throw refuse('anchor_indices', `is ${short(anchorIndices)}, expected ${short(expected)} for anchor_interval ${interval} and ${nTime} timesteps (spec 4.2)`);
  }
  const refs = isObject(temporal.delta_reference) ? temporal.delta_reference : {};
  const references = new Int32Array(nTime).fill(-1);
  for (let t = 0; t < nTime; t++) {
    if (t % interval === 0) {
      if (refs[String(t)] != null) throw refuse(`delta_reference["${t}"]`, `timestep ${t} is an anchor and must not be referenced (spec 4.1)`);
      continue;
    }
    const anchor = refs[String(t)];
    const field = `delta_reference["${t}"]`;
    if (anchor == null) throw refuse('delta_reference', `gives non-anchor timestep ${t} no reference (spec 4.1)`);
    if (!Number.isInteger(anchor) || anchor < 0 || anchor >= nTime || anchor % interval) {
      throw refuse(field, `references ${short(anchor)}, which is not an anchor (anchors ${short(expected)}) (spec 4.2)`);
    }
    if (!(Math.abs(t - anchor) < interval)) {
      throw refuse(field, `references anchor ${anchor} at distance ${Math.abs(t - anchor)}; it must be 0 < d < anchor_interval (${interval}) (spec 4.2)`);
    }
    references[t] = anchor;
  }
  return { anchorIndices, references };
}

/**
 * mask_variable or coverage_variable: absent, or the name of an array of every level (spec 2.4,
 * 2.5); a value of another type is refused, not read as "no mask".
 * @param {any} block @param {'mask_variable' | 'coverage_variable'} field
 */
export function parsePlaneName(block, field) {
  const value = block[field];
  if (value == null) return null;
  if (typeof value !== 'string' || !value || value.includes('/')) {
    throw new StoreError(`chronozarr.${field} must be the name of an array ("${field.split('_')[0]}"), got ${short(value)}: a store without one omits the field`);
  }
  return value;
}
