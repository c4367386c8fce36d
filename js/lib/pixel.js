/**
 * One pixel of a reader cell: its stored and physical values by band and whether it is valid, and
 * how a physical value is written for people.
 * @module
 */
import { findBand, isReflectance, normalizedDifference } from './products.js';
import { WATER } from './ramps.js';

/**
 * The values of one pixel of a reader cell, by band: stored, physical (null when invalid), valid,
 * and the physical value again as `reflectance` for a reflectance band (null otherwise).
 * @param {Pick<import('./typedefs.js').Store, 'attrs' | 'nodata'>} store
 * @param {{ data: ArrayLike<number>, mask?: Uint8Array, chunkWidth: number, chunkHeight: number }} cell
 * @param {number} ix column inside the chunk
 * @param {number} iy row inside the chunk
 */
export function pixelValues(store, cell, ix, iy) {
  const { data, mask, chunkWidth: cw, chunkHeight: ch } = cell;
  const i = iy * cw + ix;
  const masked = mask ? mask[i] === 0 : false;
  const bands = store.attrs.bands.map((band, b) => {
    const stored = data[b * cw * ch + i];
    const valid = mask ? !masked : store.nodata == null || stored !== store.nodata;
    const value = valid ? stored * band.scale + band.offset : null;
    return { name: band.name, stored, valid, value, reflectance: isReflectance(band) ? value : null, units: band.units ?? null };
  });
  return { bands, valid: bands.every((b) => b.valid), maskValue: mask ? mask[i] : null };
}

/**
 * The indices a pixel's bands allow, as the products colour them: NDVI (nir, red), NDWI (green,
 * nir) and whether NDWI calls it water (the `water` product's threshold); null where the store has
 * no such band or the band's value is invalid.
 * @param {readonly import('./products.js').Band[]} bands
 * @param {readonly { value: number | null }[]} values physical values by band (pixelValues' bands)
 */
export function pixelIndices(bands, values) {
  /** @param {string} role */
  const physical = (role) => {
    const i = findBand(bands, role);
    return i >= 0 ? values[i].value : null;
  };
  const [nir, red, green] = [physical('nir'), physical('red'), physical('green')];
  const ndvi = nir != null && red != null ? normalizedDifference(nir, red) : null;
  const ndwi = green != null && nir != null ? normalizedDifference(green, nir) : null;
  return { ndvi, ndwi, isWater: ndwi == null ? null : ndwi > WATER.threshold };
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
