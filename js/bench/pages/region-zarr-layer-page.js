// @ts-check
// CarbonPlan's zarr-layer asked for an area's series as a user of it would: queryData of the
// polygon for every date (zarr-layer gives the pixels' values, no statistics), on the store's data
// and on its mask (a second layer: zarr-layer knows nothing of chronozarr's mask), joined by pixel
// coordinates, scaled, then summarised here. Query: ?store=URL&lon=&lat=&zoom=&proj4=&bounds=&times=N
// &scale=. The map shows the area at level 0 (queryData reads the level the layer draws).
// window.__region.series(polygon) resolves to the ms from the first call to the statistics.
import { ZarrLayer } from '@carbonplan/zarr-layer';
import { benchMap } from './bench-map.js';

const q = new URLSearchParams(location.search);
const nTime = Number(q.get('times'));
const scale = Number(q.get('scale') ?? 1);
const bounds = /** @type {[number, number, number, number]} */ ((q.get('bounds') ?? '').split(',').map(Number));
const BANDS = [0, 1, 2, 3];
/** @type {Window["__region"]} */
const hook = { ready: false, error: null };
window.__region = hook;
const map = benchMap(q);
const state = { data: { loaded: false }, mask: { loaded: false } };
/** @param {'data' | 'mask'} variable */
const layerOf = (variable) => new ZarrLayer({
  id: variable,
  source: q.get('store') ?? '',
  variable,
  selector: variable === 'data' ? { band: { selected: 2, type: 'index' }, time: { selected: 0, type: 'index' } } : { time: { selected: 0, type: 'index' } },
  colormap: ['#000000', '#ffffff'],
  clim: variable === 'data' ? [0, 3000] : [0, 1],
  opacity: variable === 'data' ? 1 : 0,
  proj4: q.get('proj4') ?? undefined,
  bounds,
  onLoadingStateChange: (s) => {
    if (s.error) hook.error = String(s.error);
    if (!s.loading) state[variable].loaded = true;
    hook.ready = state.data.loaded && state.mask.loaded;
  },
});
const data = layerOf('data');
const mask = layerOf('mask');
map.on('load', () => {
  map.addLayer(data);
  map.addLayer(mask);
});

/** Pixel key of a coordinate pair. @param {Record<string, (number | string)[]>} c @param {number} i */
const key = (c, i) => `${c.x[i]},${c.y[i]}`;

/**
 * Every date's values of the polygon, all dates asked at once; per date and band the count, mean,
 * population std, min and max of the pixels the mask says are valid.
 * @param {{ type: 'Polygon', coordinates: number[][][] }} polygon
 */
async function series(polygon) {
  const start = performance.now();
  const dates = await Promise.all(Array.from({ length: nTime }, async (_, t) => {
    const time = { selected: t, type: /** @type {'index'} */ ('index') };
    const [d, m] = await Promise.all([
      data.queryData(polygon, { band: { selected: BANDS, type: 'index' }, time }),
      mask.queryData(polygon, { time }),
    ]);
    const dc = /** @type {Record<string, (number | string)[]>} */ (d.coordinates);
    const mc = /** @type {Record<string, (number | string)[]>} */ (m.coordinates);
    // zarr-layer drops a value equal to the fill value: the mask's 0 (not valid) never comes back.
    const valid = new Set(mc.x.map((_, i) => key(mc, i)));
    const values = /** @type {Record<number, number[]>} */ (/** @type {unknown} */ (d.data));
    return BANDS.map((b) => {
      const v = values[b] ?? [];
      const xs = [];
      for (let i = 0; i < v.length; i++) if (valid.has(key(dc, i))) xs.push(v[i] * scale);
      const n = xs.length;
      const mean = n ? xs.reduce((a, x) => a + x, 0) / n : null;
      const std = mean == null ? null : Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / n);
      const lo = n ? xs.reduce((a, x) => Math.min(a, x), Infinity) : null, hi = n ? xs.reduce((a, x) => Math.max(a, x), -Infinity) : null;
      return { n, mean, std, min: lo, max: hi };
    });
  }));
  const ms = performance.now() - start;
  const grid = (/** @type {'n' | 'mean' | 'std' | 'min' | 'max'} */ f) => dates.map((bands) => bands.map((s) => s[f]));
  return { ms, level: 0, source: 'zarr-layer', count: grid('n'), mean: grid('mean'), std: grid('std'), min: grid('min'), max: grid('max') };
}
hook.series = series;
