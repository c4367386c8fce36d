// @ts-check
// chronozarr's MapLibre layer (maplibre/layer.js) on the same map and view as the zarr-layer page,
// showing B04 stretched over the same stored range, reading ahead for scrubbing. Query: ?store=URL&lon=&lat=&zoom=&times=ISO,...
// &lo=&hi=. A frame counts as shown at the first map render that drew a complete frame of the date
// asked (the layer's frame records); the first picture, as on the zarr-layer page, is the first
// render whose pixels show any of the store.
import { ChronozarrLayer } from '../../maplibre/layer.js';
import { benchMap } from './bench-map.js';
import { createHook, drewImagery } from './page-hook.js';

const q = new URLSearchParams(location.search);
const times = (q.get('times') ?? '').split(',');
const hook = createHook({ times });
const SCALE = 1e-4; // the benchmark store's bands are reflectance, stored x 10^4
/** @type {number | null} */
let awaiting = 0;

const map = benchMap(q);
const layer = new ChronozarrLayer({
  url: q.get('store') ?? '',
  t: 0,
  product: 'band',
  band: 'B04',
  range: [Number(q.get('lo') ?? 0) * SCALE, Number(q.get('hi') ?? 3000) * SCALE],
  prefetch: true, // read ahead for scrubbing, as the layer's demo page does
});
layer.on('error', (event) => (hook.error = String(event.error?.message ?? event.error)));
map.on('render', () => {
  if (hook.firstPictureAt == null && drewImagery(/** @type {WebGL2RenderingContext} */ (map.painter.context.gl))) hook.firstPictureAt = performance.now();
  const last = layer.frames.at(-1);
  if (awaiting == null || !last?.complete || last.t !== awaiting) return;
  awaiting = null;
  hook.shown(last.t);
});
map.on('load', () => map.addLayer(layer));

/** Ask for date t. @param {number} t */
function setT(t) {
  hook.wanted = t;
  hook.settled = false;
  awaiting = t;
  layer.setTime(t);
  map.triggerRepaint();
}

/** B04 of level-0 pixel (x, y) at every date, read through the layer's store, charted. @param {number} x @param {number} y */
async function history(x, y) {
  const store = layer.store;
  if (!store) throw new Error('the store is not open');
  const values = await Promise.all(times.map((_, t) => store.readPixel(0, y, x, t).then((/** @type {ArrayLike<number>} */ v) => Number(v[2]))));
  return hook.chart(values, 'B04');
}

Object.assign(hook, { setT, history });
