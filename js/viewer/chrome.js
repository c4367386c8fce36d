/**
 * What surrounds the map: the bar's controls (app.js filled them), the tab's name, the wordmark (a new
 * tab when embedded), the map input, and the tools (split view, exports, help, shortcuts) with their
 * actions. A change of the split view goes to its button, the address and the host.
 * @module
 */
import { createControls } from './controls.js';
import { attachInput } from './input.js';
import { createTools } from './tools.js';

/** @param {import('./app.js').Viewer} v the scene, split view, camera, time, showing and pick made */
export function createChrome(v) {
  const { store, state, $, params, env, canvas, playback, nav } = v;
  const controls = createControls({ $, playback, onProduct: (id) => v.shown.setProduct(id), onBand: (i) => v.shown.setBand(i, true) });
  $('inspector-close').addEventListener('click', () => v.inspector.close());
  const wordmark = $('wordmark', HTMLAnchorElement);
  if (params.embed || !env.page) {
    wordmark.target = '_blank';
    wordmark.rel = 'noopener';
  }
  if (env.page) document.title = `${v.storeName} · chronozarr`;

  attachInput(canvas, {
    pan: (dx, dy) => nav.pan(dx, dy),
    zoom: (f, px, py) => nav.zoomAbout(f, px, py),
    click: (px, py, how) => v.clickAt(px, py, how),
  });

  const tools = createTools({
    store,
    canvas,
    dialogs: $('dialogs'),
    keys: env.page ? document : v.root,
    buttons: { compare: $('compare-toggle'), png: $('export'), video: $('video'), help: $('help') },
    compare: v.compare,
    overlays: v.overlays,
    scene: v.scene,
    label: v.label,
    fileStem: v.storeName.replace(/\.zarr$/, ''),
    product: () => state.product,
    t: () => state.t,
    setT: (t) => v.setT(t),
    setCompare: (c) => compareChanged(c, true),
    actions: {
      pan: (dx, dy) => nav.pan(dx, dy),
      zoom: (f) => nav.zoomAbout(f, nav.size.w / 2, nav.size.h / 2),
      fit: () => nav.fit(),
      play: () => playback.toggle(),
      stopPlayback: () => playback.stop(),
      inspect: (add) => v.clickAt(nav.size.w / 2, nav.size.h / 2, { shift: add }),
      closePanels: () => v.inspector.open && (v.inspector.close(), true),
    },
  });

  /**
   * The split view changed (set: apply it first): button, URL and host follow.
   * @param {import('./compare.js').CompareState | null} c @param {boolean} [set]
   */
  function compareChanged(c, set = false) {
    if (set) v.compare.set(c);
    tools.compareChanged();
    v.address.schedule();
    const cur = v.compare.state;
    v.embed.send('chronozarr:compare', { compare: cur ? { t: cur.t, time: store.times[cur.t], split: cur.split } : null });
  }

  return { controls, wordmark, tools, compareChanged };
}
