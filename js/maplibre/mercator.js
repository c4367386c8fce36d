/**
 * Where a store lands on a Web Mercator map: level-0 pixel positions to MapLibre's mercator
 * coordinates (0..1 across the world, y down), the footprint's lon/lat bounds, and the size of a
 * level-0 texel in mercator units. Store coordinates go through lon/lat with the viewer's geo.js,
 * which knows the CRSs a layer can place (WGS84 UTM, EPSG:3857, EPSG:4326).
 * @module
 */
import { pixelToStore, storeToPixel } from '../lib/camera.js';
import { fromLonLat, parseCrs, toLonLat } from '../lib/geo.js';

const DEG = Math.PI / 180;
/** MapLibre's latitude limit: beyond it the mercator y is infinite. */
const MAX_LAT = 85.051129;

/** Lon/lat in degrees to mercator x, y (0..1, y growing south). @param {number} lon @param {number} lat */
export function lngLatToMercator(lon, lat) {
  const phi = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * DEG;
  return { x: (lon + 180) / 360, y: 0.5 - Math.log(Math.tan(Math.PI / 4 + phi / 2)) / (2 * Math.PI) };
}

/**
 * The conversions of one store. Throws, naming the supported set, for a CRS the layer cannot place.
 * @param {{ crs: string | null, levels: readonly { transform: readonly number[], width: number, height: number }[] }} store
 */
export function placement(store) {
  const crs = store.crs;
  if (crs == null || !parseCrs(crs)) {
    throw new Error(`cannot place a store in ${crs ?? 'no CRS'} on a Web Mercator map: the layer supports WGS84 UTM (EPSG:326xx, 327xx), EPSG:3857 and EPSG:4326`);
  }
  const { transform, width, height } = store.levels[0];

  /** Level-0 pixel position (x right, y down; pixel i spans [i, i+1)) to mercator. @param {number} px @param {number} py */
  function toMercator(px, py) {
    const s = pixelToStore(transform, px, py);
    const ll = /** @type {{ lon: number, lat: number }} */ (toLonLat(crs, s.x, s.y)); // not null: parseCrs knows the CRS
    return lngLatToMercator(ll.lon, ll.lat);
  }

  /** Lon/lat to a level-0 pixel position. @param {number} lon @param {number} lat */
  function toPixel(lon, lat) {
    const s = /** @type {{ x: number, y: number }} */ (fromLonLat(crs, lon, lat)); // not null: parseCrs knows the CRS
    return storeToPixel(transform, s.x, s.y);
  }

  /** [[west, south], [east, north]] of the level-0 footprint, from points along its outline. */
  function bounds(steps = 32) {
    let w = Infinity;
    let s = Infinity;
    let e = -Infinity;
    let n = -Infinity;
    for (let i = 0; i <= steps; i++) {
      const f = i / steps;
      for (const [px, py] of [[f * width, 0], [f * width, height], [0, f * height], [width, f * height]]) {
        const p = pixelToStore(transform, px, py);
        const ll = /** @type {{ lon: number, lat: number }} */ (toLonLat(crs, p.x, p.y));
        w = Math.min(w, ll.lon);
        e = Math.max(e, ll.lon);
        s = Math.min(s, ll.lat);
        n = Math.max(n, ll.lat);
      }
    }
    return /** @type {[[number, number], [number, number]]} */ ([[w, s], [e, n]]);
  }

  /** Side of a level-0 texel at the footprint's centre in mercator units (geometric mean of x and y). */
  function texelSize() {
    const cx = width / 2;
    const cy = height / 2;
    const o = toMercator(cx, cy);
    const dx = toMercator(cx + 1, cy);
    const dy = toMercator(cx, cy + 1);
    return Math.sqrt(Math.hypot(dx.x - o.x, dx.y - o.y) * Math.hypot(dy.x - o.x, dy.y - o.y));
  }

  return { toMercator, toPixel, bounds, texelSize };
}
