/**
 * A held pixel's reads, as the load plan's pixelHistoryPlan says: its values at every date (the
 * whole series from the store's history array, else date by date) and, for the CSV, its coverage.
 * @module
 */
import { pixelValues } from '../lib/pixel.js';
import { pixelCell } from '../src/reader/geometry.js';

/** @typedef {import('../lib/typedefs.js').Store} Store */
/** @typedef {ReturnType<typeof import('../lib/load-plan.js').pixelHistoryPlan>} Plan */
/**
 * What a read fills: the pixel read and its values per date.
 * @typedef {Pick<import('./history-series.js').HeldPixel, 'lod' | 'x' | 'y' | 'got'>} Reading
 */

/**
 * Read the pixel's values at every date into `p.got`: all at once from the history array and, on a
 * masked store, its mask copy side by side; else (or for the mask of each date when the history
 * has no copy) date by date, `onSome` called as values come in. Resolves false when aborted before
 * anything was read, true once every date is read or failed (null) or the reads were aborted.
 * @param {Store} store @param {Reading} p @param {Plan} plan @param {AbortSignal} signal @param {() => void} onSome
 */
export async function readHistory(store, p, plan, signal, onSome) {
  const [bands, masks] = await Promise.all([
    plan.whole ? store.readPoint(p.y, p.x, { signal }).catch(() => null) : null,
    plan.maskCopy ? store.readPointMask(p.y, p.x, { signal }).catch(() => null) : null,
  ]);
  if (signal.aborted) return false;
  if (bands && (!store.hasMask || masks)) {
    bands.forEach((v, t) => (p.got[t] = onePixel(store, v, masks ? masks[t] : undefined)));
    return true;
  }
  const at = pixelCell(store.levels[p.lod], p.x, p.y);
  /** One date's values: the cell's, or the history's with the date's mask. @param {number} t */
  const readDate = async (t) => {
    if (!bands) return pixelValues(store, await store.getCell(p.lod, at.row, at.col, t, { signal }), at.x, at.y);
    const mask = await store.getMask(p.lod, at.row, at.col, t, { signal });
    return onePixel(store, bands[t], mask ? mask.data[at.y * mask.chunkWidth + at.x] : undefined);
  };
  let next = 0;
  const reader = async () => {
    while (next < p.got.length && !signal.aborted) {
      const t = next++;
      try {
        p.got[t] = await readDate(t);
      } catch {
        if (signal.aborted) return;
        p.got[t] = null;
      }
      onSome();
    }
  };
  await Promise.all(Array.from({ length: plan.inFlight }, reader));
  return true;
}

/**
 * One pixel's values from its stored bands and mask value.
 * @param {Store} store @param {import('../src/reader/arrays.js').DataValues} v @param {number} [mask]
 */
function onePixel(store, v, mask) {
  const cell = { data: v, mask: mask == null ? undefined : Uint8Array.of(mask), chunkWidth: 1, chunkHeight: 1 };
  return pixelValues(store, cell, 0, 0);
}

/**
 * The pixel's coverage count at every timestep (null where it could not be read).
 * @param {Store} store @param {Pick<Reading, 'lod' | 'x' | 'y'>} p
 */
export async function readCoverage(store, p) {
  const at = pixelCell(store.levels[p.lod], p.x, p.y);
  return Promise.all(store.times.map((_, t) => store.getCoverage(p.lod, at.row, at.col, t).then(
    (cov) => (cov ? cov.data[at.y * cov.chunkWidth + at.x] : null),
    () => null,
  )));
}
