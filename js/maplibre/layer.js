/**
 * ChronozarrLayer: a chronozarr store drawn on a MapLibre GL JS map (>= 5) as a custom layer.
 *
 * The store opens when the layer is made. Which cells load, when a new timestep may replace the
 * one on screen (only once every visible cell of the wanted level has it, so no frame mixes
 * timesteps) and which coarser cells stand in while loading is the viewer's scene (lib/scene.js);
 * drawing.js feeds it the map's view and hands the frames it lists to the GPU side, which render
 * draws with MapLibre's matrix. This module is the layer's API and MapLibre's CustomLayerInterface.
 * @module
 */
import { fromLonLat } from '../lib/geo.js';
import { productList } from '../lib/products.js';
import { openDataset, projectGeometry } from '../src/index.js';
import { createDrawing } from './drawing.js';
import { createEmitter } from './events.js';
import { createFrameLog, layerStats } from './frames.js';
import { createLook } from './look.js';
import { placement } from './mercator.js';
import { bandIndex, checkLevelAndTone, checkProduct, checkRange, checkTime, clamp01 } from './options.js';
import { checkedStart } from './start.js';
import { valueAt, valueDrawn } from './values.js';

/** @typedef {import('./options.js').LayerOptions} LayerOptions */

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
  /** @type {ReturnType<typeof createDrawing> | null} */ #drawing = null;
  /** @type {any} */ #map = null;
  /** @type {WebGL2RenderingContext | null} */ #gl = null;
  #t;
  #look;
  #opacity;
  #removed = false;
  /** @type {Set<string>} */ #warned = new Set();
  #drawn = createFrameLog(FRAMES_KEPT);

  /** @param {LayerOptions} options */
  constructor(options) {
    if (!options || typeof options.url !== 'string' || !options.url) throw new TypeError(`ChronozarrLayer needs options.url, the store root; got ${JSON.stringify(options?.url)}`);
    const { lodBias, stretchLo } = checkLevelAndTone(options);
    this.#opts = { ...options, lodBias };
    this.id = options.id ?? 'chronozarr';
    this.#t = options.t ?? 0;
    this.#look = createLook({ product: options.product ?? null, band: options.band ?? 0, range: options.range ?? null, stretchLo });
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
      store = await openDataset(this.#opts.url, { ...this.#opts.storeOptions, signal });
      if (this.#removed) throw new Error('the layer was removed while its store opened');
      const place = placement(store);
      this.#place = place;
      this.#store = store;
      const look = this.#look;
      look.store = store;
      this.bounds = place.bounds();
      const start = checkedStart(store, { t: this.#t, band: look.band, product: look.product }, (error) => this.#fail(error));
      this.#t = start.t;
      look.band = start.band;
      look.product = start.product;
      this.#drawing = createDrawing({
        store,
        place,
        opts: this.#opts,
        t: this.#t,
        look,
        drawn: this.#drawn,
        events: this.#events,
        fail: (error, where) => this.#fail(error, where),
      });
      if (this.#gl) this.#drawing.attach(this.#map, this.#gl);
      this.#events.emit('open');
      return this;
    } catch (error) {
      if (!this.#removed) this.#fail(error);
      store?.close();
      throw error;
    }
  }

  // ---- MapLibre's CustomLayerInterface ----------------------------------------------------------

  /** @param {any} map @param {WebGL2RenderingContext} gl */
  onAdd(map, gl) {
    if (this.#removed) throw new Error('a removed ChronozarrLayer cannot be added again; make a new one');
    this.#map = map;
    this.#gl = gl;
    this.#drawing?.attach(map, gl);
  }

  onRemove() {
    this.#dispose();
  }

  /**
   * @param {WebGL2RenderingContext} _gl
   * @param {any} args MapLibre >= 5 passes { defaultProjectionData: { mainMatrix }, ... }
   */
  render(_gl, args) {
    const d = this.#drawing;
    if (!d || this.#removed) return;
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
    d.updateView();
    let record;
    try {
      record = d.gpu.render(matrix, this.#opacity);
    } catch (error) {
      this.#warnOnce('render', error);
      return;
    }
    d.drew(record);
  }

  // ---- public API --------------------------------------------------------------------------------

  /**
   * Show timestep `t`. What is on screen stays until every visible cell has `t`; cached chunks
   * are not fetched again.
   * @param {number} t
   */
  setTime(t) {
    this.#t = this.#store ? checkTime(this.#store, t) : t;
    this.#drawing?.setTime(this.#t);
  }

  /**
   * @param {string} id a product of `layer.products` the store's bands allow
   * @param {number | string} [band] for 'band': the band's index or name
   */
  setProduct(id, band) {
    if (band != null) this.setBand(band);
    this.#look.product = this.#store ? checkProduct(this.#store, id) : id;
    this.#look.auto = null;
    this.#drawing?.applyLook();
  }

  /** The band the 'band' product shows. @param {number | string} band index or name */
  setBand(band) {
    this.#look.band = this.#store ? bandIndex(this.#store, band) : band;
    this.#look.auto = null;
    this.#drawing?.applyLook();
  }

  /** A fixed linear stretch in physical units, or null for the default look. @param {[number, number] | null} range */
  setRange(range) {
    this.#look.range = checkRange(range);
    this.#drawing?.applyLook();
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
   * An area's statistics per date and band (the reader's readRegionSeries, the numbers Python's
   * read_region_series gives): `geojson` is a Polygon, MultiPolygon, Point or Feature, or a
   * [west, south, east, north] box, in longitude and latitude as the map gives them.
   * @param {any} geojson
   * @param {{ lod?: number, bands?: string[], signal?: AbortSignal, priority?: import('../src/reader/limiter.js').Priority }} [options]
   */
  async queryRegion(geojson, options = {}) {
    await this.opened;
    const crs = this.#store.crs;
    const project = (/** @type {number} */ lon, /** @type {number} */ lat) => {
      const p = /** @type {{ x: number, y: number }} */ (fromLonLat(crs, lon, lat)); // not null: the layer placed the store
      return /** @type {[number, number]} */ ([p.x, p.y]);
    };
    return this.#store.readRegionSeries(projectGeometry(geojson, project), { signal: this.#open.signal, ...options });
  }

  /**
   * The pixel under `lngLat` in the frame on the map, from the chunks it drew (no request): the
   * finest level drawn there and its timestep, with stored and physical values. Null outside the
   * footprint or where nothing is drawn yet.
   * @param {{ lng: number, lat: number } | [number, number]} lngLat
   */
  valueOnScreen(lngLat) {
    if (!this.#drawing || !this.#place) return null;
    return valueDrawn(this.#store, this.#drawing.scene, this.#place, lngLat);
  }

  /** The look drawn now (products.js lookFor: mode, bands, range), null before the store opens. */
  get look() {
    return this.#look.current();
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
    return this.#store ? productList(this.#store.attrs.bands) : [];
  }
  get t() {
    return this.#t;
  }
  get product() {
    return this.#look.product;
  }
  get band() {
    return this.#look.band;
  }
  get opacity() {
    return this.#opacity;
  }
  /** The pyramid level the map's zoom asks for. */
  get lod() {
    return this.#drawing?.scene.lod ?? null;
  }
  /** Frames drawn on the map, oldest first: { n, t, lod, complete, cells: [{ lod, row, col, t }] }. */
  get frames() {
    return this.#drawn.frames;
  }
  get stats() {
    return layerStats(this.#drawing?.scene ?? null, this.#drawing?.gpu ?? null);
  }

  // ---- internals ---------------------------------------------------------------------------------

  /** @param {unknown} error @param {{ lod: number, row: number, col: number, t: number }} [where] the cell whose load failed */
  #fail(error, where) {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.#events.count('error')) this.#events.emit('error', { error: err, where });
    else console.error(err);
  }

  /** Report `error` the first time only: render runs every frame. @param {string} key @param {unknown} error */
  #warnOnce(key, error) {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#fail(error);
  }

  #dispose() {
    if (this.#removed) return;
    this.#removed = true;
    this.#drawing?.dispose();
    this.#open.abort();
    this.#store?.close();
    this.#drawing = null;
    this.#map = null;
    this.#gl = null;
    this.#events.clear();
  }
}
