/**
 * The viewer's camera: pan, zoom about a point, fit, a camera set from outside, and the canvas size,
 * which follows the element. Every move is clamped, then handed to `onMove` with the level it
 * shows, which the wiring (app.js) passes on to the scene, the split view, the overlays, the
 * inspector's markers, the address and the view reports (the scene reads ahead for the new view
 * itself).
 * @module
 */
import { clampCamera, fitCamera, levelFor, screenToPixel, zoomLimits } from '../lib/camera.js';

/**
 * A move, as `onMove` gets it.
 * @typedef {object} Move
 * @property {import('../lib/typedefs.js').Camera} cam the clamped camera (state.cam)
 * @property {import('../lib/typedefs.js').CanvasSize} size
 * @property {number} lod the level the camera shows
 * @property {boolean} quiet no view message (the caller reports the move)
 */

/**
 * @param {object} o
 * @param {Pick<import('../lib/typedefs.js').Store, 'levels'>} o.store
 * @param {{ cam: import('../lib/typedefs.js').Camera }} o.state whose camera it sets
 * @param {{ resize: () => import('../lib/typedefs.js').CanvasSize }} o.renderer sizes the drawing buffer to the canvas
 * @param {HTMLCanvasElement} o.canvas
 * @param {(move: Move) => void} o.onMove after every move
 */
export function createNavigation({ store, state, renderer, canvas, onMove }) {
  const level0 = store.levels[0];
  let size = renderer.resize();
  const limits = () => zoomLimits(level0, size.w, size.h, size.dpr);

  /** @param {{ quiet?: boolean }} [how] quiet: no view message (the caller reports the move) */
  function update({ quiet = false } = {}) {
    state.cam = clampCamera(state.cam, limits(), level0);
    onMove({ cam: state.cam, size, lod: levelFor(state.cam.zoom, store.levels.length), quiet });
  }

  /** @param {number} dx @param {number} dy screen pixels */
  function pan(dx, dy) {
    state.cam = { ...state.cam, cx: state.cam.cx - dx / state.cam.zoom, cy: state.cam.cy - dy / state.cam.zoom };
    update();
  }

  /** @param {number} f factor @param {number} px @param {number} py the screen point that stays put */
  function zoomAbout(f, px, py) {
    const before = screenToPixel(state.cam, size.w, size.h, px, py);
    const lim = limits();
    const zoom = Math.min(lim.max, Math.max(lim.min, state.cam.zoom * f));
    state.cam = { zoom, cx: before.x - (px - size.w / 2) / zoom, cy: before.y - (py - size.h / 2) / zoom };
    update();
  }

  const resizer = new ResizeObserver(() => {
    const next = renderer.resize();
    if (next.w === size.w && next.h === size.h && next.dpr === size.dpr) return;
    size = next;
    update();
  });

  return {
    /** The canvas's CSS size and device pixel ratio now. */
    get size() {
      return size;
    },
    update,
    pan,
    zoomAbout,
    fit() {
      state.cam = fitCamera(level0, size.w, size.h);
      update();
    },
    /** Show this camera without a view message (the caller reports it). @param {import('../lib/typedefs.js').Camera} cam */
    moveTo(cam) {
      state.cam = cam;
      update({ quiet: true });
    },
    /** Follow the canvas's size from now on. */
    watch: () => resizer.observe(canvas),
    stop: () => resizer.disconnect(),
  };
}
