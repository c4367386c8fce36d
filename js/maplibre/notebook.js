// @ts-check
/**
 * ChronozarrLayer on a notebook map: leafmap's and geemap's `maplibregl.Map`, which are both the
 * `maplibre` package's anywidget MapWidget. That widget turns the calls Python queues into
 * `map[method](...args)` with JSON arguments, so it cannot make a custom layer itself. Python's
 * `add_chronozarr` replaces the widget's front end with a module that imports the original one and
 * passes its render a model whose calls this module rewrites: an `addLayer` of `{ chronozarr: spec }`
 * becomes the layer object, and a `chronozarr` call (`[name, method, ...args]`) goes to that layer.
 * Under the map it puts a date slider, and it tells Python what happened (`open`, `ready`, `time`,
 * `error`).
 *
 * The page has no import map for the reader's codecs, so their URLs come from Python (the local
 * server that serves this file), and chunks decode on the page's thread (`workers: 0`): a worker
 * script from another origin than the notebook's would need a blob: wrapper and a CSP allowing it.
 * @module
 */
import { setCodecUrls } from '../src/reader/codecs.js';
import { ChronozarrLayer } from './layer.js';

/**
 * @typedef {{ url: string, name: string, t?: number, product?: string | null, opacity?: number, fitBounds?: boolean }} Spec
 * @typedef {{ get(key: string): any, set(key: string, value: any): void, save_changes(): void, on(event: string, fn: (...args: any[]) => void): void, off(event?: string, fn?: any): void, send(message: any): void }} Model
 * @typedef {{ render(context: { model: Model, el: HTMLElement }): any }} Widget
 */

/**
 * The map widget's front end, drawing chronozarr layers too.
 * @param {Widget} widget the original front end (its default export)
 * @param {{ codecs: Record<string, string> }} options URLs of numcodecs' zstd, blosc and gzip modules and of zstddec
 * @returns {Widget}
 */
export function wrapMapWidget(widget, { codecs }) {
  setCodecUrls(codecs);
  return { ...widget, render: (context) => widget.render({ ...context, model: chronozarrModel(context.model, context.el) }) };
}

/**
 * The model the original front end sees: the same, but with chronozarr's calls taken out.
 * @param {Model} model @param {HTMLElement} el @returns {Model}
 */
export function chronozarrModel(model, el) {
  /** @type {Map<string, ChronozarrLayer>} */
  const layers = new Map();
  /** @param {[string, any[]][] | undefined} calls @returns {[string, any[]][]} */
  const route = (calls) => (calls ?? []).flatMap(([method, args]) => {
    const spec = method === 'addLayer' ? args?.[0]?.chronozarr : undefined;
    if (spec) return [/** @type {[string, any[]]} */ (['addLayer', [makeLayer(spec, model, el, layers), ...args.slice(1)]])];
    if (method === 'chronozarr') {
      apply(layers, model, args);
      return [];
    }
    return [[method, args]];
  });
  return {
    get: (key) => (key === 'calls' ? route(model.get('calls')) : model.get(key)),
    set: (key, value) => model.set(key, value),
    save_changes: () => model.save_changes(),
    on: (event, fn) => model.on(event, event === 'msg:custom' ? (/** @type {any} */ msg, ...rest) => fn({ ...msg, calls: route(msg?.calls) }, ...rest) : fn),
    off: (event, fn) => model.off(event, fn),
    send: (message) => model.send(message),
  };
}

/** A call from Python: [name, method, ...args] on the layer of that name. @param {Map<string, ChronozarrLayer>} layers @param {Model} model @param {any[]} args */
function apply(layers, model, [name, method, ...args]) {
  const layer = layers.get(name);
  try {
    if (!layer) throw new Error(`no chronozarr layer named ${JSON.stringify(name)} on this map`);
    if (!['setTime', 'setProduct', 'setOpacity'].includes(method)) throw new Error(`${JSON.stringify(method)} is not a layer call`);
    /** @type {any} */ (layer)[method](...args);
    if (method === 'setTime') model.send({ chronozarr: name, event: 'time', t: layer.t });
  } catch (error) {
    report(model, name, error);
  }
}

/** @param {Model} model @param {string} name @param {unknown} error */
function report(model, name, error) {
  console.error(error);
  model.send({ chronozarr: name, event: 'error', message: error instanceof Error ? error.message : String(error) });
}

/**
 * @param {Spec} spec @param {Model} model @param {HTMLElement} el @param {Map<string, ChronozarrLayer>} layers
 */
function makeLayer(spec, model, el, layers) {
  const layer = new ChronozarrLayer({
    id: spec.name, url: spec.url, t: spec.t ?? 0, product: spec.product ?? undefined, opacity: spec.opacity ?? 1, storeOptions: { workers: 0 },
  });
  layers.set(spec.name, layer);
  /** @type {(map: any) => void} */
  let added = () => {};
  const onMap = new Promise((resolve) => (added = resolve));
  const onAdd = layer.onAdd.bind(layer);
  layer.onAdd = (map, gl) => {
    onAdd(map, gl);
    added(map);
  };
  layer.on('error', (event) => report(model, spec.name, event.error));
  layer.on('ready', () => model.send({ chronozarr: spec.name, event: 'ready', t: layer.t }));
  Promise.all([layer.opened, onMap]).then(([, map]) => {
    if (spec.fitBounds !== false && layer.bounds) map.fitBounds(layer.bounds, { padding: 20, duration: 0 });
    el.appendChild(timeSlider(layer, model, spec.name));
    model.send({ chronozarr: spec.name, event: 'open', times: [...layer.times], t: layer.t, product: layer.product });
  }, () => {});
  return layer;
}

/** A range input over the layer's dates, under the map. @param {ChronozarrLayer} layer @param {Model} model @param {string} name */
function timeSlider(layer, model, name) {
  const box = document.createElement('div');
  box.className = 'chronozarr-time';
  box.style.cssText = 'display: flex; gap: 8px; align-items: center; padding: 4px 8px; font: 12px sans-serif;';
  const input = document.createElement('input');
  Object.assign(input, { type: 'range', min: '0', max: String(layer.times.length - 1), step: '1', value: String(layer.t) });
  input.setAttribute('aria-label', `${name}: date`);
  input.style.flex = '1';
  const label = document.createElement('span');
  const show = () => (label.textContent = `${name} ${String(layer.times[layer.t]).slice(0, 10)}`);
  input.addEventListener('input', () => {
    layer.setTime(Number(input.value));
    show();
    model.send({ chronozarr: name, event: 'time', t: layer.t });
  });
  show();
  box.append(input, label);
  return box;
}
