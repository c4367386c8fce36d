// @ts-check
// CarbonPlan's zarr-layer on MapLibre showing the store's B04 band, as its README sets it up, with
// the options a UTM store needs (proj4 and bounds: zarr-layer 0.5.0 does not read the store's
// proj:code or spatial:* attributes). Query: ?store=URL&lon=&lat=&zoom=&proj4=&bounds=xmin,ymin,
// xmax,ymax&times=ISO,...&lo=&hi=. A frame counts as shown at the first map render after the
// layer reports that nothing is loading for the date asked and, for the first date, that the level
// it draws covers the view with loaded data (see covered).
import { ZarrLayer } from '@carbonplan/zarr-layer';
import { benchMap } from './bench-map.js';
import { createHook, drewImagery } from './page-hook.js';

const q = new URLSearchParams(location.search);
const times = (q.get('times') ?? '').split(',');
const hook = createHook({ times });
/** @typedef {import('@carbonplan/zarr-layer').Selector} Selector */
/** @type {Selector[string]} */
const band = { selected: 2, type: 'index' };
/** @param {number} t @returns {Selector} */
const selector = (t) => ({ band, time: { selected: t, type: 'index' } });
const GREYS = ['#000000', '#444444', '#888888', '#cccccc', '#ffffff'];
let loading = true;
let sawLoading = false;
/** @type {number | null} */
let awaiting = 0;
let askedAt = 0;

/**
 * zarr-layer's own word that every region of the view at the level it draws has its data on the
 * GPU (its UntiledMode, which a UTM store takes). Its loading state alone goes false once the
 * metadata is read and turns true for the chunks only after an 80 ms debounce, so a frame counted
 * on it alone was "complete" before any chunk arrived (at 10 and 50 Mbit/s, the cold open stopped
 * at the metadata). Before the first frame nothing of another date can stand in, so this is exact
 * there; a later date's regions are replaced in place, and the loading state still decides.
 */
function covered() {
  const mode = /** @type {{ mode?: { currentLevelCoversViewport?: () => boolean } }} */ (/** @type {unknown} */ (layer)).mode;
  if (!mode) return false; // the metadata is not read yet
  if (typeof mode.currentLevelCoversViewport !== 'function') throw new Error('zarr-layer has no mode.currentLevelCoversViewport: the page needs updating for this version');
  return mode.currentLevelCoversViewport();
}

const map = benchMap(q);
const layer = new ZarrLayer({
  id: 'store',
  source: q.get('store') ?? '',
  variable: 'data',
  selector: selector(0),
  colormap: GREYS,
  clim: [Number(q.get('lo') ?? 0), Number(q.get('hi') ?? 3000)],
  proj4: q.get('proj4') ?? undefined,
  bounds: /** @type {[number, number, number, number]} */ ((q.get('bounds') ?? '').split(',').map(Number)),
  onLoadingStateChange: (s) => {
    loading = s.loading;
    if (s.loading) sawLoading = true;
    if (s.error) hook.error = String(s.error);
    if (!s.loading) map.triggerRepaint();
  },
});
map.on('render', () => {
  // The first frame with imagery: MapLibre has just drawn it, so its pixels are still in the
  // drawing buffer; a few points of the view are read until one is not the black background.
  if (hook.firstPictureAt == null && drewImagery(/** @type {WebGL2RenderingContext} */ (map.painter.context.gl))) hook.firstPictureAt = performance.now();
  if (awaiting == null || loading || (hook.firstCompleteAt == null && !covered())) return;
  // A date already in zarr-layer's cache never reports loading: show it after one frame.
  if (!sawLoading && performance.now() - askedAt < 50) return map.triggerRepaint();
  const t = awaiting;
  awaiting = null;
  hook.shown(t);
});
map.on('load', () => map.addLayer(layer));

/** Ask for date t. @param {number} t */
function setT(t) {
  hook.wanted = t;
  hook.settled = false;
  awaiting = t;
  askedAt = performance.now();
  sawLoading = false;
  layer.setSelector(selector(t));
  map.triggerRepaint();
}

/** B04 of the pixel at (lon, lat) at every date, by the layer's own point query, charted. @param {number} lon @param {number} lat */
async function history(lon, lat) {
  const result = await layer.queryData({ type: 'Point', coordinates: [lon, lat] }, { band, time: { selected: times.map((_, i) => i), type: 'index' } });
  /** @type {Record<string, unknown>} */
  const fields = result;
  const values = Array.isArray(result.data) ? result.data : fields[Object.keys(fields).find((k) => Array.isArray(fields[k])) ?? 'data'];
  return hook.chart(/** @type {(number | null)[]} */ (values ?? []), 'B04');
}

Object.assign(hook, { setT, history });
