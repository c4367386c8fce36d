/**
 * The viewer app in an element: opens the store, wires the scene, controls, inspector, URL state
 * and embed API. The standalone page (main.js) and mountViewer (mount.js) run it.
 * @module
 */
import { idLookup } from '../lib/dom.js';
import { productList } from '../lib/products.js';
import { createScene } from '../lib/scene.js';
import { openDataset } from '../src/index.js';
import { createAddress } from './address.js';
import { readCatalog, showPicker } from './catalog.js';
import { createChrome } from './chrome.js';
import { createClock } from './clock.js';
import { createControls, fillControls } from './controls.js';
import { createCompare } from './compare.js';
import { createEmbed } from './embed.js';
import { createEmbedSet } from './embed-set.js';
import { earlyFetch } from './early.js';
import { createFirstFrames } from './first-frames.js';
import { createHook, exposeApi } from './hook.js';
import { initialProduct, initialState, warmFirstView } from './first-view.js';
import { createHistoryWarm } from './history-warm.js';
import { createLoading } from './loading.js';
import { createNavigation } from './navigate.js';
import { createNotices } from './notices.js';
import { storeUrl } from './params.js';
import { STORE_BUTTONS } from './markup.js';
import { createPick } from './pick.js';
import { createRegions } from './regions.js';
import { decodeRegions } from './region-shapes.js';
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

  const hook = createHook(env.page);

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
    const url = await storeToOpen({ params, page: env.page, $, fatal });
    if (!url) return;
    const current = new URL(url, location.href).href;
    const opened = { ...params, store: url };
    $('status').textContent = 'Opening store…';
    let store;
    hook.openStartAt = performance.now();
    try {
      // Enough request slots for a first view's chunks, masks and coarse stand-ins at once (3 x 3 cells
      // and their masks plus the coarsest level's), so none waits for a slot the busy main thread holds.
      // The standalone page asked for the root zarr.json before this script loaded (index.html).
      const early = env.page ? earlyFetch(/** @type {any} */ (window).__chronozarrEarly) : undefined;
      store = await openDataset(current, { maxRequests: 24, fetch: early });
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
 * The store's URL: the one asked for, or with a catalog and none asked for (the full viewer), the
 * catalog's first, which the address then names; null (and said) when there is none. A catalog's
 * picker is shown once its entries are in.
 * @param {{ params: import('./params.js').ViewerParams, page: boolean, $: ReturnType<typeof idLookup>, fatal: (code: string, message: string) => void }} o
 * @returns {Promise<string | null>}
 */
async function storeToOpen({ params, page, $, fatal }) {
  const catalog = readCatalog(params, page);
  let url = params.store;
  if (!url && catalog) {
    try {
      url = (await catalog)[0].url;
    } catch (err) {
      fatal('no_store', err instanceof Error ? err.message : String(err));
      return null;
    }
    history.replaceState(history.state, '', storeUrl(location.href, url));
  }
  if (!url) {
    fatal('no_store', 'No store to show: open the viewer with ?store=URL of a chronozarr store (the directory holding zarr.json).');
    return null;
  }
  const current = new URL(url, location.href).href;
  catalog?.then(
    (entries) => showPicker({ field: $('catalog-field'), select: $('catalog-select', HTMLSelectElement), storeName: $('store-name'), entries, current, onPick: (e) => location.assign(storeUrl(location.href, e.url)) }),
    (err) => Object.assign($('toast'), { textContent: err.message, hidden: false }),
  );
  return url;
}

/**
 * What the viewer is wired from once the store is open.
 * @typedef {object} Opened
 * @property {import('../lib/typedefs.js').Store} store
 * @property {import('./params.js').ViewerParams} params as opened (store: the URL it opened)
 * @property {ReturnType<typeof idLookup>} $ the viewer's element by id
 * @property {import('./hook.js').Hook} hook instrumentation for tests and benchmarks
 * @property {ReturnType<typeof createEmbed>} embed
 * @property {ViewerEnv} env
 * @property {HTMLElement} root
 * @property {HTMLCanvasElement} canvas
 * @property {(t: number) => string} label a timestep's date
 * @property {string} storeName
 * @property {{ id: string, name: string, available: boolean }[]} products
 * @property {ReturnType<typeof createNotices>} notices
 * @property {import('./first-view.js').ViewState} state
 */

/**
 * @param {import('../lib/typedefs.js').Store} store
 * @param {Pick<Opened, 'params' | '$' | 'hook' | 'embed' | 'env' | 'root'>} ctx
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

  const parts = wire({ store, params, $, hook, embed, env, root, canvas, label, storeName, products, notices, state });
  for (const id of STORE_BUTTONS) $(id, HTMLButtonElement).disabled = false;
  show({ store, state, params, $, notices, ...parts });
  // The scene now reads the cells it needs (joining the early reads); drop the early ones it does not.
  warm.abort();
  parts.views.mark();
  parts.address.write();
  exposeApi(hook, { store, state, embed, ...parts });
  const { validate, applySet, readyPayload } = createEmbedSet({ store, state, params, storeName, products, ...parts });
  /** Stop everything: loads, playback, timers, the decode workers. */
  function destroy() {
    parts.nav.stop();
    parts.playback.stop();
    parts.historyWarm.stop();
    parts.compare.set(null);
    parts.scene.destroy();
    store.close();
    for (const part of [parts.loading, parts.address, parts.views, parts.regions, notices]) part.stop();
  }
  return { validate, applySet, readyPayload, destroy };
}

/**
 * Make the viewer's parts in the order they need each other, each given the few it uses. Three
 * callbacks reach parts made after them (marked "later": the scene's paints, the camera's moves,
 * the bar's product and band); they run only once the wiring is done.
 * @param {Opened} o
 */
function wire({ store, params, $, hook, embed, env, root, canvas, label, storeName, products, notices, state }) {
  /** @param {Error} err @param {import('../lib/typedefs.js').ChunkAt} where */
  const onError = (err, where) => notices.chunkFailed(err, where);
  const clock = createClock(store.times.length, state.t);
  // The clock holds the timestep; state.t, which the parts read, is a view of it that cannot be set.
  Object.defineProperty(state, 't', { get: () => clock.t, enumerable: true });
  const renderer = createRenderer(canvas, { dtype: store.dtype, nBands: store.bands.length });
  const firstFrames = createFirstFrames({ store, hook });
  const scene = createScene({ store, renderer, onFrame: (frame) => painted(frame), onError }); // later
  hook.frames = scene.frames;
  const loading = createLoading({ bar: $('loading'), scene });
  clock.on(({ t }) => {
    scene.setTime(t);
    loading.watch();
  });
  const nav = createNavigation({ store, state, renderer, canvas, onMove: (move) => moved(move) }); // later
  const size = () => nav.size;
  const compare = createCompare({ store, renderer, primary: scene, stage: $('stage'), size, label, clock, onChange: (c) => compareChanged(c), onError });
  const views = createViewReports(embed, () => ({ zoom: state.cam.zoom, center: centreOf(store, state.cam) }));
  const { setT, playback } = createTime({ store, $, label, scene, clock, embed, notices, hook });
  const playing = () => playback.playing;
  const historyWarm = createHistoryWarm({ store, view: () => ({ cam: state.cam, ...nav.size }), playing, onReport: (r) => (hook.historyWarm = r) });
  const fileStem = storeName.replace(/\.zarr$/, '');
  const { inspector, clickAt } = createPick({ store, state, $, inspect: params.controls, hook, size, compare, embed, setT, fileStem });
  const keys = env.page ? document : root;
  const regions = createRegions({ store, state, $, size, setT, shiftClick: (px, py) => clickAt(px, py, { shift: true }), embed, keys, fileStem, onChange: () => address.schedule() }); // later
  clock.on(() => regions.time());
  const wordmark = $('wordmark', HTMLAnchorElement);
  const address = createAddress({ store, params, env, state, clock, compare, regions, wordmark, hook });
  const controls = createControls({ $, playback, onProduct: (id) => shown.setProduct(id), onBand: (i) => shown.setBand(i, true) }); // later
  const shown = createShowing({ store, state, $, canvas, scene, compare, size, label, controls, inspector, playing, onChange: () => (address.schedule(), regions.look()) });
  const { overlays } = shown;
  const embedded = params.embed || !env.page;
  const { tools, compareChanged } = createChrome({ store, state, $, embedded, page: env.page, root, canvas, wordmark, storeName, label, nav, scene, compare, overlays, inspector, playback, clickAt, setT, address, embed, regions });

  /** A frame was painted. @param {import('../lib/scene.js').FrameRecord} frame */
  function painted(frame) {
    shown.frame(frame);
    firstFrames.frame(frame);
    historyWarm.frame(frame);
    loading.watch();
  }
  /** The camera moved: the scene and split view show it, the rest follow. @param {import('./navigate.js').Move} move */
  function moved({ cam, size: canvasSize, lod, quiet }) {
    scene.setView(cam, canvasSize, lod);
    compare.setView(cam, canvasSize, lod);
    overlays.view();
    inspector.place();
    regions.view();
    loading.watch();
    address.schedule();
    if (!quiet) views.schedule();
  }

  nav.watch();
  return { clock, renderer, scene, loading, nav, compare, views, setT, playback, historyWarm, inspector, clickAt, regions, address, controls, shown, tools, compareChanged };
}

/**
 * The first view: the state the address asked for, shown at once.
 * @param {Pick<Opened, 'store' | 'state' | 'params' | '$' | 'notices'> & Pick<ReturnType<typeof wire>, 'shown' | 'controls' | 'clock' | 'compare' | 'tools' | 'nav' | 'regions'>} o
 */
function show({ store, state, params, $, notices, shown, controls, clock, compare, tools, nav, regions }) {
  $('status').textContent = '';
  shown.setProduct(state.product);
  controls.band(state.band);
  clock.set(state.t, 'open');
  if (params.compare != null && params.compare < store.times.length) compare.set({ t: params.compare, split: params.split ?? 0.5 });
  tools.compareChanged();
  nav.update({ quiet: true });
  const asked = decodeRegions(params.region);
  if (asked.shapes.length) regions.set(asked.shapes);
  if (asked.bad.length) notices.toast(`The address's region was left out: ${asked.bad[0]}`);
}
