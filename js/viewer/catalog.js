/**
 * The viewer catalog (`?catalog=URL`): a JSON list of named stores that the full viewer offers in a
 * picker in its bar. Picking one opens that store with the catalog still in the address, so a
 * reload brings back the picker and the choice. The embed never reads it (app.js).
 *
 * The document is either a list `[{ "name": "River", "url": "river.zarr" }, ...]` or an object
 * whose `stores` is that list. `url` is required and may be relative: it is resolved against the
 * catalog's own URL; `name` is optional and defaults to the last segment of the store's URL.
 * @module
 */

/** @typedef {{ name: string, url: string }} CatalogEntry a store of the catalog, its URL absolute */

/** A catalog that cannot be fetched or is not the shape above; the message says which. */
export class CatalogError extends Error {}

/** The last segment of a URL's path. @param {string} url */
const lastSegment = (url) => decodeURIComponent(new URL(url).pathname.replace(/\/+$/, '').split('/').pop() || url);

/** A store URL without its trailing slashes, so `a.zarr` and `a.zarr/` are one store. @param {string} url */
const sameStore = (url) => url.replace(/\/+$/, '');

/**
 * The catalog's stores, their URLs resolved against `base` (the catalog's URL).
 * @param {unknown} json the parsed document
 * @param {string} base
 * @returns {CatalogEntry[]}
 */
export function parseCatalog(json, base) {
  const list = Array.isArray(json) ? json : json && typeof json === 'object' && Array.isArray(/** @type {any} */ (json).stores) ? /** @type {any} */ (json).stores : null;
  if (!list) throw new CatalogError('it is neither a JSON list of stores nor an object with a "stores" list');
  if (list.length === 0) throw new CatalogError('it lists no stores');
  return list.map((/** @type {unknown} */ item, /** @type {number} */ i) => {
    const e = /** @type {{ url?: unknown, name?: unknown }} */ (item && typeof item === 'object' ? item : {});
    if (typeof e.url !== 'string' || !e.url) throw new CatalogError(`store ${i + 1} has no "url" string`);
    if (e.name != null && typeof e.name !== 'string') throw new CatalogError(`store ${i + 1} has a "name" that is not a string`);
    let url;
    try {
      url = new URL(e.url, base).href;
    } catch {
      throw new CatalogError(`store ${i + 1} has a "url" that is not a URL: ${e.url}`);
    }
    return { name: e.name || lastSegment(url), url };
  });
}

/**
 * Fetch and parse the catalog at `url` (absolute).
 * @param {string} url
 * @returns {Promise<CatalogEntry[]>}
 */
export async function loadCatalog(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (err) {
    throw new CatalogError(`it could not be fetched (${err instanceof Error ? err.message : err}; a server that does not allow this page's origin fails like this)`);
  }
  if (!res.ok) throw new CatalogError(`the server answered HTTP ${res.status}`);
  let json;
  try {
    json = await res.json();
  } catch {
    throw new CatalogError('it is not JSON');
  }
  return parseCatalog(json, res.url || url);
}

/**
 * The catalog of the standalone page, read at once; null when there is none to read (an embed
 * never fetches one, and a viewer mounted in another page has no address to keep it in).
 * @param {import('./params.js').ViewerParams} params @param {boolean} page
 * @returns {Promise<CatalogEntry[]> | null} rejects with a CatalogError whose message is for the user
 */
export function readCatalog(params, page) {
  const { catalog } = params;
  if (!catalog || params.embed || !page) return null;
  return loadCatalog(new URL(catalog, location.href).href).catch((err) => {
    throw new CatalogError(`Could not read the catalog ${catalog}: ${err instanceof Error ? err.message : err}`);
  });
}

/**
 * Fill the picker with the catalog's stores and show it (it replaces the store's name in the bar).
 * The store open now is selected; one the catalog does not list shows as "Other store".
 * @param {object} o
 * @param {HTMLElement} o.field the picker's label, hidden until now
 * @param {HTMLSelectElement} o.select
 * @param {HTMLElement} o.storeName the bar's store name
 * @param {CatalogEntry[]} o.entries
 * @param {string} o.current the URL (absolute) of the store open now
 * @param {(entry: CatalogEntry) => void} o.onPick
 */
export function showPicker({ field, select, storeName, entries, current, onPick }) {
  const at = entries.findIndex((e) => sameStore(e.url) === sameStore(current));
  select.replaceChildren(...entries.map((e, i) => new Option(e.name, String(i), false, i === at)));
  if (at < 0) select.prepend(Object.assign(new Option('Other store', '', true, true), { disabled: true }));
  select.addEventListener('change', () => {
    const entry = entries[Number(select.value)];
    if (entry) onPick(entry);
  });
  field.hidden = false;
  storeName.hidden = true;
}
