/**
 * A `chronozarr:set` applied, once validated whole (setfields.js): band and product first, then the
 * timestep, the view, the speed, the split view, the regions and playback, in the order that makes it one change.
 * @module
 */
import { storeToPixel } from '../lib/camera.js';
import { fromLonLat } from '../lib/geo.js';

/**
 * @typedef {object} SetActions
 * @property {(band: number) => void} setBand
 * @property {(id: string) => void} setProduct
 * @property {(t: number) => void} setT
 * @property {(cam: import('../lib/typedefs.js').Camera) => void} moveTo show this camera, without a view message
 * @property {(speed: number) => void} setSpeed
 * @property {(compare: import('./compare.js').CompareState | null) => void} setCompare
 * @property {(playing: boolean) => void} setPlaying
 * @property {(shapes: import('./region-shapes.js').RegionShape[]) => void} setRegions
 * @property {() => void} viewMoved the view was set: report it now
 */

/**
 * @param {import('./setfields.js').SetValues} f the validated values
 * @param {Pick<import('../lib/typedefs.js').Store, 'crs' | 'levels'>} store
 * @param {import('../lib/typedefs.js').Camera} cam the camera now
 * @param {SetActions} actions
 */
export function applySetFields(f, store, cam, actions) {
  if (f.band != null) actions.setBand(f.band);
  if (f.product != null) actions.setProduct(f.product);
  if (f.t != null) actions.setT(f.t);
  const moved = f.zoom != null || f.center != null;
  if (moved) {
    let next = { ...cam };
    if (f.zoom != null) next.zoom = f.zoom;
    if (f.center != null) {
      const xy = 'x' in f.center ? f.center : fromLonLat(store.crs, f.center.lon, f.center.lat);
      if (!xy) throw new Error(`lon/lat cannot be placed in this store's CRS ${JSON.stringify(store.crs)} (validateSet refuses them)`);
      const p = storeToPixel(store.crs != null ? store.levels[0].transform : null, xy.x, xy.y);
      next = { ...next, cx: p.x, cy: p.y };
    }
    actions.moveTo(next);
  }
  if (f.speed != null) actions.setSpeed(f.speed);
  if (f.compare !== undefined) actions.setCompare(f.compare);
  if (f.regions) actions.setRegions(f.regions);
  if (f.playing === true || f.playing === false) actions.setPlaying(f.playing);
  if (moved) actions.viewMoved();
}
