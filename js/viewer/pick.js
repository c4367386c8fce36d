/**
 * A click on the map: the pixel under it in the store, the `chronozarr:click` message, and (with
 * controls) the inspector's time series of that pixel, added to the ones shown with shift.
 * @module
 */
import { pixelToScreen, screenToPixel } from '../lib/camera.js';
import { createInspector } from './inspect.js';
import { clickReport } from './reports.js';

/** @param {import('./app.js').Viewer} v the split view and camera made */
export function createPick(v) {
  const { store, state, $, params, hook } = v;
  const level0 = store.levels[0];
  const inspector = createInspector({
    store,
    panel: $('inspector'),
    body: $('inspect-body'),
    chartHost: $('chart-host'),
    markers: $('markers'),
    screenOf: (x, y) => pixelToScreen(state.cam, v.nav.size.w, v.nav.size.h, x, y),
    onJump: (t) => v.setT(t),
    look: () => ({ product: state.product, band: state.band, t: state.t }),
    fileStem: v.storeName.replace(/\.zarr$/, ''),
  });

  /** @param {number} px @param {number} py screen point @param {{ shift?: boolean }} [how] */
  function clickAt(px, py, { shift = false } = {}) {
    const { w, h } = v.nav.size;
    const p = screenToPixel(state.cam, w, h, px, py);
    const x0 = Math.floor(p.x);
    const y0 = Math.floor(p.y);
    if (x0 < 0 || y0 < 0 || x0 >= level0.width || y0 >= level0.height) return null;
    const hit = v.compare.pick(x0, y0, px);
    if (!hit) return null;
    const { message, stored } = clickReport(store, hit, x0, y0);
    v.embed.send('chronozarr:click', message);
    hook.lastClick = { ...message, stored };
    if (params.controls) inspector.show({ lod: hit.lod, x: hit.x, y: hit.y, x0, y0, t: message.t, cell: hit.entry.cell }, { add: shift });
    return hook.lastClick;
  }

  return { inspector, clickAt };
}
