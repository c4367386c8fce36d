/**
 * The viewer app in an element: opens the store, wires the scene, controls, inspector, URL state
 * and embed API. The standalone page (main.js) and mountViewer (mount.js) run it.
 * @module
 */
import { clampCamera, fitCamera, levelFor, pixelToScreen, screenToPixel, zoomLimits } from '../lib/camera.js';
import { parseCrs } from '../lib/geo.js';
import { lookFor, productList } from '../lib/products.js';
import { createScene } from '../lib/scene.js';
import { openStore } from '../src/index.js';
import { createAddress } from './address.js';
import { applySetFields } from './apply-set.js';
import { createCompare } from './compare.js';
import { createControls } from './controls.js';
import { cursorInfo } from './cursor.js';
import { createEmbed } from './embed.js';
import { initialState, warmFirstView } from './first-view.js';
import { attachInput } from './input.js';
import { createInspector } from './inspect.js';
import { createNotices } from './notices.js';
import { createOverlays } from './overlays.js';
import { createPlayback, snapSpeed } from './playback.js';
import { acquireContext, createRenderer, cssSize } from './renderer.js';
import { centreOf, clickReport, readyReport } from './reports.js';
import { validateSet } from './setfields.js';
import { createTimeline } from './timeline.js';
import { createTools } from './tools.js';
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
  const n = store.times.length;
  const bands = store.bands;
  const level0 = store.levels[0];
  const geo = store.crs != null;
  const products = productList(bands);
  const canvas = /** @type {HTMLCanvasElement} */ ($('map'));
  const label = (t) => store.times[t].slice(0, 10);
  const storeName = decodeURIComponent(new URL(store.url).pathname.replace(/\/+$/, '').split('/').pop() || store.url);
  const notices = createNotices({ $, embed, label });

  let size = cssSize(canvas);
  const state = initialState(store, params, products, size);
  const limits = () => zoomLimits(level0, size.w, size.h, size.dpr);
  const warm = new AbortController();
  warmFirstView(store, state, size, warm.signal);

  // Let those reads reach fetch (a chain of promise jobs) before the synchronous setup below.
  await new Promise((resolve) => setTimeout(resolve, 0));

  const renderer = createRenderer(canvas, { dtype: store.dtype, nBands: bands.length });
  const scene = createScene({
    store,
    renderer,
    onFrame,
    onError: (err, where) => notices.chunkFailed(err, where),
  });
  hook.frames = scene.frames;
  const compare = createCompare({
    store,
    renderer,
    primary: scene,
    stage: $('stage'),
    size: () => size,
    label,
    tA: () => state.t,
    onChange: (c) => compareChanged(c),
    onError: (err, where) => notices.chunkFailed(err, where),
  });

  size = renderer.resize();

  function updateView({ quiet = false } = {}) {
    state.cam = clampCamera(state.cam, limits(), level0);
    const lod = levelFor(state.cam.zoom, store.levels.length);
    scene.setView(state.cam, size, lod);
    compare.setView(state.cam, size, lod);
    overlays.view();
    inspector.place();
    schedulePrefetch(true);
    scheduleUrl();
    if (!quiet) views.schedule();
  }
  const views = createViewReports(embed, () => ({ zoom: state.cam.zoom, center: centreOf(store, state.cam) }));

  // ---- look ---------------------------------------------------------------------------------
  const look = () => lookFor(store, state);
  function applyLook() {
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
    sample: (b) => scene.sampleVisible(b),
    locate: (px, py) => cursorInfo(store, state.cam, size, px, py, (x, y, sx) => compare.pick(x, y, sx)),
    setRange: (r) => {
      state.range = r;
      overlays.reset();
      if (!r) scene.redraw();
      applyLook();
      scheduleUrl();
    },
  });

  function onFrame(frame) {
    $('readout').textContent = store.times[frame.t].slice(0, 10);
    $('readout').dataset.t = String(frame.t);
    if (overlays.frame(frame, look(), Boolean(playback?.playing))) applyLook();
    if (!firstFrame) {
      firstFrame = true;
      hook.firstFrameAt = performance.now();
    }
    if (frame.complete && !firstComplete) {
      firstComplete = true;
      hook.firstCompleteAt = performance.now();
      const { requests, bytes } = store.stats();
      hook.firstCompleteReads = { requests, bytes };
      if (prefetchWanted) schedulePrefetch(true);
    }
  }
  let firstFrame = false;
  let firstComplete = false;

  // ---- time ---------------------------------------------------------------------------------
  const timeline = createTimeline($('timeline'), { times: store.times, onPick: (t) => setT(t), label });
  function setT(t, { fromPlayback = false } = {}) {
    t = Math.max(0, Math.min(n - 1, Math.trunc(t)));
    if (!fromPlayback && playback.playing && t !== state.t) playback.stop();
    const changed = t !== state.t;
    state.t = t;
    scene.setTime(t);
    timeline.set(t);
    $('date').textContent = `${label(t)}  (${t + 1}/${n})`;
    compare.layout();
    if (changed) {
      embed.send('chronozarr:time', { t, time: store.times[t] });
      if (!playback.playing) schedulePrefetch(false);
      scheduleUrl();
    }
  }

  /** @type {ReturnType<typeof setTimeout> | 0} */ let prefetchTimer = 0;
  /** Prefetch waits for the first complete frame: until then the visible cells have the network and the decode worker to themselves. */
  let prefetchWanted = false;
  function schedulePrefetch(viewChanged) {
    if (playback?.playing && !viewChanged) return;
    clearTimeout(prefetchTimer);
    prefetchWanted = !firstComplete;
    if (prefetchWanted) return;
    prefetchTimer = setTimeout(() => {
      const lod = scene.lod;
      const cells = scene.visibleAt(lod);
      if (!cells.length) return;
      store.prefetch({ lod, cells, t: state.t, playing: playback.playing, masks: store.hasMask, stored: scene.shaderDelta }).catch(() => {});
    }, 150);
  }

  // ---- playback -----------------------------------------------------------------------------
  let lastPainted = /** @type {number | null} */ (null);
  const playback = createPlayback({
    store,
    view: () => ({ lod: scene.lod, cells: scene.visibleAt(scene.lod) }),
    position: () => ({ wanted: state.t, painted: scene.settled ? lastPaintedT() : null }),
    step: (t) => setT(t, { fromPlayback: true }),
    stored: scene.shaderDelta,
    onState: (s, detail) => {
      const btn = $('play');
      btn.textContent = s === 'stopped' ? '▶' : '❚❚';
      btn.setAttribute('aria-label', s === 'stopped' ? 'Play' : 'Pause');
      btn.setAttribute('aria-pressed', String(s !== 'stopped'));
      $('status').className = 'status';
      $('status').textContent = s === 'buffering' ? `Buffering the loop… ${detail ?? ''}` : '';
      if (s === 'playing') schedulePrefetch(true);
      hook.playback = s;
    },
    onFail: (message) => {
      notices.toast(message);
      embed.error('playback_failed', message);
    },
  });
  function lastPaintedT() {
    const f = scene.frames[scene.frames.length - 1];
    return f ? f.t : null;
  }
  playback.speed = 4;

  // ---- controls -----------------------------------------------------------------------------
  const controls = createControls({ $, products, bands, playback, onProduct: (id) => setProduct(id), onBand: (i) => setBand(i, true) });
  $('inspector-close').addEventListener('click', () => inspector.close());
  const wordmark = /** @type {HTMLAnchorElement} */ ($('wordmark'));
  if (params.embed || !env.page) {
    wordmark.target = '_blank';
    wordmark.rel = 'noopener';
  }
  $('store-name').textContent = storeName;
  if (env.page) document.title = `${storeName} · chronozarr`;

  function setProduct(id) {
    state.product = id;
    overlays.reset();
    state.auto = null;
    controls.product(id);
    applyLook();
    scene.redraw();
    if (inspector.open) inspector.refresh();
    scheduleUrl();
  }
  function setBand(i, fromUi = false) {
    state.band = i;
    controls.band(i);
    overlays.reset();
    state.auto = null;
    if (fromUi && state.product !== 'band') return setProduct('band');
    applyLook();
    scene.redraw();
    if (inspector.open) inspector.refresh();
    scheduleUrl();
  }

  // ---- inspector ----------------------------------------------------------------------------
  const inspector = createInspector({
    store,
    panel: $('inspector'),
    body: $('inspect-body'),
    chartHost: $('chart-host'),
    markers: $('markers'),
    screenOf: (x, y) => pixelToScreen(state.cam, size.w, size.h, x, y),
    onJump: (t) => setT(t),
    look: () => ({ product: state.product, band: state.band, t: state.t }),
    fileStem: storeName.replace(/\.zarr$/, ''),
  });

  function clickAt(px, py, { shift = false } = {}) {
    const p = screenToPixel(state.cam, size.w, size.h, px, py);
    const x0 = Math.floor(p.x);
    const y0 = Math.floor(p.y);
    if (x0 < 0 || y0 < 0 || x0 >= level0.width || y0 >= level0.height) return null;
    const hit = compare.pick(x0, y0, px);
    if (!hit) return null;
    const { message, stored } = clickReport(store, hit, x0, y0);
    embed.send('chronozarr:click', message);
    hook.lastClick = { ...message, stored };
    if (params.controls) inspector.show({ lod: hit.lod, x: hit.x, y: hit.y, x0, y0, t: message.t, cell: hit.entry.cell }, { add: shift });
    return hook.lastClick;
  }

  attachInput(canvas, {
    pan: (dx, dy) => {
      state.cam = { ...state.cam, cx: state.cam.cx - dx / state.cam.zoom, cy: state.cam.cy - dy / state.cam.zoom };
      updateView();
    },
    zoom: (f, px, py) => zoomAbout(f, px, py),
    click: (px, py, how) => clickAt(px, py, how),
  });

  function zoomAbout(f, px, py) {
    const before = screenToPixel(state.cam, size.w, size.h, px, py);
    const lim = limits();
    const zoom = Math.min(lim.max, Math.max(lim.min, state.cam.zoom * f));
    state.cam = { zoom, cx: before.x - (px - size.w / 2) / zoom, cy: before.y - (py - size.h / 2) / zoom };
    updateView();
  }

  const pan = (dx, dy) => {
    state.cam = { ...state.cam, cx: state.cam.cx - dx / state.cam.zoom, cy: state.cam.cy - dy / state.cam.zoom };
    updateView();
  };
  const tools = createTools({
    store,
    canvas,
    dialogs: $('dialogs'),
    keys: env.page ? document : root,
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
      pan,
      zoom: (f) => zoomAbout(f, size.w / 2, size.h / 2),
      fit: () => {
        state.cam = fitCamera(level0, size.w, size.h);
        updateView();
      },
      play: () => playback.toggle(),
      stopPlayback: () => playback.stop(),
      inspect: (add) => clickAt(size.w / 2, size.h / 2, { shift: add }),
      closePanels: () => inspector.open && (inspector.close(), true),
    },
  });
  /** The split view changed (set: apply it first): button, URL and host follow. */
  function compareChanged(c, set = false) {
    if (set) compare.set(c);
    tools.compareChanged();
    scheduleUrl();
    const cur = compare.state;
    embed.send('chronozarr:compare', { compare: cur ? { t: cur.t, time: store.times[cur.t], split: cur.split } : null });
  }

  const resizer = new ResizeObserver(() => {
    const next = renderer.resize();
    if (next.w === size.w && next.h === size.h && next.dpr === size.dpr) return;
    size = next;
    updateView();
  });
  resizer.observe(canvas);

  // ---- URL ----------------------------------------------------------------------------------
  const address = createAddress({ store, params, env, state, compare, wordmark, hook });
  const scheduleUrl = () => address.schedule();

  // ---- embed set ----------------------------------------------------------------------------
  function validate(fields) {
    return validateSet(fields, { store, products, geoOk: geo && parseCrs(store.crs) != null });
  }
  function applySet(fields) {
    const v = validate(fields);
    if (!v.ok) return;
    applySetFields(v.values, store, state.cam, {
      setBand,
      setProduct,
      setT,
      moveTo: (cam) => {
        state.cam = cam;
        updateView({ quiet: true });
      },
      setSpeed: (speed) => {
        playback.speed = speed;
        controls.speed(playback.speed);
      },
      setCompare: (c) => compareChanged(c, true),
      setPlaying: (playing) => (playing ? playback.play() : playback.stop()),
      viewMoved: () => views.sendNow(),
    });
  }
  function readyPayload() {
    const about = { url: params.store, name: storeName, products };
    return readyReport(store, about, state, { playing: playback.playing, speed: playback.speed, compare: compare.state });
  }

  // ---- go -----------------------------------------------------------------------------------
  $('status').textContent = '';
  setProduct(state.product);
  controls.band(state.band);
  setT(state.t);
  if (params.compare != null && params.compare < n) compare.set({ t: params.compare, split: params.split ?? 0.5 });
  tools.compareChanged();
  updateView({ quiet: true });
  // The scene now reads the cells it needs (joining the early reads); drop the early ones it does not.
  warm.abort();
  views.mark();
  address.write();
  Object.assign(hook.api, {
    store,
    scene,
    state: () => ({ ...state, shownT: scene.shownT, lod: scene.lod, settled: scene.settled, playing: playback.playing, speed: playback.speed, pending: scene.pending }),
    pixel: (x, y) => renderer.readPixel(x, y),
    screenOf: (x, y) => pixelToScreen(state.cam, size.w, size.h, x, y),
    click: (px, py, how) => clickAt(px, py, how),
    setT,
    play: () => playback.play(),
    stop: () => playback.stop(),
    setSpeed: (s) => (playback.speed = snapSpeed(s)),
    setPlaybackBudget: (bytes) => playback.setBudget(bytes),
    embedLog: embed.log,
    look,
    compare,
    tools,
    overlays,
    inspector,
  });
  /** Stop everything: loads, playback, timers, the decode workers. */
  function destroy() {
    resizer.disconnect();
    playback.stop();
    compare.set(null);
    scene.destroy();
    store.close();
    clearTimeout(prefetchTimer);
    for (const part of [address, views, notices]) part.stop();
  }
  return { validate, applySet, readyPayload, destroy };
}

