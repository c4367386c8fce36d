/**
 * A click on the map: the pixel under it in the store, the `chronozarr:click` message, and (with
 * controls) the inspector's time series of that pixel, added to the ones shown with shift.
 * @module
 */
import { pixelToScreen, screenToPixel } from '../lib/camera.js';
import { createInspector } from './inspect.js';
import { clickReport } from './reports.js';

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {import('./first-view.js').ViewState} o.state
 * @param {ReturnType<typeof import('../lib/dom.js').idLookup>} o.$ the viewer's element by id
 * @param {boolean} o.inspect the viewer has controls: a click opens the inspector
 * @param {{ lastClick?: ReturnType<typeof clickReport>['message'] & { stored: number[] } }} o.hook where the last click is shown to tests
 * @param {() => import('../lib/typedefs.js').CanvasSize} o.size the canvas now
 * @param {Pick<ReturnType<typeof import('./compare.js').createCompare>, 'pick'>} o.compare what is drawn where
 * @param {Pick<ReturnType<typeof import('./embed.js').createEmbed>, 'send'>} o.embed
 * @param {(t: number) => void} o.setT a date picked on the chart
 * @param {string} o.fileStem names the chart's downloads
 */
export function createPick({ store, state, $, inspect, hook, size, compare, embed, setT, fileStem }) {
  const level0 = store.levels[0];
  const inspector = createInspector({
    store,
    panel: $('inspector'),
    body: $('inspect-body'),
    chartHost: $('chart-host'),
    markers: $('markers'),
    screenOf: (x, y) => pixelToScreen(state.cam, size().w, size().h, x, y),
    onJump: (t) => setT(t),
    look: () => ({ product: state.product, band: state.band, t: state.t }),
    fileStem,
  });

  /** @param {number} px @param {number} py screen point @param {{ shift?: boolean }} [how] */
  function clickAt(px, py, { shift = false } = {}) {
    const { w, h } = size();
    const p = screenToPixel(state.cam, w, h, px, py);
    const x0 = Math.floor(p.x);
    const y0 = Math.floor(p.y);
    if (x0 < 0 || y0 < 0 || x0 >= level0.width || y0 >= level0.height) return null;
    const hit = compare.pick(x0, y0, px);
    if (!hit) return null;
    const { message, stored } = clickReport(store, hit, x0, y0);
    embed.send('chronozarr:click', message);
    hook.lastClick = { ...message, stored };
    if (inspect) inspector.show({ lod: hit.lod, x: hit.x, y: hit.y, x0, y0, t: message.t, cell: hit.entry.cell }, { add: shift });
    return hook.lastClick;
  }

  return { inspector, clickAt };
}
