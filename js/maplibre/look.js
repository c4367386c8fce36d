/**
 * The layer's look as set: the product, the band the 'band' product shows, a fixed stretch range,
 * and the percentile range of what is on screen that a linear look without a fixed range follows.
 * @module
 */
import { lookFor } from '../lib/products.js';

/**
 * @typedef {object} LayerLook
 * @property {string | null} product checked against the store once it is open
 * @property {number | string} band index, or before the store opens the name given
 * @property {[number, number] | null} range fixed linear stretch in physical units
 * @property {[number, number] | null} auto the percentile stretch of what is on screen
 * @property {number} stretchLo the reflectance a tone-mapped look shows black
 * @property {Parameters<typeof lookFor>[0] | null} store the layer's store, once open
 * @property {() => ReturnType<typeof lookFor> | null} current what the shader draws with; null before the store opens
 */

/** @param {{ product: string | null, band: number | string, range: [number, number] | null, stretchLo: number }} start @returns {LayerLook} */
export function createLook({ product, band, range, stretchLo }) {
  return {
    product,
    band,
    range,
    stretchLo,
    auto: null,
    store: null,
    current() {
      if (!this.store || !this.product) return null;
      return lookFor(this.store, { product: this.product, band: Number(this.band), range: this.range, auto: this.auto, stretchLo: this.stretchLo });
    },
  };
}
