/**
 * Validation of a `chronozarr:set` against the open store: every field is checked before anything
 * is applied, and the first bad one is named in the answer.
 * @module
 */
import { snapSpeed } from './playback.js';
import { regionsOfSet } from './region-shapes.js';

/**
 * The timestep nearest a date (the earlier on a tie; first or last outside the series).
 * @param {readonly string[]} times ISO strings
 * @param {number} ms
 */
export function nearestTime(times, ms) {
  let best = 0;
  let bestD = Infinity;
  times.forEach((s, i) => {
    const d = Math.abs(Date.parse(s) - ms);
    if (d < bestD) {
      best = i;
      bestD = d;
    }
  });
  return best;
}

/** ISO 8601 date or date-time; one without a zone is UTC. Returns ms or null. @param {string} s */
export function parseIsoDate(s) {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s.trim());
  if (!m) return null;
  const [, y, mo, d = '01', h = '00', mi = '00', sec = '00', frac = '', zone] = m;
  let iso = `${y}-${mo}-${d}T${h}:${mi}:${sec}${frac}`;
  iso += zone ? (zone === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone) : 'Z';
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * A set's values once checked against the store: what each field asks for, in the viewer's terms.
 * @typedef {object} SetValues
 * @property {string} [product]
 * @property {number} [band] band index
 * @property {number} [t] timestep
 * @property {number} [zoom]
 * @property {{ x: number, y: number } | { lon: number, lat: number }} [center] in the store's CRS, or WGS84
 * @property {number} [speed] an offered speed
 * @property {import('./compare.js').CompareState | null} [compare] null: the split view off
 * @property {boolean} [playing]
 * @property {import('./region-shapes.js').RegionShape[]} [regions] the regions to hold (none: clear them)
 */

/**
 * @param {Record<string, unknown>} f fields of the set, as the host sent them
 * @param {{ store: Pick<import('../lib/typedefs.js').Store, 'times' | 'bandNames' | 'crs'>, products: { id: string, available: boolean }[], geoOk: boolean }} ctx
 * @returns {{ ok: true, values: SetValues } | { ok: false, field: string, message: string }}
 */
export function validateSet(f, { store, products, geoOk }) {
  const n = store.times.length;
  /** @type {SetValues} */
  const values = {};
  /** @param {string} field @param {string} message */
  const bad = (field, message) => ({ ok: /** @type {false} */ (false), field, message: `${field}: ${message}` });
  const show = (/** @type {unknown} */ v) => JSON.stringify(v) ?? String(v);
  if ('product' in f) {
    const p = products.find((x) => x.id === f.product);
    if (typeof f.product !== 'string' || !p) return bad('product', `must be one of ${products.map((x) => x.id).join(', ')}, got ${show(f.product)}.`);
    if (!p.available) return bad('product', `${show(f.product)} needs bands this store does not have; available: ${products.filter((x) => x.available).map((x) => x.id).join(', ')}.`);
    values.product = f.product;
  }
  if ('band' in f) {
    const i = typeof f.band === 'string' ? store.bandNames.indexOf(f.band) : -1;
    if (i < 0) return bad('band', `must be a band name of this store (${store.bandNames.join(', ')}), got ${show(f.band)}.`);
    values.band = i;
  }
  if ('t' in f) {
    if (typeof f.t === 'number') {
      if (!Number.isInteger(f.t) || f.t < 0 || f.t >= n) return bad('t', `must be an integer timestep from 0 to ${n - 1} or an ISO 8601 date, got ${show(f.t)}.`);
      values.t = f.t;
    } else if (typeof f.t === 'string') {
      const ms = parseIsoDate(f.t);
      if (ms == null) return bad('t', `must be an integer timestep or an ISO 8601 date such as "2024-03-01", got ${show(f.t)}.`);
      values.t = nearestTime(store.times, ms);
    } else {
      return bad('t', `must be an integer timestep or an ISO 8601 date string, got ${show(f.t)}.`);
    }
  }
  if ('zoom' in f) {
    if (typeof f.zoom !== 'number' || !Number.isFinite(f.zoom) || f.zoom <= 0) {
      return bad('zoom', `must be a number above 0 (CSS pixels per level-0 data pixel), got ${show(f.zoom)}.`);
    }
    values.zoom = f.zoom;
  }
  if ('center' in f) {
    /** @param {unknown} v @returns {v is number} a finite number */
    const num = (v) => typeof v === 'number' && Number.isFinite(v);
    if (!f.center || typeof f.center !== 'object') return bad('center', `must be {x, y} or {lon, lat}, got ${show(f.center)}.`);
    const c = /** @type {Record<string, unknown>} */ (f.center); // an object: its fields are checked here
    if (c.x != null && c.y != null) {
      if (!num(c.x) || !num(c.y)) return bad('center', `x and y must be numbers, got ${show(c)}.`);
      values.center = { x: c.x, y: c.y };
    } else if (c.lon != null && c.lat != null) {
      if (!num(c.lon) || !num(c.lat) || Math.abs(c.lat) > 90 || Math.abs(c.lon) > 180) return bad('center', `lon and lat must be WGS84 degrees, got ${show(c)}.`);
      if (!geoOk) return bad('center', `lon/lat needs a georeferenced store in WGS84 UTM, EPSG:3857 or EPSG:4326; this store's CRS is ${show(store.crs)}. Send {x, y}.`);
      values.center = { lon: c.lon, lat: c.lat };
    } else {
      return bad('center', `must have both x and y, or both lon and lat, got ${show(c)}.`);
    }
  }
  if ('speed' in f) {
    if (typeof f.speed !== 'number' || !Number.isFinite(f.speed) || f.speed <= 0) return bad('speed', `must be a number of timesteps per second above 0, got ${show(f.speed)}.`);
    values.speed = snapSpeed(f.speed);
  }
  if ('compare' in f) {
    const c = checkCompare(f.compare, store.times);
    if (typeof c === 'string') return bad('compare', c);
    values.compare = c;
  }
  if ('region' in f) {
    const r = regionsOfSet(f.region);
    if (typeof r === 'string') return bad('region', `${r}.`);
    values.regions = r;
  }
  if ('playing' in f) {
    if (typeof f.playing !== 'boolean') return bad('playing', `must be true or false, got ${show(f.playing)}.`);
    values.playing = f.playing;
  }
  return { ok: true, values };
}

/**
 * The split view of a set: null or false turns it off; `{ t, split? }` (t a timestep or an ISO date,
 * split 0..1, 0.5 when left out) turns it on. A string is the reason it is not valid.
 * @param {unknown} c
 * @param {readonly string[]} times
 * @returns {import('./compare.js').CompareState | null | string}
 */
function checkCompare(c, times) {
  if (c === null || c === false) return null;
  const show = JSON.stringify(c) ?? String(c);
  if (!c || typeof c !== 'object') return `must be null or {t, split}, got ${show}.`;
  const { t, split = 0.5 } = /** @type {Record<string, unknown>} */ (c); // an object: its fields are checked here
  let ti;
  const ms = typeof t === 'string' ? parseIsoDate(t) : null;
  if (typeof t === 'number' && Number.isInteger(t) && t >= 0 && t < times.length) ti = t;
  else if (ms != null) ti = nearestTime(times, ms);
  else return `t must be an integer timestep from 0 to ${times.length - 1} or an ISO 8601 date, got ${show}.`;
  if (typeof split !== 'number' || !(split >= 0 && split <= 1)) return `split must be a number from 0 to 1, got ${show}.`;
  return { t: ti, split };
}
