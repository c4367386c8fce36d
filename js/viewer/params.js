/**
 * The viewer's URL: what it reads on open and what it keeps up to date with replaceState.
 * @module
 */

/**
 * @typedef {object} ViewerParams
 * @property {string | null} store
 * @property {string | null} catalog URL of the catalog of stores the full viewer offers (catalog.js)
 * @property {boolean} embed
 * @property {boolean} controls
 * @property {'dark' | 'light'} theme
 * @property {string | null} origin the raw origin parameter (validated by embed.js)
 * @property {boolean} hasOrigin
 * @property {number | null} t
 * @property {string | null} p
 * @property {string | null} b
 * @property {number | null} z
 * @property {[number, number] | null} c
 * @property {[number, number] | null} range fixed stretch range (physical units)
 * @property {number | null} compare timestep B of the split view (right of the divider)
 * @property {number | null} split the divider, 0 (left edge) to 1 (right edge)
 * @property {string | null} region the regions drawn, `bbox:w,s,e,n` or `poly:x1,y1,...` in the store's CRS, `;` between them (region-shapes.js)
 */

/**
 * @param {string} search location.search
 * @returns {ViewerParams}
 */
export function readParams(search) {
  const q = new URLSearchParams(search);
  const embed = q.get('embed') === '1';
  /** @param {string} key */
  const num = (key) => {
    const raw = q.get(key);
    if (raw == null || raw.trim() === '') return null;
    const v = Number(raw);
    return Number.isFinite(v) ? v : null;
  };
  /** @param {string} key */
  const pair = (key) => {
    const raw = q.get(key);
    if (!raw) return null;
    const parts = raw.split(',').map(Number);
    return parts.length === 2 && parts.every(Number.isFinite) ? /** @type {[number, number]} */ (parts) : null;
  };
  const t = num('t');
  const z = num('z');
  const cmp = num('compare');
  const split = num('split');
  return {
    store: q.get('store') || null,
    catalog: q.get('catalog') || null,
    embed,
    controls: !(embed && q.get('controls') === '0'),
    theme: embed && q.get('theme') === 'light' ? 'light' : 'dark',
    origin: q.get('origin'),
    hasOrigin: q.has('origin'),
    t: t != null && Number.isInteger(t) && t >= 0 ? t : null,
    p: q.get('p'),
    b: q.get('b'),
    z: z != null && z > 0 ? z : null,
    c: pair('c'),
    range: pair('range'),
    compare: cmp != null && Number.isInteger(cmp) && cmp >= 0 ? cmp : null,
    split: split != null && split >= 0 && split <= 1 ? split : null,
    region: q.get('region') || null,
  };
}

/**
 * The URL of the current state: `t`, `p`, `b`, `z`, `c`, `range`, `compare`, `split` and `region`
 * replaced (the last four dropped when unset), every other parameter (store, embed, controls, theme,
 * origin) kept as it was.
 * @param {string} href current location
 * @param {{ t: number, product: string, band: string, zoom: number, center: [number, number], range?: [number, number] | null, compare?: { t: number, split: number } | null, region?: string | null }} state
 */
export function stateUrl(href, state) {
  const url = new URL(href);
  const q = url.searchParams;
  q.set('t', String(state.t));
  q.set('p', state.product);
  q.set('b', state.band);
  q.set('z', formatNumber(state.zoom, 5));
  q.set('c', state.center.map((v) => formatNumber(v, 10)).join(','));
  if (state.range) q.set('range', state.range.map((v) => formatNumber(v, 8)).join(','));
  else q.delete('range');
  if (state.compare) {
    q.set('compare', String(state.compare.t));
    q.set('split', formatNumber(state.compare.split, 4));
  } else {
    q.delete('compare');
    q.delete('split');
  }
  if (state.region) q.set('region', state.region);
  else q.delete('region');
  url.search = readableQuery(q);
  return url.href;
}

/** The view's parameters: they belong to one store, so another store starts without them. */
const VIEW_KEYS = ['t', 'p', 'b', 'z', 'c', 'range', 'compare', 'split', 'region'];

/**
 * The URL of the page on another store (a catalog's pick): `store` set, the view's parameters
 * dropped, the rest (catalog, embed, ...) kept.
 * @param {string} href current location @param {string} store
 */
export function storeUrl(href, store) {
  const url = new URL(href);
  for (const key of VIEW_KEYS) url.searchParams.delete(key);
  url.searchParams.set('store', store);
  url.search = readableQuery(url.searchParams);
  return url.href;
}

/**
 * Keep the URLs in "store" and "catalog" and the regions in "region" readable: URLSearchParams
 * would percent-encode their slashes, colons, commas and semicolons.
 * @param {URLSearchParams} q
 */
function readableQuery(q) {
  const parts = [];
  for (const [k, v] of q) parts.push(`${k}=${k === 'store' || k === 'catalog' ? encodeUrl(v) : k === 'region' ? encodeURIComponent(v).replace(/%3A/gi, ':').replace(/%2C/gi, ',').replace(/%3B/gi, ';') : encodeURIComponent(v)}`);
  return parts.join('&');
}

/** @param {string} v */
function encodeUrl(v) {
  return encodeURIComponent(v).replace(/%2F/gi, '/').replace(/%3A/gi, ':');
}

/** A number with at most `digits` significant digits and no trailing zeros. @param {number} v @param {number} digits */
export function formatNumber(v, digits) {
  return String(Number(v.toPrecision(digits)));
}

/** The full viewer's URL of an embed (embed parameters dropped). @param {string} href */
export function fullViewerUrl(href) {
  const url = new URL(href);
  for (const key of ['embed', 'controls', 'theme', 'origin']) url.searchParams.delete(key);
  return url.href;
}
