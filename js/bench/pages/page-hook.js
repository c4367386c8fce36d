// @ts-check
// What the comparison pages share with the viewer's benchmark hook: the frames they have shown
// (t, when, complete), the first with imagery and the first complete one, the current step, and the pixel-history chart,
// drawn by the viewer's own chart module so that every page pays the same for drawing it.
import { createChart } from '../../viewer/chart.js';

/** @typedef {{ t: number, at: number, complete: boolean }} Frame */

/**
 * @param {{ times: string[] }} o
 */
export function createHook({ times }) {
  const host = /** @type {HTMLElement} */ (document.getElementById('chart-host'));
  const chart = createChart(host, { onPick: () => {} });
  const hook = {
    /** @type {Frame[]} */
    frames: [],
    /** @type {number | null} */
    firstCompleteAt: null,
    /** @type {number | null} the first frame with imagery on screen */
    firstPictureAt: null,
    /** @type {string | null} */
    error: null,
    wanted: 0,
    settled: false,
    /** @param {number} t */
    shown(t) {
      const at = performance.now();
      hook.frames.push({ t, at, complete: true });
      if (hook.firstCompleteAt == null) hook.firstCompleteAt = at;
      if (hook.firstPictureAt == null) hook.firstPictureAt = at;
      hook.settled = t === hook.wanted;
    },
    /** Draw one band's history; resolves after the chart is in the document. */
    chart(/** @type {(number | null)[]} */ values, /** @type {string} */ label) {
      chart.render({ title: `${label} over time`, times, series: [{ label, color: '#d8dee9', values }], t: hook.wanted });
      return new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
    },
  };
  // The page adds setT and history before the benchmark reads them.
  window.__bench = /** @type {Window['__bench']} */ (hook);
  return hook;
}

/**
 * Whether the frame a WebGL map has just drawn shows any of the store: a 5 x 5 grid of points over
 * the view read from its drawing buffer (still the frame's during the map's render event), any of
 * them not the black background.
 * @param {WebGL2RenderingContext} gl
 */
export function drewImagery(gl) {
  const px = new Uint8Array(4);
  for (let i = 1; i <= 5; i++) {
    for (let j = 1; j <= 5; j++) {
      gl.readPixels(Math.floor((gl.drawingBufferWidth * i) / 6), Math.floor((gl.drawingBufferHeight * j) / 6), 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
      if (px[0] + px[1] + px[2] > 0) return true;
    }
  }
  return false;
}
