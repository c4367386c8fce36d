/**
 * The viewer app in an element: opens the store, wires the scene, controls, inspector, URL state
 * and embed API. The standalone page (main.js) and mountViewer (mount.js) run it.
 * @module
 */
import { pixelToScreen } from '../lib/camera.js';
import { idLookup } from '../lib/dom.js';
import { productList } from '../lib/products.js';
import { createScene } from '../lib/scene.js';
import { openStore } from '../src/index.js';
import { createAddress } from './address.js';
import { readCatalog, showPicker } from './catalog.js';
import { createChrome } from './chrome.js';
import { createClock } from './clock.js';
import { fillControls } from './controls.js';
import { createCompare } from './compare.js';
import { createEmbed } from './embed.js';
import { createEmbedSet } from './embed-set.js';
import { earlyFetch } from './early.js';
import { createFirstFrames } from './first-frames.js';
import { initialProduct, initialState, warmFirstView } from './first-view.js';
import { createHistoryWarm } from './history-warm.js';
import { createLoading } from './loading.js';
import { createNavigation } from './navigate.js';
import { createNotices } from './notices.js';
import { storeUrl } from './params.js';
import { STORE_BUTTONS } from './markup.js';
import { createPick } from './pick.js';
import { snapSpeed } from './playback.js';
import { createRenderer, cssSize } from './renderer.js';
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
 * @property {(type: string, fields: Record<string, unknown>) => void} [onEvent] every message the viewer
 *   sends (the embed API's `chronozarr:*` messages), whether or not a host frame listens
 */

/**
 * Instrumentation for tests and benchmarks (read-only use, please): whether the viewer is up, its
 * frames, when the first ones came, and its parts (`api`).
 * @typedef {object} Hook
 * @property {boolean} ready
 * @property {string | null} error
 * @property {import('../lib/scene.js').FrameRecord[]} frames the scene's frame records
 * @property {Record<string, unknown>} api
 * @property {number} [openStartAt] performance.now() when the store began to open
 * @property {number} [openedAt] when it was open
 * @property {number} [firstFrameAt] when the first frame was painted
 * @property {number} [firstCompleteAt] when the first complete frame was painted
 * @property {{ requests: number, bytes: number }} [firstCompleteReads] the reads until then
 * @property {string} [permalink] the address of the view now
 * @property {ReturnType<typeof import('./reports.js').clickReport>['message'] & { stored: number[] }} [lastClick] the last click's message
 * @property {string} [playback] the playback state
 * @property {import('./history-warm.js').WarmReport} [historyWarm] the last warm-up of the history's shard indexes
 */

/**
 * The viewer's parts, shared by the modules that wire them: each part reads the others when it is
 * called, not when it is made, so the order of making them only follows what each needs at once.
 * @typedef {object} Viewer
 * @property {import('../lib/typedefs.js').Store} store
 * @property {import('./params.js').ViewerParams} params
 * @property {ReturnType<typeof idLookup>} $ the viewer's element by id (of a given type)
 * @property {Hook} hook instrumentation for tests and benchmarks
 * @property {ReturnType<typeof createEmbed>} embed
 * @property {ViewerEnv} env
 * @property {HTMLElement} root
 * @property {HTMLCanvasElement} canvas
 * @property {(t: number) => string} label a timestep's date
 * @property {string} storeName
 * @property {{ id: string, name: string, available: boolean }[]} products
 * @property {import('./first-view.js').ViewState} state
 * @property {ReturnType<typeof createNotices>} notices
 * @property {ReturnType<typeof createRenderer>} renderer
 * @property {import('../lib/typedefs.js').Scene} scene
 * @property {ReturnType<typeof createCompare>} compare
 * @property {ReturnType<typeof createNavigation>} nav
 * @property {ReturnType<typeof createViewReports>} views
 * @property {ReturnType<typeof createFirstFrames>} firstFrames
 * @property {ReturnType<typeof createHistoryWarm>} historyWarm
 * @property {ReturnType<typeof createLoading>} loading
 * @property {ReturnType<typeof createShowing>} shown
 * @property {ReturnType<typeof createShowing>['overlays']} overlays
 * @property {import('./clock.js').Clock} clock the current timestep (state.t reads it)
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
  const $ = idLookup(root, env.prefix);
  root.classList.toggle('embed', params.embed);
  root.classList.toggle('no-controls', !params.controls);
  root.dataset.theme = params.theme;

  /** @type {Hook} */
  const hook = { ready: false, error: null, frames: [], api: {} };
  if (env.page) Object.assign(window, { __chronozarrViewer: hook });

  /** @type {Awaited<ReturnType<typeof start>> | null} */
  let app = null;
  /** The app, once the store is open (the embed API calls none of these before it says ready). */
  const started = () => {
    if (!app) throw new Error('the viewer is not open yet');
    return app;
  };
  const embed = createEmbed({
    params,
    validate: (f) => started().validate(f),
    apply: (f) => started().applySet(f),
    readyPayload: () => started().readyPayload(),
    onSend: env.onEvent,
  });

  /** @param {string} code @param {string} message */
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
    const catalog = readCatalog(params, env.page);
    let url = params.store;
    if (!url && catalog) {
      // The full viewer with a catalog and no store opens the catalog's first store, and says so in the address.
      try {
        url = (await catalog)[0].url;
      } catch (err) {
        fatal('no_store', err instanceof Error ? err.message : String(err));
        return;
      }
      history.replaceState(history.state, '', storeUrl(location.href, url));
    }
    if (!url) {
      fatal('no_store', 'No store to show: open the viewer with ?store=URL of a chronozarr store (the directory holding zarr.json).');
      return;
    }
    const current = new URL(url, location.href).href;
    catalog?.then(
      (entries) => showPicker({ field: $('catalog-field'), select: $('catalog-select', HTMLSelectElement), storeName: $('store-name'), entries, current, onPick: (e) => location.assign(storeUrl(location.href, e.url)) }),
      (err) => Object.assign($('toast'), { textContent: err.message, hidden: false }),
    );
    const opened = { ...params, store: url };
    $('status').textContent = 'Opening store…';
    let store;
    hook.openStartAt = performance.now();
    try {
      // Enough request slots for a first view's chunks, masks and coarse stand-ins at once (3 x 3 cells
      // and their masks plus the coarsest level's), so none waits for a slot the busy main thread holds.
      // The standalone page asked for the root zarr.json before this script loaded (index.html).
      const early = env.page ? earlyFetch(/** @type {any} */ (window).__chronozarrEarly) : undefined;
      store = await openStore(current, { maxRequests: 24, fetch: early });
      hook.openedAt = performance.now();
    } catch (err) {
      fatal('store_open_failed', `Could not open the store ${url}: ${err instanceof Error ? err.message : err}`);
      return;
    }
    app = await start(store, { params: opened, $, hook, embed, env, root });
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
 * @param {import('../lib/typedefs.js').Store} store
 * @param {{ params: import('./params.js').ViewerParams, $: ReturnType<typeof idLookup>, hook: Hook, embed: ReturnType<typeof createEmbed>, env: ViewerEnv, root: HTMLElement }} ctx
 */
async function start(store, { params, $, hook, embed, env, root }) {
  const canvas = $('map', HTMLCanvasElement);
  const label = (/** @type {number} */ t) => store.times[t].slice(0, 10);
  const storeName = decodeURIComponent(new URL(store.url).pathname.replace(/\/+$/, '').split('/').pop() || store.url);
  const products = productList(store.attrs.bands);
  const notices = createNotices({ $, embed, label });
  // The bar gets its final content before the canvas is measured: the camera, the first reads and
  // the drawing buffer (made once, in wire) all take the size the map keeps.
  fillControls({ $, products, bands: store.attrs.bands, product: initialProduct(store, params, products), storeName });
  const firstSize = cssSize(canvas);
  const state = initialState(store, params, products, firstSize);
  const warm = new AbortController();
  warmFirstView(store, state, firstSize, warm.signal);

  // Let those reads reach fetch (a chain of promise jobs) before the synchronous setup below, whose
  // WebGL context creation waits on the GPU process (the root zarr.json, asked for by index.html
  // before this script loaded, is usually in already, so the context cannot hide behind it).
  await new Promise((resolve) => setTimeout(resolve, 0));

  const v = /** @type {Viewer} */ ({ store, params, $, hook, embed, env, root, canvas, label, storeName, products, notices, state });
  wire(v);
  for (const id of STORE_BUTTONS) $(id, HTMLButtonElement).disabled = false;
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
    v.historyWarm.stop();
    v.compare.set(null);
    v.scene.destroy();
    store.close();
    for (const part of [v.loading, v.address, v.views, notices]) part.stop();
  }
  return { validate, applySet, readyPayload, destroy };
}

/** Make the parts, each given what it needs at once; the rest it reads from `v` when called. @param {Viewer} v */
function wire(v) {
  const { store, state, $, hook, embed } = v;
  /** @param {Error} err @param {import('../lib/typedefs.js').ChunkAt} where */
  const onError = (err, where) => v.notices.chunkFailed(err, where);
  v.clock = createClock(store.times.length, state.t);
  // The clock holds the timestep; state.t, which the parts read, is a view of it that cannot be set.
  Object.defineProperty(state, 't', { get: () => v.clock.t, enumerable: true });
  v.renderer = createRenderer(v.canvas, { dtype: store.dtype, nBands: store.bands.length });
  v.scene = createScene({
    store,
    renderer: v.renderer,
    onFrame: (frame) => {
      v.shown.frame(frame);
      v.firstFrames.frame(frame);
      v.historyWarm.frame(frame);
      v.loading.watch();
    },
    onError,
  });
  hook.frames = v.scene.frames;
  v.clock.on(({ t }) => {
    v.scene.setTime(t);
    v.loading.watch();
  });
  v.compare = createCompare({
    store,
    renderer: v.renderer,
    primary: v.scene,
    stage: $('stage'),
    size: () => v.nav.size,
    label: v.label,
    clock: v.clock,
    onChange: (c) => v.compareChanged(c),
    onError,
  });
  v.firstFrames = createFirstFrames({ store, hook });
  v.historyWarm = createHistoryWarm({ store, view: () => ({ cam: state.cam, ...v.nav.size }), playing: () => v.playback.playing, onReport: (r) => (hook.historyWarm = r) });
  v.loading = createLoading({ bar: $('loading'), scene: v.scene });
  v.nav = createNavigation(v);
  v.views = createViewReports(embed, () => ({ zoom: state.cam.zoom, center: centreOf(store, state.cam) }));
  v.shown = createShowing(v);
  v.overlays = v.shown.overlays;
  Object.assign(v, createTime(v));
  Object.assign(v, createPick(v));
  Object.assign(v, createChrome(v));
  v.nav.watch();
  v.address = createAddress({ store, params: v.params, env: v.env, state, clock: v.clock, compare: v.compare, wordmark: v.wordmark, hook });
}

/** The first view: the state the address asked for, shown at once. @param {Viewer} v */
function show(v) {
  const { state, params } = v;
  v.$('status').textContent = '';
  v.shown.setProduct(state.product);
  v.controls.band(state.band);
  v.clock.set(state.t, 'open');
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
    pixel: (/** @type {number} */ x, /** @type {number} */ y) => v.renderer.readPixel(x, y),
    screenOf: (/** @type {number} */ x, /** @type {number} */ y) => pixelToScreen(state.cam, nav.size.w, nav.size.h, x, y),
    click: (/** @type {number} */ px, /** @type {number} */ py, /** @type {{ shift?: boolean }} */ how) => v.clickAt(px, py, how),
    setT: (/** @type {number} */ t) => v.clock.set(t, 'api'),
    play: () => playback.play(),
    stop: () => playback.stop(),
    setSpeed: (/** @type {number} */ s) => (playback.speed = snapSpeed(s)),
    setPlaybackBudget: (/** @type {number} */ bytes) => playback.setBudget(bytes),
    embedLog: v.embed.log,
    look: v.shown.look,
    compare: v.compare,
    tools: v.tools,
    overlays: v.overlays,
    inspector: v.inspector,
  });
}
