/**
 * The viewer's regions as data: a box or a polygon in the store's CRS, its compact form in the
 * address (`region=bbox:w,s,e,n;poly:x1,y1,x2,y2,...`), the geometry the reader's
 * readRegionSeries takes, what a host's `set.region` may send, and the CSV of the series read.
 * Pure functions, tested without a page.
 * @module
 */
import { formatNumber } from './params.js';

/**
 * A region in the store's CRS: a box, or a polygon's corners (the ring open: the first corner is
 * not repeated at the end).
 * @typedef {{ kind: 'box', box: [number, number, number, number] } | { kind: 'polygon', ring: [number, number][] }} RegionShape
 */

/** At most this many regions are held at once. */
export const MAX_REGIONS = 6;
/** One colour per region, in the order they were drawn. */
export const REGION_COLORS = /** @type {const} */ (['#ff6b6b', '#4cc9f0', '#ffd166', '#06d6a0', '#c77dff', '#f78c6b']);
/** Significant digits of a coordinate in the address: a tenth of a millimetre in metres. */
const DIGITS = 10;

/** @param {number[]} v @returns {v is number[]} */
const finite = (v) => v.every(Number.isFinite);

/**
 * A box from any two opposite corners, or why it is not one. @param {number[]} v [x0, y0, x1, y1]
 * @returns {RegionShape | string}
 */
export function boxShape(v) {
  if (v.length !== 4 || !finite(v)) return `a box is four numbers west, south, east, north; got ${JSON.stringify(v)}`;
  const [w, e] = [Math.min(v[0], v[2]), Math.max(v[0], v[2])];
  const [s, n] = [Math.min(v[1], v[3]), Math.max(v[1], v[3])];
  if (!(w < e && s < n)) return `a box needs west < east and south < north; got ${JSON.stringify(v)}`;
  return { kind: 'box', box: [w, s, e, n] };
}

/**
 * A polygon from its corners (a closing corner equal to the first is dropped), or why it is not one.
 * @param {unknown} points [[x, y], ...]
 * @returns {RegionShape | string}
 */
export function polygonShape(points) {
  if (!Array.isArray(points)) return `a polygon is a list of [x, y] corners; got ${JSON.stringify(points)}`;
  const ring = points.map((p) => (Array.isArray(p) && p.length >= 2 ? [Number(p[0]), Number(p[1])] : [NaN, NaN]));
  if (!ring.every((p) => finite(p))) return `every corner of a polygon is two numbers; got ${JSON.stringify(points)}`;
  const [a, z] = [ring[0], ring[ring.length - 1]];
  if (ring.length > 1 && a[0] === z[0] && a[1] === z[1]) ring.pop();
  if (ring.length < 3) return `a polygon needs at least three corners; got ${ring.length}`;
  return { kind: 'polygon', ring: /** @type {[number, number][]} */ (ring) };
}

/** The shape's compact text for the address. @param {RegionShape} shape */
export function encodeShape(shape) {
  const nums = shape.kind === 'box' ? shape.box : shape.ring.flat();
  return `${shape.kind === 'box' ? 'bbox' : 'poly'}:${nums.map((v) => formatNumber(v, DIGITS)).join(',')}`;
}

/** Several shapes as one address value (null for none). @param {RegionShape[]} shapes */
export const encodeRegions = (shapes) => (shapes.length ? shapes.map(encodeShape).join(';') : null);

/**
 * One shape of the address's compact text, or why it is not one.
 * @param {string} text `bbox:w,s,e,n` or `poly:x1,y1,x2,y2,x3,y3,...`
 * @returns {RegionShape | string}
 */
export function decodeShape(text) {
  const m = /^(bbox|poly):(.*)$/.exec(text.trim());
  if (!m) return `a region is bbox:west,south,east,north or poly:x1,y1,x2,y2,...; got ${JSON.stringify(text)}`;
  const nums = m[2].split(',').map((s) => (s.trim() === '' ? NaN : Number(s)));
  if (m[1] === 'bbox') return boxShape(nums);
  if (nums.length % 2) return `a poly: region lists x,y pairs; got ${nums.length} numbers`;
  return polygonShape(Array.from({ length: nums.length / 2 }, (_, i) => [nums[2 * i], nums[2 * i + 1]]));
}

/**
 * The address's `region` value as shapes (at most MAX_REGIONS), with the reasons for the parts
 * left out.
 * @param {string | null} text
 * @returns {{ shapes: RegionShape[], bad: string[] }}
 */
export function decodeRegions(text) {
  /** @type {RegionShape[]} */
  const shapes = [];
  const bad = [];
  for (const part of (text ?? '').split(';').filter((p) => p.trim())) {
    const s = decodeShape(part);
    if (typeof s === 'string') bad.push(s);
    else if (shapes.length < MAX_REGIONS) shapes.push(s);
    else bad.push(`at most ${MAX_REGIONS} regions; ${JSON.stringify(part)} left out`);
  }
  return { shapes, bad };
}

/**
 * One region as a host may send it: `[w, s, e, n]`, a GeoJSON Polygon (or a Feature of one), or
 * the address's text; in the store's CRS.
 * @param {unknown} v @returns {RegionShape | string}
 */
function hostShape(v) {
  if (typeof v === 'string') return decodeShape(v);
  if (Array.isArray(v)) return boxShape(v.map(Number));
  const g = v && typeof v === 'object' && 'geometry' in v ? /** @type {{ geometry: unknown }} */ (v).geometry : v;
  if (g && typeof g === 'object' && 'type' in g && g.type === 'Polygon' && 'coordinates' in g && Array.isArray(g.coordinates)) {
    if (g.coordinates.length !== 1) return 'a region polygon has one ring (no holes)';
    return polygonShape(g.coordinates[0]);
  }
  return `a region is [west, south, east, north], a GeoJSON Polygon or "bbox:w,s,e,n"; got ${JSON.stringify(v)}`;
}

/**
 * What a `set`'s `region` field asks for: null (or []) clears the regions; one region, or a list
 * of them, replaces them. A string is the reason it is refused.
 * @param {unknown} v
 * @returns {RegionShape[] | string}
 */
export function regionsOfSet(v) {
  if (v === null) return [];
  const many = Array.isArray(v) && (v.length === 0 || typeof v[0] !== 'number');
  const list = many ? /** @type {unknown[]} */ (v) : [v];
  if (list.length > MAX_REGIONS) return `at most ${MAX_REGIONS} regions, got ${list.length}`;
  const shapes = list.map(hostShape);
  const bad = shapes.find((s) => typeof s === 'string');
  return typeof bad === 'string' ? bad : /** @type {RegionShape[]} */ (shapes);
}

/** The geometry readRegionSeries takes. @param {RegionShape} shape */
export function readerGeometry(shape) {
  if (shape.kind === 'box') return [...shape.box];
  return { type: 'Polygon', coordinates: [[...shape.ring, shape.ring[0]].map((p) => [...p])] };
}

/** The shape's corners, in order (a box's from its south-west corner, anticlockwise). @param {RegionShape} shape @returns {[number, number][]} */
export function corners(shape) {
  if (shape.kind === 'polygon') return shape.ring;
  const [w, s, e, n] = shape.box;
  return [[w, s], [e, s], [e, n], [w, n]];
}

/**
 * The shape with every corner mapped by `f` (a move on screen); a box stays a box.
 * @param {RegionShape} shape @param {(p: [number, number]) => [number, number]} f
 * @returns {RegionShape}
 */
export function mapShape(shape, f) {
  if (shape.kind === 'polygon') return { kind: 'polygon', ring: shape.ring.map(f) };
  const [a, b] = [f([shape.box[0], shape.box[1]]), f([shape.box[2], shape.box[3]])];
  const box = boxShape([...a, ...b]);
  return typeof box === 'string' ? shape : box;
}

/**
 * A region's series as readRegionSeries gives it (the fields the CSV and chart use).
 * @typedef {object} RegionSeries
 * @property {number} level
 * @property {number} pixelSize
 * @property {number} regionPixels
 * @property {string[]} bands
 * @property {number[][]} validPixels per timestep, per band
 * @property {(number | null)[][]} mean
 * @property {(number | null)[][]} std
 * @property {(number | null)[][]} min
 * @property {(number | null)[][]} max
 * @property {number} [dates] of a series still being read: how many dates have arrived (the first ones)
 */

export const CSV_HEADER = ['region', 'time', 'band', 'level', 'valid_pixels', 'mean', 'std', 'min', 'max'];

/**
 * The regions' series as CSV: one row per region, date and band (or product); an empty cell where
 * a date has no valid pixel.
 * @param {readonly string[]} times
 * @param {{ id: number, series: RegionSeries }[]} regions
 */
export function regionCsv(times, regions) {
  const lines = [CSV_HEADER.join(',')];
  for (const { id, series: s } of regions) {
    times.forEach((time, t) => s.bands.forEach((band, b) => {
      const stat = (/** @type {(number | null)[][]} */ a) => (a[t][b] == null ? '' : String(a[t][b]));
      lines.push([id, time, band, s.level, s.validPixels[t][b], stat(s.mean), stat(s.std), stat(s.min), stat(s.max)].join(','));
    }));
  }
  return `${lines.join('\n')}\n`;
}
