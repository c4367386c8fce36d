/**
 * What the viewer shows: the product, the band and the display range (the overlays' legend sets it),
 * and each painted frame's date. A change goes to the scene, the split view, the overlays, the
 * inspector and the address.
 * @module
 */
import { lookFor } from '../lib/products.js';
import { cursorInfo } from './cursor.js';
import { createOverlays } from './overlays.js';

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {import('./first-view.js').ViewState} o.state read and written (product, band, range, auto)
 * @param {ReturnType<typeof import('../lib/dom.js').idLookup>} o.$ the viewer's element by id
 * @param {HTMLCanvasElement} o.canvas
 * @param {Pick<import('../lib/typedefs.js').Scene, 'setLook' | 'redraw' | 'sampleVisible'>} o.scene
 * @param {Pick<ReturnType<typeof import('./compare.js').createCompare>, 'setLook' | 'pick'>} o.compare
 * @param {() => import('../lib/typedefs.js').CanvasSize} o.size the canvas now
 * @param {(t: number) => string} o.label a timestep's date
 * @param {{ product: (id: string) => void, band: (i: number) => void }} o.controls what the bar marks
 * @param {{ readonly open: boolean, refresh: () => void }} o.inspector refreshed on a change while open
 * @param {() => boolean} o.playing playback is on
 * @param {() => void} o.onChange after a change of product, band or range (the address follows)
 */
export function createShowing({ store, state, $, canvas, scene, compare, size, label, controls, inspector, playing, onChange }) {
  const look = () => lookFor(store, state);

  function apply() {
    const l = look();
    scene.setLook(l);
    compare.setLook(l);
    overlays.look(l);
  }

  const overlays = createOverlays({
    store,
    host: $('overlays'),
    stage: $('stage'),
    canvas,
    state,
    sample: (/** @type {number[]} */ b) => scene.sampleVisible(b),
    locate: (px, py) => cursorInfo(store, state.cam, size(), px, py, (x, y, sx) => compare.pick(x, y, sx)),
    setRange: (r) => {
      state.range = r;
      overlays.reset();
      if (!r) scene.redraw();
      apply();
      onChange();
    },
  });

  /** The product or band changed: redraw, and refresh what follows it. */
  function changed() {
    apply();
    scene.redraw();
    if (inspector.open) inspector.refresh();
    onChange();
  }

  /** @param {string} id */
  function setProduct(id) {
    state.product = id;
    overlays.reset();
    state.auto = null;
    controls.product(id);
    changed();
  }

  /** @param {number} i @param {boolean} [fromUi] picked in the list: it switches to the band product */
  function setBand(i, fromUi = false) {
    state.band = i;
    controls.band(i);
    overlays.reset();
    state.auto = null;
    if (fromUi && state.product !== 'band') return setProduct('band');
    changed();
  }

  /** A frame was painted: its date in the readout, and the overlays' automatic range from it. @param {import('../lib/scene.js').FrameRecord} f */
  function frame(f) {
    if (f.t === null) return; // a scene paints a timestep once it has one
    $('readout').textContent = label(f.t);
    $('readout').dataset.t = String(f.t);
    if (overlays.frame(f, look(), playing())) apply();
  }

  return { look, apply, overlays, setProduct, setBand, frame };
}
