/**
 * The values under a map position: read through the reader at level 0, or taken from the chunks
 * the layer drew (no request).
 * @module
 */
import { pixelCell } from '../src/reader/geometry.js';
import { pixelIndices, pixelValues } from '../lib/pixel.js';

/** @typedef {{ lng: number, lat: number } | [number, number]} LngLat */
/** @typedef {import('../lib/typedefs.js').Store} Store */

/** The level-0 pixel under a position, or null outside the footprint. @param {Pick<Store, 'levels'>} store @param {ReturnType<typeof import('./mercator.js').placement>} place @param {LngLat} lngLat */
function pixelUnder(store, place, lngLat) {
  const [lng, lat] = Array.isArray(lngLat) ? lngLat : [lngLat.lng, lngLat.lat];
  const p = place.toPixel(lng, lat);
  const x = Math.floor(p.x);
  const y = Math.floor(p.y);
  const level0 = store.levels[0];
  if (!(x >= 0 && y >= 0 && x < level0.width && y < level0.height)) return null;
  return { lng, lat, x, y };
}

/**
 * The level-0 pixel under `lngLat` at timestep t, read through the reader (exact stored values;
 * fetched when not cached), with the NDVI, NDWI and water call its bands allow. Null outside the
 * footprint.
 * @param {Store} store @param {ReturnType<typeof import('./mercator.js').placement>} place
 * @param {LngLat} lngLat @param {number} t @param {AbortSignal} signal
 */
export async function valueAt(store, place, lngLat, t, signal) {
  const at = pixelUnder(store, place, lngLat);
  if (!at) return null;
  const { lng, lat, x, y } = at;
  const { row, col, ...inCell } = pixelCell(store.levels[0], x, y);
  const cell = await store.getCell(0, row, col, t, { signal });
  const px = pixelValues(store, cell, inCell.x, inCell.y);
  return { t, time: store.times[t], lngLat: { lng, lat }, x, y, row, col, valid: px.valid, bands: px.bands, ...pixelIndices(store.attrs.bands, px.bands) };
}

/**
 * The pixel under `lngLat` in the frame on the map, from the chunks the scene drew: the finest
 * level drawn there and its timestep. Null outside the footprint or where nothing is drawn yet.
 * @param {Store} store @param {import('../lib/typedefs.js').Scene} scene
 * @param {ReturnType<typeof import('./mercator.js').placement>} place @param {LngLat} lngLat
 */
export function valueDrawn(store, scene, place, lngLat) {
  const at = pixelUnder(store, place, lngLat);
  if (!at) return null;
  const { lng, lat, x, y } = at;
  const hit = scene.pick(x, y);
  if (!hit) return null;
  const inCell = pixelCell(store.levels[hit.lod], hit.x, hit.y);
  const px = pixelValues(store, hit.entry.cell, inCell.x, inCell.y);
  return { t: hit.entry.t, time: store.times[hit.entry.t], lod: hit.lod, lngLat: { lng, lat }, x, y, valid: px.valid, bands: px.bands, ...pixelIndices(store.attrs.bands, px.bands) };
}
