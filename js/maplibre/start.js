/**
 * The layer's start options checked against its opened store: a bad one is reported and replaced
 * by its default rather than losing the layer.
 * @module
 */
import { defaultProduct } from '../lib/products.js';
import { bandIndex, checkProduct, checkTime } from './options.js';

/**
 * @param {import('./options.js').StoreFacts} store
 * @param {{ t: number, band: number | string, product: string | null }} asked
 * @param {(error: unknown) => void} fail told of each option replaced
 * @returns {{ t: number, band: number, product: string }}
 */
export function checkedStart(store, asked, fail) {
  /** @template T @param {() => T} get @param {T} fallback */
  const orDefault = (get, fallback) => {
    try {
      return get();
    } catch (error) {
      fail(error);
      return fallback;
    }
  };
  const t = orDefault(() => checkTime(store, asked.t), 0);
  const band = orDefault(() => bandIndex(store, asked.band), 0);
  const fallback = defaultProduct(store.attrs.bands);
  const product = orDefault(() => checkProduct(store, asked.product ?? fallback), fallback);
  return { t, band, product };
}
