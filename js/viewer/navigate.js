/**
 * The viewer's camera: pan, zoom about a point, fit, a camera set from outside, and the canvas size,
 * which follows the element. Every move is clamped, then shown by the scene and the split view and
 * followed by the overlays, the inspector's markers, the address and the view reports (the scene
 * reads ahead for the new view itself).
 * @module
 */
import { clampCamera, fitCamera, levelFor, screenToPixel, zoomLimits } from '../lib/camera.js';

/** @param {import('./app.js').Viewer} v the renderer, scene and split view made; the rest read when the view moves */
export function createNavigation(v) {
  const { store, state, renderer } = v;
  const level0 = store.levels[0];
  let size = renderer.resize();
  const limits = () => zoomLimits(level0, size.w, size.h, size.dpr);

  /** @param {{ quiet?: boolean }} [how] quiet: no view message (the caller reports the move) */
  function update({ quiet = false } = {}) {
    state.cam = clampCamera(state.cam, limits(), level0);
    const lod = levelFor(state.cam.zoom, store.levels.length);
    v.scene.setView(state.cam, size, lod);
    v.compare.setView(state.cam, size, lod);
    v.overlays.view();
    v.inspector.place();
    v.loading.watch();
    v.address.schedule();
    if (!quiet) v.views.schedule();
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
    watch: () => resizer.observe(v.canvas),
    stop: () => resizer.disconnect(),
  };
}
