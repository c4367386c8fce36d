/**
 * An area's pixels, level and statistics: the mirror of Python's format/region.py and
 * format/region_stats.py, operation for operation in float64 so both pick the same pixels.
 * A pixel belongs to an area when its centre `origin + (i + 0.5) * step` lies inside, edges
 * included; a polygon ring counts crossings where exactly one end has `y > py`, at
 * `x1 + (py - y1) * (x2 - x1) / (y2 - y1)`; a point holds the pixel whose area contains it.
 * The default level is the finest whose window holds at most PIXEL_BUDGET pixels.
 * Statistics merge per-piece (count, sum, M2, min, max) with Chan's rule.
 * @module
 */

/** @typedef {{ box?: [number, number, number, number], polygons?: number[][][][], point?: [number, number] }} Area */
/** @typedef {{ index: number, width: number, height: number, chunkSize: number, transform: number[] }} AreaLevel */

export const PIXEL_BUDGET = 512 * 512;
/** The viewer's products (lib/products.js): band roles, by common_name then name. */
export const PRODUCTS = Object.freeze({ ndvi: ['nir', 'red'], ndwi: ['green', 'nir'], water: ['green', 'nir'] });
export const WATER_THRESHOLD = 0;

/** @param {unknown} v @param {string} what */
function num(v, what) {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`${what} has the coordinate ${JSON.stringify(v)}: every coordinate must be a finite number`);
  return v;
}

/** @param {unknown} coords @returns {number[][][]} */
function rings(coords) {
  if (!Array.isArray(coords) || !coords.length) throw new RangeError('a GeoJSON polygon has no rings: give [[[x, y], ...]] with its exterior ring first');
  return coords.map((ring) => {
    const pts = ring.map((/** @type {number[]} */ p) => [num(p[0], 'a polygon'), num(p[1], 'a polygon')]);
    const [a, b] = [pts[0], pts[pts.length - 1]];
    if (pts.length && (a[0] !== b[0] || a[1] !== b[1])) pts.push([...a]);
    return pts;
  });
}

/** @param {number[][]} ring */
const ringArea = (ring) => {
  let s = 0;
  for (let i = 0; i + 1 < ring.length; i++) s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1];
  return 0.5 * Math.abs(s);
};

/** @param {number[]} p @param {number[]} q @param {number[]} r */
const orient = (p, q, r) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
/** @param {number[]} p @param {number[]} q @param {number[]} r */
const onSeg = (p, q, r) => Math.min(p[0], q[0]) <= r[0] && r[0] <= Math.max(p[0], q[0]) && Math.min(p[1], q[1]) <= r[1] && r[1] <= Math.max(p[1], q[1]);

/** @param {number[][]} ring */
function crossesItself(ring) {
  const n = ring.length - 1;
  for (let i = 0; i < n; i++) {
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue;
      const [a, b, c, d] = [ring[i], ring[i + 1], ring[j], ring[j + 1]];
      const [o1, o2, o3, o4] = [orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)];
      if ((o1 !== o2 && o3 !== o4) || (o1 === 0 && onSeg(a, b, c)) || (o2 === 0 && onSeg(a, b, d)) || (o3 === 0 && onSeg(c, d, a)) || (o4 === 0 && onSeg(c, d, b))) return true;
    }
  }
  return false;
}

/** @param {number[][][][]} polygons @returns {Area} */
function checked(polygons) {
  polygons.forEach((poly, p) => poly.forEach((ring, r) => {
    const where = `ring ${r} of polygon ${p}`;
    if (new Set(ring.map((q) => `${q[0]},${q[1]}`)).size < 3) throw new RangeError(`${where} is empty (fewer than three corners): draw it with at least three distinct corners`);
    if (crossesItself(ring)) throw new RangeError(`${where} crosses itself: redraw it so its edges meet only at its corners`);
    if (ringArea(ring) === 0) throw new RangeError(`${where} is empty (it encloses no area): draw it with corners that are not on one line`);
  }));
  return { polygons };
}

/**
 * An area from [west, south, east, north], a GeoJSON Polygon, MultiPolygon or Point, or a Feature.
 * @param {any} geometry @returns {Area}
 */
export function areaOf(geometry) {
  if (Array.isArray(geometry) && geometry.length === 4) {
    const [w, s, e, n] = geometry.map((v) => num(v, 'the box'));
    if (!(w < e && s < n)) throw new RangeError(`the box ${JSON.stringify(geometry)} is empty: give west < east and south < north`);
    return { box: [w, s, e, n] };
  }
  if (geometry?.type === 'Feature') return areaOf(geometry.geometry ?? {});
  const c = geometry?.coordinates;
  if (geometry?.type === 'Point') return { point: [num(c?.[0], 'the point'), num(c?.[1], 'the point')] };
  if (geometry?.type === 'Polygon') return checked([rings(c)]);
  if (geometry?.type === 'MultiPolygon') {
    if (!Array.isArray(c) || !c.length) throw new RangeError('the GeoJSON MultiPolygon is empty: give it at least one polygon');
    return checked(c.map(rings));
  }
  throw new RangeError(`${JSON.stringify(geometry)?.slice(0, 80)} is not an area: give [west, south, east, north], a GeoJSON Polygon, MultiPolygon or Point`);
}

/** [west, south, east, north] of an area. @param {Area} area @returns {number[]} */
export function bounds(area) {
  if (area.box) return area.box;
  if (area.point) return [...area.point, ...area.point];
  const outer = /** @type {number[][][][]} */ (area.polygons).flatMap((poly) => poly[0]);
  const xs = outer.map((p) => p[0]), ys = outer.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** @param {number} origin @param {number} step @param {number} start @param {number} stop */
export function centres(origin, step, start, stop) {
  const out = new Float64Array(stop - start);
  for (let i = start; i < stop; i++) out[i - start] = origin + (i + 0.5) * step;
  return out;
}

/** (row, col) of the pixel holding the point, or null. @param {[number, number]} point @param {AreaLevel} level */
export function pointPixel(point, level) {
  const [a, , c, , d, f] = level.transform;
  const col = Math.floor((point[0] - c) / a), row = Math.floor((point[1] - f) / d);
  return row >= 0 && row < level.height && col >= 0 && col < level.width ? [row, col] : null;
}

/** @param {Float64Array} xs @param {number} lo @param {number} hi @returns {[number, number] | null} */
function span(xs, lo, hi) {
  let first = -1, last = -1;
  xs.forEach((x, i) => { if (x >= lo && x <= hi) { if (first < 0) first = i; last = i; } });
  return first < 0 ? null : [first, last + 1];
}

/**
 * { rows: [start, stop], cols: [start, stop] } of the pixels whose centres lie in the area's
 * bounding box, or null. @param {Area} area @param {AreaLevel} level
 * @returns {{ rows: [number, number], cols: [number, number] } | null}
 */
export function areaWindow(area, level) {
  if (area.point) {
    const p = pointPixel(area.point, level);
    return p && { rows: [p[0], p[0] + 1], cols: [p[1], p[1] + 1] };
  }
  const [w, s, e, n] = bounds(area);
  const [a, , c, , d, f] = level.transform;
  const cols = span(centres(c, a, 0, level.width), w, e), rows = span(centres(f, d, 0, level.height), s, n);
  return rows && cols ? { rows, cols } : null;
}

/**
 * Which pixels of rows x cols the area holds, row-major (h * w).
 * @param {Area} area @param {AreaLevel} level @param {[number, number]} rows @param {[number, number]} cols
 */
export function holds(area, level, rows, cols) {
  const [a, , c, , d, f] = level.transform;
  const xs = centres(c, a, cols[0], cols[1]), ys = centres(f, d, rows[0], rows[1]);
  const w = xs.length;
  const out = new Uint8Array(ys.length * w);
  if (area.point) {
    const p = pointPixel(area.point, level);
    if (p && p[0] >= rows[0] && p[0] < rows[1] && p[1] >= cols[0] && p[1] < cols[1]) out[(p[0] - rows[0]) * w + p[1] - cols[0]] = 1;
    return out;
  }
  ys.forEach((py, j) => {
    for (let i = 0; i < w; i++) out[j * w + i] = area.box ? +(py >= area.box[1] && py <= area.box[3] && xs[i] >= area.box[0] && xs[i] <= area.box[2]) : 0;
    if (area.box) return;
    for (const poly of /** @type {number[][][][]} */ (area.polygons)) inPolygonRow(poly, xs, py, out, j * w);
  });
  return out;
}

/** One row of centres against one polygon, OR-ed into out. @param {number[][][]} poly @param {Float64Array} xs @param {number} py @param {Uint8Array} out @param {number} at */
function inPolygonRow(poly, xs, py, out, at) {
  const odd = new Uint8Array(xs.length), edge = new Uint8Array(xs.length);
  for (const ring of poly) {
    for (let k = 0; k + 1 < ring.length; k++) {
      const [x1, y1] = ring[k], [x2, y2] = ring[k + 1];
      if (y1 === y2) {
        if (py === y1) xs.forEach((px, i) => { if (px >= Math.min(x1, x2) && px <= Math.max(x1, x2)) edge[i] = 1; });
        continue;
      }
      const x = x1 + (py - y1) * (x2 - x1) / (y2 - y1);
      const crossing = (y1 > py) !== (y2 > py);
      const between = py >= Math.min(y1, y2) && py <= Math.max(y1, y2);
      xs.forEach((px, i) => {
        if (crossing && px < x) odd[i] ^= 1;
        if (between && px === x) edge[i] = 1;
      });
    }
  }
  for (let i = 0; i < xs.length; i++) if (odd[i] || edge[i]) out[at + i] = 1;
}

/**
 * The level a series reads: `levels[lod]`, else the finest whose window holds at most `budget`
 * pixels (the coarsest when none does; level 0 for a point).
 * @template {AreaLevel} L @param {Area} area @param {L[]} levels @param {number | undefined} lod @param {number} [budget]
 * @returns {L}
 */
export function chooseLevel(area, levels, lod, budget = PIXEL_BUDGET) {
  if (lod != null) {
    if (!Number.isInteger(lod) || lod < 0 || lod >= levels.length) throw new RangeError(`level ${lod} does not exist: the store has levels 0..${levels.length - 1}`);
    return levels[lod];
  }
  const [w, s, e, n] = bounds(area);
  const [a, , c, , d, f] = levels[0].transform;
  const xs = [c, c + a * levels[0].width], ys = [f, f + d * levels[0].height];
  if (w > Math.max(...xs) || e < Math.min(...xs) || s > Math.max(...ys) || n < Math.min(...ys)) {
    throw new RangeError(`the area ${JSON.stringify(bounds(area))} is outside the store: give one that overlaps it, in the store's CRS`);
  }
  if (area.point) return levels[0];
  for (const level of levels) {
    const win = areaWindow(area, level);
    if (win && (win.rows[1] - win.rows[0]) * (win.cols[1] - win.cols[0]) <= budget) return level;
  }
  return levels[levels.length - 1];
}

export const BOX_SIDE_POINTS = 16; // as Python's format/region.py: a box's sides bend in another CRS

/**
 * The geometry with every position passed through `project(x, y)` (a reprojection), as GeoJSON;
 * a box becomes a polygon of BOX_SIDE_POINTS per side, as Python's Area.mapped makes it.
 * @param {any} geometry @param {(x: number, y: number) => [number, number]} project
 */
export function projectGeometry(geometry, project) {
  const area = areaOf(geometry);
  if (area.point) return { type: 'Point', coordinates: project(...area.point) };
  let polygons = /** @type {number[][][][]} */ (area.polygons);
  if (area.box) {
    const [w, s, e, n] = area.box;
    const side = Array.from({ length: BOX_SIDE_POINTS }, (_, i) => i / BOX_SIDE_POINTS);
    const ring = [
      ...side.map((t) => [w + (e - w) * t, s]), ...side.map((t) => [e, s + (n - s) * t]),
      ...side.map((t) => [e - (e - w) * t, n]), ...side.map((t) => [w, n - (n - s) * t]),
    ];
    polygons = [[[...ring, ring[0]]]];
  }
  return { type: 'MultiPolygon', coordinates: polygons.map((poly) => poly.map((ring) => ring.map(([x, y]) => project(x, y)))) };
}
