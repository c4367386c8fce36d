/**
 * The viewer app in an element: opens the store, wires the scene, controls, inspector, URL state
 * and embed API. The standalone page (main.js) and mountViewer (mount.js) run it.
 * @module
 */
import { pixelToScreen } from '../lib/camera.js';
import { productList } from '../lib/products.js';
import { createScene } from '../lib/scene.js';
import { openStore } from '../src/index.js';
import { createAddress } from './address.js';
import { createChrome } from './chrome.js';
import { createCompare } from './compare.js';
import { createEmbed } from './embed.js';
import { createEmbedSet } from './embed-set.js';
import { initialState, warmFirstView } from './first-view.js';
import { createNavigation } from './navigate.js';
import { createNotices } from './notices.js';
import { createPick } from './pick.js';
import { snapSpeed } from './playback.js';
import { createPrefetch } from './prefetch.js';
import { acquireContext, createRenderer, cssSize } from './renderer.js';
import { centreOf } from './reports.js';
import { createShowing } from './showing.js';
import { createTime } from './time.js';
import { createViewReports } from './view-reports.js';

/**
 * @typedef {object} ViewerEnv
 * @property {boolean} page the viewer is the whole page: it keeps the address up to date
 *   (replaceState), names the tab, takes the keys of the whole document and sets
 *   `window.__chronozarrViewer`
 * @property {string} prefix of its element ids
 * @property {string} fullViewer URL of the standalone viewer page (links to the full view)
 * @property {(type: string, fields: Record<string, any>) => void} [onEvent] every message the viewer
 *   sends (the embed API's `chronozarr:*` messages), whether or not a host frame listens
 */

/**
 * The viewer's parts, shared by the modules that wire them: each part reads the others when it is
 * called, not when it is made, so the order of making them only follows what each needs at once.
 * @typedef {object} Viewer
 * @property {any} store
 * @property {import('./params.js').ViewerParams} params
 * @property {(id: string) => HTMLElement} $ the viewer's element by id
 * @property {any} hook instrumentation for tests and benchmarks
 * @property {ReturnType<typeof createEmbed>} embed
 * @property {ViewerEnv} env
 * @property {HTMLElement} root
 * @property {HTMLCanvasElement} canvas
 * @property {(t: number) => string} label a timestep's date
 * @property {string} storeName
 * @property {{ id: string, name: string, available: boolean }[]} products
 * @property {import('./first-view.js').ViewState} state
 * @property {ReturnType<typeof createNotices>} notices
 * @property {any} renderer
 * @property {any} scene
 * @property {ReturnType<typeof createCompare>} compare
 * @property {ReturnType<typeof createNavigation>} nav
 * @property {ReturnType<typeof createViewReports>} views
 * @property {ReturnType<typeof createPrefetch>} prefetch
 * @property {ReturnType<typeof createShowing>} shown
 * @property {ReturnType<typeof createShowing>['overlays']} overlays
 * @property {ReturnType<typeof createTime>['setT']} setT
 * @property {ReturnType<typeof createTime>['playback']} playback
 * @property {ReturnType<typeof createPick>['inspector']} inspector
 * @property {ReturnType<typeof createPick>['clickAt']} clickAt
 * @property {ReturnType<typeof createChrome>['controls']} controls
 * @property {ReturnType<typeof createChrome>['tools']} tools
 * @property {HTMLAnchorElement} wordmark
 * @property {ReturnType<typeof createChrome>['compareChanged']} compareChanged
 * @property {ReturnType<typeof createAddress>} address
 */

/**
 * Run the viewer in `root` (which holds viewerMarkup): open the store, wire everything, and
 * report through the embed API and `onEvent`.
 * @param {HTMLElement} root
 * @param {import('./params.js').ViewerParams} params
 * @param {ViewerEnv} env
 */
export function runViewer(root, params, env) {
  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (root.querySelector(`#${CSS.escape(env.prefix + id)}`));
  root.classList.toggle('embed', params.embed);
  root.classList.toggle('no-controls', !params.controls);
  root.dataset.theme = params.theme;

  /** Instrumentation for tests and benchmarks (read-only use, please). */
  const hook = {
    ready: false,
    error: /** @type {string | null} */ (null),
    frames: /** @type {any[]} */ ([]),
    /** @type {Record<string, any>} */
    api: {},
  };
  if (env.page) /** @type {any} */ (window).__chronozarrViewer = hook;

  /** @type {any} */
  let app = null;
  const embed = createEmbed({
    params,
    validate: (f) => app.validate(f),
    apply: (f) => app.applySet(f),
    readyPayload: () => app.readyPayload(),
    onSend: env.onEvent,
  });

  function fatal(code, message) {
    hook.error = message;
    $('status').textContent = message;
    $('status').className = 'status error';
    embed.error(code, message);
  }

  const ready = open().catch((err) => {
    console.error(err);
    fatal('internal', `The viewer failed: ${err instanceof Error ? err.message : err}`);
  });

  async function open() {
    if (!params.store) {
      fatal('no_store', 'No store to show: open the viewer with ?store=URL of a chronozarr store (the directory holding zarr.json).');
      return;
    }
    $('status').textContent = 'Opening store…';
    let store;
    hook.openStartAt = performance.now();
    try {
      // Enough request slots for a first view's chunks, masks and coarse stand-ins at once (3 x 3 cells
      // and their masks plus the coarsest level's), so none waits for a slot the busy main thread holds.
      const opening = openStore(new URL(params.store, location.href).href, { maxRequests: 24 });
      acquireContext(/** @type {HTMLCanvasElement} */ ($('map')));
      store = await opening;
      hook.openedAt = performance.now();
    } catch (err) {
      fatal('store_open_failed', `Could not open the store ${params.store}: ${err instanceof Error ? err.message : err}`);
      return;
    }
    app = await start(store, { params, $, hook, embed, env, root });
    hook.ready = true;
    embed.ready();
  }

  return {
    hook,
    ready,
    embed,
    get app() {
      return app;
    },
  };
}

/**
 * @param {any} store
 * @param {{ params: import('./params.js').ViewerParams, $: (id: string) => HTMLElement, hook: any, embed: ReturnType<typeof createEmbed>, env: ViewerEnv, root: HTMLElement }} ctx
 */
async function start(store, { params, $, hook, embed, env, root }) {
  const canvas = /** @type {HTMLCanvasElement} */ ($('map'));
  const label = (t) => store.times[t].slice(0, 10);
  const storeName = decodeURIComponent(new URL(store.url).pathname.replace(/\/+$/, '').split('/').pop() || store.url);
  const products = productList(store.bands);
  const notices = createNotices({ $, embed, label });
  const firstSize = cssSize(canvas);
  const state = initialState(store, params, products, firstSize);
  const warm = new AbortController();
  warmFirstView(store, state, firstSize, warm.signal);

  // Let those reads reach fetch (a chain of promise jobs) before the synchronous setup below.
  await new Promise((resolve) => setTimeout(resolve, 0));

  const v = /** @type {Viewer} */ ({ store, params, $, hook, embed, env, root, canvas, label, storeName, products, notices, state });
  wire(v);
  show(v);
  // The scene now reads the cells it needs (joining the early reads); drop the early ones it does not.
  warm.abort();
  v.views.mark();
  v.address.write();
  exposeApi(v);
  const { validate, applySet, readyPayload } = createEmbedSet(v);
  /** Stop everything: loads, playback, timers, the decode workers. */
  function destroy() {
    v.nav.stop();
    v.playback.stop();
    v.compare.set(null);
    v.scene.destroy();
    store.close();
    for (const part of [v.prefetch, v.address, v.views, notices]) part.stop();
  }
  return { validate, applySet, readyPayload, destroy };
}

/** Make the parts, each given what it needs at once; the rest it reads from `v` when called. @param {Viewer} v */
function wire(v) {
  const { store, state, $, hook, embed } = v;
  const onError = (err, where) => v.notices.chunkFailed(err, where);
  v.renderer = createRenderer(v.canvas, { dtype: store.dtype, nBands: store.bands.length });
  v.scene = createScene({
    store,
    renderer: v.renderer,
    onFrame: (frame) => {
      v.shown.frame(frame);
      v.prefetch.frame(frame);
    },
    onError,
  });
  hook.frames = v.scene.frames;
  v.compare = createCompare({
    store,
    renderer: v.renderer,
    primary: v.scene,
    stage: $('stage'),
    size: () => v.nav.size,
    label: v.label,
    tA: () => state.t,
    onChange: (c) => v.compareChanged(c),
    onError,
  });
  v.nav = createNavigation(v);
  v.views = createViewReports(embed, () => ({ zoom: state.cam.zoom, center: centreOf(store, state.cam) }));
  v.prefetch = createPrefetch({ store, scene: v.scene, state, hook, playing: () => Boolean(v.playback?.playing) });
  v.shown = createShowing(v);
  v.overlays = v.shown.overlays;
  Object.assign(v, createTime(v));
  Object.assign(v, createPick(v));
  Object.assign(v, createChrome(v));
  v.nav.watch();
  v.address = createAddress({ store, params: v.params, env: v.env, state, compare: v.compare, wordmark: v.wordmark, hook });
}

/** The first view: the state the address asked for, shown at once. @param {Viewer} v */
function show(v) {
  const { state, params } = v;
  v.$('status').textContent = '';
  v.shown.setProduct(state.product);
  v.controls.band(state.band);
  v.setT(state.t);
  if (params.compare != null && params.compare < v.store.times.length) v.compare.set({ t: params.compare, split: params.split ?? 0.5 });
  v.tools.compareChanged();
  v.nav.update({ quiet: true });
}

/** The hook's API, for tests and benchmarks. @param {Viewer} v */
function exposeApi(v) {
  const { state, scene, playback, nav } = v;
  Object.assign(v.hook.api, {
    store: v.store,
    scene,
    state: () => ({ ...state, shownT: scene.shownT, lod: scene.lod, settled: scene.settled, playing: playback.playing, speed: playback.speed, pending: scene.pending }),
    pixel: (x, y) => v.renderer.readPixel(x, y),
    screenOf: (x, y) => pixelToScreen(state.cam, nav.size.w, nav.size.h, x, y),
    click: (px, py, how) => v.clickAt(px, py, how),
    setT: v.setT,
    play: () => playback.play(),
    stop: () => playback.stop(),
    setSpeed: (s) => (playback.speed = snapSpeed(s)),
    setPlaybackBudget: (bytes) => playback.setBudget(bytes),
    embedLog: v.embed.log,
    look: v.shown.look,
    compare: v.compare,
    tools: v.tools,
    overlays: v.overlays,
    inspector: v.inspector,
  });
}
