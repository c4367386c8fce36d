/**
 * `mountViewer(element, options)`: the viewer as a part of any page (`import { mountViewer } from
 * 'chronozarr/viewer'`), with the options of the standalone page's URL parameters. The host gets
 * the viewer's events (the embed API's messages, as calls), can set its state, read its permalink,
 * and remove it.
 * @module
 */
import { runViewer } from './app.js';
import { viewerMarkup } from './markup.js';
import { readParams } from './params.js';

/**
 * @typedef {object} MountOptions the standalone viewer's URL parameters, as values
 * @property {string} store URL of the store (the directory holding zarr.json), absolute or relative to the page
 * @property {number} [t] timestep
 * @property {string} [p] product: true_color, false_color, ndvi, ndwi, water, band
 * @property {string} [b] band name of the band product
 * @property {number} [z] zoom, CSS pixels per level-0 pixel
 * @property {[number, number]} [c] centre in the store's CRS
 * @property {[number, number]} [range] fixed stretch in physical units
 * @property {number} [compare] timestep B of the split view
 * @property {number} [split] the divider, 0 to 1
 * @property {string} [region] regions, as the address's `region` (`bbox:w,s,e,n;poly:x1,y1,...` in the store's CRS)
 * @property {boolean} [controls] false: the map and the date only
 * @property {'dark' | 'light'} [theme]
 */

/**
 * @typedef {object} MountedViewer
 * @property {HTMLElement} element the viewer's root element
 * @property {Promise<void>} ready resolves once the store is open and the view set up; rejects with the reason it could not be
 * @property {(type: string, fn: (fields: Record<string, unknown>) => void) => () => void} on events `ready`, `time`, `view`, `click`, `compare`, `region`, `error` (the embed API's messages); returns the unsubscribe
 * @property {(fields: Record<string, unknown>) => { ok: true } | { ok: false, field: string, message: string }} set the embed API's set fields, validated and applied whole or not at all
 * @property {() => ReturnType<typeof import('./reports.js').readyReport>['state'] | null} state the state the ready message reports
 * @property {() => string | null} permalink the standalone viewer's URL showing this view
 * @property {Record<string, unknown>} api the instrumentation the tests read
 * @property {() => void} destroy close the store and take the viewer out of the page
 */

let mounted = 0;
const STYLES = ['viewer.css', '../lib/legend.css'];

/** The viewer's style sheets, once per document. */
function addStyles() {
  for (const name of STYLES) {
    const href = new URL(name, import.meta.url).href;
    if ([...document.querySelectorAll('link[rel="stylesheet"]')].some((l) => /** @type {HTMLLinkElement} */ (l).href === href)) continue;
    document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href }));
  }
}

/** The options as the parameters the standalone page reads from its URL (one set of rules). @param {MountOptions} o */
function paramsOf(o) {
  if (!o || typeof o.store !== 'string' || !o.store) throw new TypeError(`mountViewer needs options.store, the store's URL; got ${JSON.stringify(o?.store)}`);
  const q = new URLSearchParams();
  for (const key of /** @type {const} */ (['store', 't', 'p', 'b', 'z', 'c', 'range', 'compare', 'split', 'region'])) {
    const v = o[key];
    if (v != null) q.set(key, Array.isArray(v) ? v.join(',') : String(v));
  }
  return { ...readParams(`?${q}`), controls: o.controls !== false, theme: o.theme === 'light' ? /** @type {const} */ ('light') : /** @type {const} */ ('dark') };
}

/**
 * Mount the viewer in `element` (give it a size: the viewer fills it).
 * @param {HTMLElement} element
 * @param {MountOptions} options
 * @returns {MountedViewer}
 */
export function mountViewer(element, options) {
  const params = paramsOf(options);
  addStyles();
  const prefix = `cz${++mounted}-`;
  const root = document.createElement('div');
  root.className = 'cz-viewer';
  root.innerHTML = viewerMarkup(prefix, false);
  element.append(root);
  /** @type {Map<string, Set<(fields: Record<string, unknown>) => void>>} */
  const listeners = new Map();
  const run = runViewer(root, params, {
    page: false,
    prefix,
    fullViewer: new URL('./', import.meta.url).href,
    onEvent: (type, fields) => {
      for (const fn of listeners.get(type.replace(/^chronozarr:/, '')) ?? []) fn(fields);
    },
  });
  const ready = run.ready.then(() => {
    if (run.hook.error) throw new Error(run.hook.error);
  });
  ready.catch(() => {}); // reported through `ready` and the `error` event
  return {
    element: root,
    ready,
    on(type, fn) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type)?.add(fn);
      return () => listeners.get(type)?.delete(fn);
    },
    set(fields) {
      if (!run.app) return { ok: false, field: '', message: 'the viewer is not ready yet: wait for `ready`' };
      const verdict = run.app.validate(fields);
      if (verdict.ok) run.app.applySet(fields);
      return verdict.ok ? { ok: true } : verdict;
    },
    state: () => (run.app ? run.app.readyPayload().state : null),
    permalink: () => run.hook.permalink ?? null,
    api: run.hook.api,
    destroy() {
      run.app?.destroy();
      listeners.clear();
      root.remove();
    },
  };
}
