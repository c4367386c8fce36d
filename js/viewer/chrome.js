/**
 * What surrounds the map: the tab's name, the wordmark (a new tab when embedded), the inspector's
 * close button, the map input, and the tools (split view, exports, help, shortcuts) with their
 * actions. A change of the split view goes to its button, the address and the host.
 * @module
 */
import { attachInput } from './input.js';
import { createTools } from './tools.js';

/**
 * @typedef {object} ChromeParts
 * @property {import('../lib/typedefs.js').Store} store
 * @property {import('./first-view.js').ViewState} state
 * @property {ReturnType<typeof import('../lib/dom.js').idLookup>} $ the viewer's element by id
 * @property {boolean} embedded the viewer is in a frame or a host page: the wordmark opens a new tab
 * @property {boolean} page the viewer is the whole page: it names the tab and takes the document's keys
 * @property {HTMLElement} root the viewer's element (its keys, when it is not the page)
 * @property {HTMLCanvasElement} canvas
 * @property {HTMLAnchorElement} wordmark
 * @property {string} storeName
 * @property {(t: number) => string} label a timestep's date
 * @property {ReturnType<typeof import('./navigate.js').createNavigation>} nav
 * @property {import('../lib/typedefs.js').Scene} scene
 * @property {ReturnType<typeof import('./compare.js').createCompare>} compare
 * @property {ReturnType<typeof import('./overlays.js').createOverlays>} overlays
 * @property {Pick<ReturnType<typeof import('./inspect.js').createInspector>, 'open' | 'close'>} inspector
 * @property {Pick<ReturnType<typeof import('./playback.js').createPlayback>, 'toggle' | 'stop'>} playback
 * @property {(px: number, py: number, how?: { shift?: boolean }) => unknown} clickAt
 * @property {(t: number) => void} setT
 * @property {{ schedule: () => void }} address
 * @property {Pick<ReturnType<typeof import('./regions.js').createRegions>, 'draw' | 'addCentreBox' | 'removeSelected'>} regions the region tools' keys
 * @property {Pick<ReturnType<typeof import('./embed.js').createEmbed>, 'send'>} embed
 */

/** @param {ChromeParts} o */
export function createChrome({ store, state, $, embedded, page, root, canvas, wordmark, storeName, label, nav, scene, compare, overlays, inspector, playback, clickAt, setT, address, embed, regions }) {
  $('inspector-close').addEventListener('click', () => inspector.close());
  if (embedded) {
    wordmark.target = '_blank';
    wordmark.rel = 'noopener';
  }
  if (page) document.title = `${storeName} · chronozarr`;

  attachInput(canvas, {
    pan: (dx, dy) => nav.pan(dx, dy),
    zoom: (f, px, py) => nav.zoomAbout(f, px, py),
    click: (px, py, how) => clickAt(px, py, how),
  });

  const tools = createTools({
    store,
    canvas,
    dialogs: $('dialogs'),
    keys: page ? document : root,
    buttons: { compare: $('compare-toggle'), png: $('export'), video: $('video'), help: $('help') },
    compare,
    overlays,
    scene,
    label,
    fileStem: storeName.replace(/\.zarr$/, ''),
    product: () => state.product,
    t: () => state.t,
    setT: (t) => setT(t),
    setCompare: (c) => compareChanged(c, true),
    actions: {
      pan: (dx, dy) => nav.pan(dx, dy),
      zoom: (f) => nav.zoomAbout(f, nav.size.w / 2, nav.size.h / 2),
      fit: () => nav.fit(),
      play: () => playback.toggle(),
      stopPlayback: () => playback.stop(),
      inspect: (add) => clickAt(nav.size.w / 2, nav.size.h / 2, { shift: add }),
      draw: (kind) => regions.draw(kind),
      centreBox: () => regions.addCentreBox(),
      deleteRegions: () => regions.removeSelected(),
      closePanels: () => inspector.open && (inspector.close(), true),
    },
  });

  /**
   * The split view changed (set: apply it first): button, URL and host follow.
   * @param {import('./compare.js').CompareState | null} c @param {boolean} [set]
   */
  function compareChanged(c, set = false) {
    if (set) compare.set(c);
    tools.compareChanged();
    address.schedule();
    const cur = compare.state;
    embed.send('chronozarr:compare', { compare: cur ? { t: cur.t, time: store.times[cur.t], split: cur.split } : null });
  }

  return { tools, compareChanged };
}
