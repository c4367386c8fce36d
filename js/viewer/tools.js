/**
 * The viewer's tools beyond looking: the PNG export of the view (with date, legend and scale),
 * the time-lapse video, the compare toggle, and the keyboard shortcuts with their `?` overlay.
 * @module
 */
import { compose } from './composite.js';
import { canvasPng, saveBlob } from './download.js';
import { attachShortcuts, createHelp, shortcutTable } from './shortcuts.js';
import { createTimelapse } from './timelapse.js';

/**
 * @typedef {object} ToolsHost
 * @property {import('../lib/typedefs.js').Store} store
 * @property {HTMLCanvasElement} canvas
 * @property {HTMLElement} dialogs where the dialogs go
 * @property {Document | HTMLElement} keys where the keyboard shortcuts listen (the page, or the viewer's element)
 * @property {{ compare: HTMLElement, png: HTMLElement, video: HTMLElement, help: HTMLElement }} buttons
 * @property {ReturnType<typeof import('./compare.js').createCompare>} compare
 * @property {ReturnType<typeof import('./overlays.js').createOverlays>} overlays
 * @property {import('../lib/typedefs.js').Scene} scene the scene of date A
 * @property {(t: number) => string} label
 * @property {string} fileStem
 * @property {() => string} product
 * @property {() => number} t
 * @property {(t: number) => void} setT
 * @property {(state: import('./compare.js').CompareState | null) => void} setCompare
 * @property {Omit<import('./shortcuts.js').Actions, 'compare' | 'divider' | 'stepB' | 'png' | 'video' | 'help' | 'escape' | 'step' | 'jump'> & { stopPlayback: () => void, closePanels: () => boolean }} actions
 */

/** @param {ToolsHost} app */
export function createTools(app) {
  const { store, canvas, compare, overlays, buttons } = app;
  const n = store.times.length;
  const scenes = () => [app.scene, compare.scene].filter((s) => s != null);

  /** The view composed with its date(s), legend and scale. @param {HTMLCanvasElement} out */
  function composeView(out) {
    for (const s of scenes()) s.paintNow();
    const c = compare.state;
    compose(out, {
      map: canvas,
      date: app.label(app.scene.shownT ?? app.t()),
      compare: c ? { date: app.label(compare.scene?.shownT ?? c.t), splitPx: c.split * canvas.clientWidth } : null,
      legend: overlays.legend,
      scale: overlays.scale,
      name: store.url.replace(/\/+$/, '').split('/').pop() ?? '',
    });
  }

  async function exportPng() {
    const out = document.createElement('canvas');
    composeView(out);
    const c = compare.state;
    const when = c ? `${app.label(app.t())}_vs_${app.label(c.t)}` : app.label(app.scene.shownT ?? app.t());
    saveBlob(await canvasPng(out), `${app.fileStem}_${when}_${app.product()}.png`);
  }

  function toggleCompare() {
    const t = app.t();
    app.setCompare(compare.state ? null : { t: t === n - 1 ? 0 : n - 1, split: 0.5 });
  }

  const video = createTimelapse(app.dialogs, {
    store,
    label: app.label,
    setT: app.setT,
    t: app.t,
    scenes,
    compose: composeView,
    stopPlayback: app.actions.stopPlayback,
    fileStem: app.fileStem,
  });
  const step = (/** @type {number} */ d) => app.setT(Math.max(0, Math.min(n - 1, app.t() + d)));
  const table = shortcutTable({
    ...app.actions,
    step,
    jump: (t) => app.setT(t === 'last' ? n - 1 : t),
    compare: toggleCompare,
    divider: (d) => compare.state && app.setCompare({ ...compare.state, split: Math.min(1, Math.max(0, compare.state.split + d)) }),
    stepB: (d) => compare.state && app.setCompare({ ...compare.state, t: Math.max(0, Math.min(n - 1, compare.state.t + d)) }),
    png: exportPng,
    video: () => video.open(),
    help: () => help.toggle(),
    escape: () => help.close() || video.close() || app.actions.closePanels(),
  });
  const help = createHelp(app.dialogs, table);
  attachShortcuts(app.keys, table);
  buttons.png.addEventListener('click', exportPng);
  buttons.video.addEventListener('click', () => video.open());
  buttons.help.addEventListener('click', () => help.toggle());
  buttons.compare.addEventListener('click', toggleCompare);

  return {
    exportPng,
    composeView,
    video,
    help,
    /** The compare button says whether the split view is on. */
    compareChanged: () => buttons.compare.setAttribute('aria-pressed', String(Boolean(compare.state))),
  };
}
