/**
 * What the viewer shows: the product, the band and the display range (the overlays' legend sets it),
 * and each painted frame's date. A change goes to the scene, the split view, the overlays, the
 * inspector and the address.
 * @module
 */
import { lookFor } from '../lib/products.js';
import { cursorInfo } from './cursor.js';
import { createOverlays } from './overlays.js';

/** @param {import('./app.js').Viewer} v the scene and split view made; the rest read on a change */
export function createShowing(v) {
  const { store, state, $ } = v;
  const look = () => lookFor(store, state);

  function apply() {
    const l = look();
    v.scene.setLook(l);
    v.compare.setLook(l);
    overlays.look(l);
  }

  const overlays = createOverlays({
    store,
    host: $('overlays'),
    stage: $('stage'),
    canvas: v.canvas,
    state,
    sample: (/** @type {number[]} */ b) => v.scene.sampleVisible(b),
    locate: (px, py) => cursorInfo(store, state.cam, v.nav.size, px, py, (x, y, sx) => v.compare.pick(x, y, sx)),
    setRange: (r) => {
      state.range = r;
      overlays.reset();
      if (!r) v.scene.redraw();
      apply();
      v.address.schedule();
    },
  });

  /** The product or band changed: redraw, and refresh what follows it. */
  function changed() {
    apply();
    v.scene.redraw();
    if (v.inspector.open) v.inspector.refresh();
    v.address.schedule();
  }

  /** @param {string} id */
  function setProduct(id) {
    state.product = id;
    overlays.reset();
    state.auto = null;
    v.controls.product(id);
    changed();
  }

  /** @param {number} i @param {boolean} [fromUi] picked in the list: it switches to the band product */
  function setBand(i, fromUi = false) {
    state.band = i;
    v.controls.band(i);
    overlays.reset();
    state.auto = null;
    if (fromUi && state.product !== 'band') return setProduct('band');
    changed();
  }

  /** A frame was painted: its date in the readout, and the overlays' automatic range from it. @param {import('../lib/scene.js').FrameRecord} f */
  function frame(f) {
    if (f.t === null) return; // a scene paints a timestep once it has one
    $('readout').textContent = v.label(f.t);
    $('readout').dataset.t = String(f.t);
    if (overlays.frame(f, look(), Boolean(v.playback?.playing))) apply();
  }

  return { look, apply, overlays, setProduct, setBand, frame };
}
