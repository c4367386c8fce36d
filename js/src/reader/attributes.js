/**
 * Fields of the chronozarr attribute block (spec 3.2), checked before they are trusted: a value of
 * the wrong type is an error naming the field, never a silent default that changes what is read.
 * @module
 */
import { StoreError } from './errors.js';

/** A JSON object (not null, not a list). */
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

/** chronozarr.nodata: a finite number or null (spec 2.3); absent is null. */
export function parseNodata(value) {
  if (value == null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new StoreError(`chronozarr.nodata must be a finite number or null, got ${JSON.stringify(value)}`);
}

/**
 * chronozarr.shard_bytes: { level path: { "<t_shard>/<row>/<col>": byte length } } (spec 7.3);
 * a reader MUST use it, so a malformed one is refused rather than skipped.
 * @returns {Record<string, Record<string, number>>}
 */
export function parseShardBytes(value) {
  if (value === undefined) return {};
  const rule = 'chronozarr.shard_bytes must map level paths to {"<t_shard>/<row>/<col>": byte length} (spec 7.3)';
  if (!isObject(value)) throw new StoreError(`${rule}, got ${JSON.stringify(value)}`);
  for (const [level, lengths] of Object.entries(value)) {
    if (!isObject(lengths)) throw new StoreError(`${rule}; entry ${JSON.stringify(level)} is ${JSON.stringify(lengths)}`);
    for (const [key, n] of Object.entries(lengths)) {
      if (!Number.isSafeInteger(n) || n < 0) throw new StoreError(`${rule}; [${JSON.stringify(level)}][${JSON.stringify(key)}] is ${JSON.stringify(n)}, not a byte length`);
    }
  }
  return value;
}

/**
 * @typedef {object} Band
 * @property {string} name
 * @property {string} [common_name]
 * @property {number} scale
 * @property {number} offset
 * @property {string} [units]
 */

/**
 * Band objects from chronozarr.bands, else band_names (spec 3.2). A v0.1 string is a band with that
 * name, read with the Sentinel-2 L2A reflectance scale 0.0001 (spec 3.6), which is what v0.1
 * stores held.
 * @returns {Band[]}
 */
export function parseBands(block, legacy) {
  const { bands, band_names: names } = block;
  if (bands != null && !Array.isArray(bands)) throw new StoreError(`chronozarr.bands must be a list of band objects, got ${JSON.stringify(bands)}`);
  if (bands?.length) return bands.map((b) => parseBand(b, legacy));
  if (names != null && !Array.isArray(names)) throw new StoreError(`chronozarr.band_names must be a list of names, got ${JSON.stringify(names)}`);
  return (names ?? []).map((b) => parseBand(b, legacy));
}

function parseBand(value, legacy) {
  if (typeof value === 'string') return { name: value, scale: legacy ? 0.0001 : 1, offset: 0 };
  if (!value || typeof value.name !== 'string' || !value.name) throw new StoreError(`band entry must be an object with a name or a string, got ${JSON.stringify(value)}`);
  const scale = value.scale ?? 1;
  const offset = value.offset ?? 0;
  if (!Number.isFinite(scale) || !Number.isFinite(offset)) throw new StoreError(`band ${JSON.stringify(value.name)}: scale and offset must be finite numbers`);
  return { ...value, scale, offset };
}

/** temporal.anchor_indices: timestep indices (spec 4.1). */
export function parseAnchorIndices(value) {
  if (!Array.isArray(value) || !value.every((t) => Number.isInteger(t) && t >= 0)) {
    throw new StoreError(`chronozarr.temporal.anchor_indices must be a list of timestep indices, got ${JSON.stringify(value)}`);
  }
  return value;
}
