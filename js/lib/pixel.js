/**
 * One pixel of a reader cell: its stored and physical values by band and whether it is valid, and
 * how a physical value is written for people.
 * @module
 */
import { isReflectance } from './products.js';

/**
 * The values of one pixel of a reader cell, by band: stored, physical (null when invalid), valid.
 * @param {Pick<import('./typedefs.js').Store, 'bands' | 'nodata'>} store
 * @param {{ data: ArrayLike<number>, mask?: Uint8Array, chunkWidth: number, chunkHeight: number }} cell
 * @param {number} ix column inside the chunk
 * @param {number} iy row inside the chunk
 */
export function pixelValues(store, cell, ix, iy) {
  const { data, mask, chunkWidth: cw, chunkHeight: ch } = cell;
  const i = iy * cw + ix;
  const masked = mask ? mask[i] === 0 : false;
  const bands = store.bands.map((band, b) => {
    const stored = data[b * cw * ch + i];
    const valid = mask ? !masked : store.nodata == null || stored !== store.nodata;
    return { name: band.name, stored, valid, value: valid ? stored * band.scale + band.offset : null, units: band.units ?? null };
  });
  return { bands, valid: bands.every((b) => b.valid), maskValue: mask ? mask[i] : null };
}

/**
 * A physical value for display: reflectance with four decimals, else up to six significant digits.
 * @param {import('./products.js').Band} band @param {number | null} v
 */
export function formatValue(band, v) {
  if (v == null) return '–';
  if (isReflectance(band)) return v.toFixed(4);
  if (band.scale === 1 && band.offset === 0) return String(v);
  return String(Number(v.toPrecision(6)));
}
