// @ts-check
// chronozarr's reader alone on a page: the store opened (?store=URL), then, when the benchmark
// asks, one area's whole series by readRegionSeries. window.__region.series(box, lod) resolves to
// the ms from the call to the statistics and the statistics themselves.
import { openStore } from '../../src/index.js';

const q = new URLSearchParams(location.search);
/** @type {Window["__region"]} */
const hook = { ready: false, error: null };
window.__region = hook;
openStore(q.get('store') ?? '').then((store) => {
  /** @param {number[]} box @param {number} [lod] */
  hook.series = async (box, lod) => {
    const start = performance.now();
    const r = await store.readRegionSeries(box, lod == null ? {} : { lod });
    const ms = performance.now() - start;
    return { ms, level: r.level, source: r.source, count: r.validPixels, mean: r.mean, std: r.std, min: r.min, max: r.max };
  };
  hook.ready = true;
}, (err) => (hook.error = String(err?.message ?? err)));
