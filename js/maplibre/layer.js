/**
 * ChronozarrLayer: a chronozarr store drawn on a MapLibre GL JS map (>= 5) as a custom layer.
 *
 * The store opens when the layer is made. Which cells load, when a new timestep may replace the
 * one on screen (only once every visible cell of the wanted level has it, so no frame mixes
 * timesteps) and which coarser cells stand in while loading is the viewer's scene (lib/scene.js);
 * this module feeds it the map's view and draws the frames it lists with MapLibre's matrix.
 * @module
 */
import { defaultProduct, lookFor, productList } from '../lib/products.js';
import { createScene } from '../lib/scene.js';
import { percentileRange } from '../lib/stretch.js';
import { openStore } from '../src/index.js';
import { bandIndex, checkProduct, checkRange, checkTime, clamp01 } from './options.js';
import { createEmitter } from './events.js';
import { createFrameLog, layerStats } from './frames.js';
import { createGpu } from './gpu.js';
import { placement } from './mercator.js';
import { valueAt, valueDrawn } from './values.js';
import { mapView } from './view.js';

/** @typedef {import('./options.js').LayerOptions} LayerOptions */

const EMPTY_VIEW = /** @type {const} */ ([{ cx: 0, cy: 0, zoom: 1 }, { w: 0, h: 0, dpr: 1 }]);
const PREFETCH_DELAY_MS = 150;
const FRAMES_KEPT = 5000;

export class ChronozarrLayer {
  /** @type {'custom'} */
  type = 'custom';
  /** @type {'2d'} */
  renderingMode = '2d';
  /** [[west, south], [east, north]] of the store's footprint, once open (for map.fitBounds). */
  bounds = /** @type {[[number, number], [number, number]] | null} */ (null);
  /** @type {string} */
  id;
  /** Resolves with the layer when the store's metadata is read; rejects when it cannot be. */
  opened;

  #opts;
  #events = createEmitter();
  #open = new AbortController();
  /** @type {any} */ #store = null;
  /** @type {ReturnType<typeof placement> | null} */ #place = null;
  #texel0 = 0;
  /** @type {ReturnType<typeof createGpu> | null} */ #gpu = null;
  /** @type {ReturnType<typeof createScene> | null} */ #scene = null;
  /** @type {any} */ #map = null;
  /** @type {WebGL2RenderingContext | null} */ #gl = null;
  #t;
  /** @type {string | null} */ #product;
  /** @type {number | string} */ #band;
  /** @type {[number, number] | null} */ #range;
  /** @type {[number, number] | null} */ #auto = null;
  #opacity;
  #viewKey = '';
  #stretchKey = '';
  /** @type {boolean | null} */ #ready = null;
  #removed = false;
  /** @type {ReturnType<typeof setTimeout> | 0} */ #prefetchTimer = 0;
  /** @type {Set<string>} */ #warned = new Set();
  #drawn = createFrameLog(FRAMES_KEPT);

  /** @param {LayerOptions} options */
  constructor(options) {
    if (!options || typeof options.url !== 'string' || !options.url) throw new TypeError(`ChronozarrLayer needs options.url, the store root; got ${JSON.stringify(options?.url)}`);
    this.#opts = options;
    this.id = options.id ?? 'chronozarr';
    this.#t = options.t ?? 0;
    this.#product = options.product ?? null;
    this.#band = options.band ?? 0;
    this.#range = options.range ?? null;
    this.#opacity = clamp01(options.opacity ?? 1);
    this.opened = this.#openStore();
    this.opened.catch(() => {}); // reported as an 'error' event
  }

  async #openStore() {
    const user = this.#opts.storeOptions?.signal;
    const signal = user ? AbortSignal.any([user, this.#open.signal]) : this.#open.signal;
    /** @type {any} */
    let store = null;
    try {
      store = await openStore(this.#opts.url, { ...this.#opts.storeOptions, signal });
      if (this.#removed) throw new Error('the layer was removed while its store opened');
      this.#place = placement(store);
      this.#store = store;
      this.#texel0 = this.#place.texelSize();
      this.bounds = this.#place.bounds();
      // A bad start option is reported and replaced by its default rather than losing the layer.
      this.#t = this.#orDefault(() => checkTime(this.#store, this.#t), 0);
      this.#band = this.#orDefault(() => bandIndex(this.#store, this.#band), 0);
      const fallback = defaultProduct(store.bands);
      this.#product = this.#orDefault(() => checkProduct(this.#store, this.#product ?? fallback), fallback);
      const gpu = createGpu({ dtype: store.dtype, nBands: store.bands.length, toMercator: this.#place.toMercator, divisions: this.#opts.meshDivisions });
      this.#gpu = gpu;
      this.#scene = createScene({
        store,
        renderer: gpu.renderer,
        gpuBudgetBytes: this.#opts.gpuBudgetBytes,
        onFrame: (record) => this.#onFrame(record),
        onError: (error, where) => this.#fail(error, where),
      });
      // An empty view first: the scene loads nothing until the map's view is known.
      this.#scene.setView(...EMPTY_VIEW, 0);
      this.#scene.setTime(this.#t);
      this.#applyLook();
      if (this.#gl) this.#start();
      this.#events.emit('open');
      return this;
    } catch (error) {
      if (!this.#removed) this.#fail(error);
      store?.close();
      throw error;
    }
  }

  /** @template T @param {() => T} get @param {T} fallback */
  #orDefault(get, fallback) {
    try {
      return get();
    } catch (error) {
      this.#fail(error);
      return fallback;
    }
  }

  /** Both the store and the map are there: compile the shaders and show the map's view. */
  #start() {
    this.#gpu?.attach(/** @type {WebGL2RenderingContext} */ (this.#gl));
    this.#updateView();
    this.#map.triggerRepaint();
  }

  // ---- MapLibre's CustomLayerInterface ----------------------------------------------------------

  /** @param {any} map @param {WebGL2RenderingContext} gl */
  onAdd(map, gl) {
    if (this.#removed) throw new Error('a removed ChronozarrLayer cannot be added again; make a new one');
    this.#map = map;
    this.#gl = gl;
    if (this.#scene) this.#start();
  }

  onRemove() {
    this.#dispose();
  }

  /**
   * @param {WebGL2RenderingContext} _gl
   * @param {any} args MapLibre >= 5 passes { defaultProjectionData: { mainMatrix }, ... }
   */
  render(_gl, args) {
    if (!this.#scene || !this.#gpu || this.#removed) return;
    const matrix = args?.defaultProjectionData?.mainMatrix;
    if (!matrix) {
      this.#warnOnce('matrix', new Error('ChronozarrLayer needs MapLibre GL JS 5 or later: render() was not given defaultProjectionData.mainMatrix'));
      return;
    }
    const projection = this.#map.getProjection?.()?.type;
    if (projection && projection !== 'mercator') {
      this.#warnOnce('projection', new Error(`ChronozarrLayer draws on the Web Mercator projection only; the map uses ${JSON.stringify(projection)}`));
      return;
    }
    this.#updateView();
    let record;
    try {
      record = this.#gpu.render(matrix, this.#opacity);
    } catch (error) {
      this.#warnOnce('render', error);
      return;
    }
    this.#drawn.drew(record);
    this.#checkReady();
  }

  // ---- public API --------------------------------------------------------------------------------

  /**
   * Show timestep `t`. What is on screen stays until every visible cell has `t`; cached chunks
   * are not fetched again.
   * @param {number} t
   */
  setTime(t) {
    this.#t = this.#store ? checkTime(this.#store, t) : t;
    if (!this.#scene) return;
    this.#scene.setTime(this.#t);
    this.#afterChange();
  }

  /**
   * @param {string} id a product of `layer.products` the store's bands allow
   * @param {number | string} [band] for 'band': the band's index or name
   */
  setProduct(id, band) {
    if (band != null) this.setBand(band);
    this.#product = this.#store ? checkProduct(this.#store, id) : id;
    this.#auto = null;
    this.#applyLook();
  }

  /** The band the 'band' product shows. @param {number | string} band index or name */
  setBand(band) {
    this.#band = this.#store ? bandIndex(this.#store, band) : band;
    this.#auto = null;
    this.#applyLook();
  }

  /** A fixed linear stretch in physical units, or null for the default look. @param {[number, number] | null} range */
  setRange(range) {
    this.#range = checkRange(range);
    this.#applyLook();
  }

  /** @param {number} opacity 0 to 1 */
  setOpacity(opacity) {
    this.#opacity = clamp01(opacity);
    this.#map?.triggerRepaint();
  }

  /**
   * The level-0 pixel under `lngLat` at the current timestep, read through the reader (exact
   * stored values; fetched when not cached). Null outside the footprint.
   * @param {{ lng: number, lat: number } | [number, number]} lngLat
   */
  async getValueAt(lngLat) {
    await this.opened;
    return valueAt(this.#store, /** @type {ReturnType<typeof placement>} */ (this.#place), lngLat, this.#t, this.#open.signal);
  }

  /**
   * The pixel under `lngLat` in the frame on the map, from the chunks it drew (no request): the
   * finest level drawn there and its timestep, with stored and physical values. Null outside the
   * footprint or where nothing is drawn yet.
   * @param {{ lng: number, lat: number } | [number, number]} lngLat
   */
  valueOnScreen(lngLat) {
    if (!this.#scene || !this.#place) return null;
    return valueDrawn(this.#store, this.#scene, this.#place, lngLat);
  }

  /** The look drawn now (products.js lookFor: mode, bands, range), null before the store opens. */
  get look() {
    return this.#look();
  }

  /** @param {'open' | 'loading' | 'ready' | 'error'} type @param {(event: any) => void} fn @returns {() => void} unsubscribe */
  on(type, fn) {
    return this.#events.on(type, fn);
  }

  /** @param {string} type @param {(event: any) => void} fn */
  off(type, fn) {
    this.#events.off(type, fn);
  }

  /** Take the layer off its map and free GPU objects, decode workers and requests in flight. */
  remove() {
    if (this.#map && !this.#removed && this.#map.getLayer?.(this.id)) this.#map.removeLayer(this.id);
    else this.#dispose();
  }

  get store() {
    return this.#store;
  }
  get times() {
    return this.#store ? [...this.#store.times] : [];
  }
  get bandNames() {
    return this.#store ? [...this.#store.bandNames] : [];
  }
  get products() {
    return this.#store ? productList(this.#store.bands) : [];
  }
  get t() {
    return this.#t;
  }
  get product() {
    return this.#product;
  }
  get band() {
    return this.#band;
  }
  get opacity() {
    return this.#opacity;
  }
  /** The pyramid level the map's zoom asks for. */
  get lod() {
    return this.#scene?.lod ?? null;
  }
  /** Frames drawn on the map, oldest first: { n, t, lod, complete, cells: [{ lod, row, col, t }] }. */
  get frames() {
    return this.#drawn.frames;
  }
  get stats() {
    return layerStats(this.#scene, this.#gpu);
  }

  // ---- internals ---------------------------------------------------------------------------------

  /** The look of the current product, band and stretch; null before the store opens. */
  #look() {
    if (!this.#store || !this.#product) return null;
    return lookFor(this.#store, { product: this.#product, band: Number(this.#band), range: this.#range, auto: this.#auto });
  }

  #applyLook() {
    const look = this.#look();
    if (look && this.#scene) this.#scene.setLook(look);
  }

  /** Give the scene the map's view when it changed (the scene loads what the view needs). */
  #updateView() {
    if (!this.#map || !this.#scene || !this.#place) return;
    const v = mapView(this.#map, this.#place, this.#store.levels.length, this.#texel0);
    const key = `${v.cam.cx},${v.cam.cy},${v.size.w},${v.size.h},${v.lod}`;
    if (key === this.#viewKey) return;
    this.#viewKey = key;
    this.#scene.setView(v.cam, v.size, v.lod);
    this.#afterChange();
  }

  #afterChange() {
    this.#checkReady();
    this.#schedulePrefetch();
  }

  /** The scene listed a new frame: it becomes the one render draws. */
  #onFrame(record) {
    this.#gpu?.commit(record);
    this.#updateStretch(record);
    this.#map?.triggerRepaint();
  }

  /** The percentile stretch of a linear look follows what is on screen. */
  #updateStretch(record) {
    const look = this.#look();
    if (!look || look.mode !== 'linear' || this.#range || !record.cells.length) return;
    const key = `${record.t}|${record.lod}|${record.complete}|${record.cells.length}|${this.#viewKey}|${this.#product}|${this.#band}`;
    if (key === this.#stretchKey) return;
    this.#stretchKey = key;
    const r = percentileRange(/** @type {any} */ (this.#scene).sampleVisible(look.bands));
    if (r && (!this.#auto || r[0] !== this.#auto[0] || r[1] !== this.#auto[1])) {
      this.#auto = r;
      this.#applyLook();
    }
  }

  /** 'loading' when the view needs data, 'ready' once a complete frame of it has been drawn. */
  #checkReady() {
    const s = this.#scene;
    if (!s) return;
    const ready = this.#drawn.complete(s, this.#gpu?.frame?.n);
    if (ready === this.#ready) return;
    this.#ready = ready;
    this.#events.emit(ready ? 'ready' : 'loading');
    if (ready) this.#schedulePrefetch();
  }

  #schedulePrefetch() {
    if (!this.#opts.prefetch || !this.#scene || !this.#ready) return;
    clearTimeout(this.#prefetchTimer);
    this.#prefetchTimer = setTimeout(() => {
      const s = this.#scene;
      if (!s || this.#removed) return;
      const cells = s.visibleAt(s.lod);
      if (cells.length) this.#store.prefetch({ lod: s.lod, cells, t: this.#t, masks: this.#store.hasMask, stored: s.shaderDelta }).catch(() => {});
    }, PREFETCH_DELAY_MS);
  }

  /** @param {unknown} error @param {any} [where] */
  #fail(error, where) {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.#events.count('error')) this.#events.emit('error', { error: err, where });
    else console.error(err);
  }

  #warnOnce(key, error) {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#fail(error);
  }

  #dispose() {
    if (this.#removed) return;
    this.#removed = true;
    clearTimeout(this.#prefetchTimer);
    this.#scene?.destroy();
    this.#gpu?.dispose();
    this.#open.abort();
    this.#store?.close();
    this.#scene = null;
    this.#gpu = null;
    this.#map = null;
    this.#gl = null;
    this.#events.clear();
  }
}
