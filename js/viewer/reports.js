/**
 * What the viewer reports through the embed API: the view's centre, a clicked pixel, and the ready
 * message's description of the store and the state.
 * @module
 */
import { pixelToStore } from '../lib/camera.js';
import { toLonLat } from '../lib/geo.js';
import { pixelValues } from '../lib/pixel.js';
import { pixelCell } from '../src/reader/geometry.js';

/** @typedef {import('../lib/typedefs.js').Store} Store */

/** Store coordinates of the camera's centre, and its lon/lat when the store is georeferenced. @param {Pick<Store, 'crs' | 'levels'>} store @param {{ cx: number, cy: number }} cam */
export function centreOf(store, cam) {
  const geo = store.crs != null;
  const c = pixelToStore(geo ? store.levels[0].transform : null, cam.cx, cam.cy);
  const ll = geo ? toLonLat(store.crs, c.x, c.y) : null;
  return { x: c.x, y: c.y, lon: ll ? ll.lon : null, lat: ll ? ll.lat : null };
}

/**
 * The click message of level-0 pixel (x0, y0), read from the drawn chunk `hit` (compare.pick), and
 * the stored values beside it.
 * @param {Store} store @param {import('../lib/typedefs.js').PickHit} hit @param {number} x0 @param {number} y0
 */
export function clickReport(store, hit, x0, y0) {
  const geo = store.crs != null;
  const at = pixelCell(store.levels[hit.lod], hit.x, hit.y);
  const t = hit.entry.t;
  const values = pixelValues(store, hit.entry.cell, at.x, at.y);
  const c = pixelToStore(geo ? store.levels[0].transform : null, x0 + 0.5, y0 + 0.5);
  const ll = geo ? toLonLat(store.crs, c.x, c.y) : null;
  const message = {
    pixel: { x: x0, y: y0 },
    lon: ll ? ll.lon : null,
    lat: ll ? ll.lat : null,
    t,
    time: store.times[t],
    level: hit.lod,
    valid: values.valid,
    values: Object.fromEntries(values.bands.map((b) => [b.name, b.value])),
  };
  return { message, stored: values.bands.map((b) => b.stored) };
}

/**
 * The ready message: the store, its times, bands, products and levels, and the state shown.
 * @param {Store} store
 * @param {{ url: string | null, name: string, products: { id: string, name: string, available: boolean }[] }} about
 * @param {{ t: number, product: string, band: number, cam: import('../lib/typedefs.js').Camera }} state
 * @param {{ playing: boolean, speed: number, compare: { t: number, split: number } | null }} more
 */
export function readyReport(store, about, state, more) {
  const geo = store.crs != null;
  const bands = store.attrs.bands;
  return {
    store: { url: about.url, name: about.name, crs: store.crs },
    times: [...store.times],
    bands: bands.map((b) => ({ name: b.name, common_name: b.common_name ?? null, units: b.units ?? null, scale: b.scale, offset: b.offset })),
    products: about.products,
    levels: store.levels.map((l, i) => ({ lod: i, width: l.width, height: l.height, resolution: geo ? l.resolution : null })),
    state: {
      t: state.t,
      time: store.times[state.t],
      product: state.product,
      band: bands[state.band].name,
      zoom: state.cam.zoom,
      center: centreOf(store, state.cam),
      playing: more.playing,
      speed: more.speed,
      compare: more.compare ? { t: more.compare.t, time: store.times[more.compare.t], split: more.compare.split } : null,
    },
  };
}
