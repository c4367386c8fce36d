/**
 * One pixel read through getCell: its bands at one timestep (`readPixel(lod, row, col, t)`, in
 * getCell's order; Python's `read_pixel(t, row, col, lod)`) or its history over time
 * (`readPoint(row, col, { lod, times })`, Python's `read_point`). Row first everywhere, as in
 * Python: `samplePixel(lod, x, y, t)`, which took the column first, is kept as a deprecated alias
 * that warns once, so old code keeps working while the same two numbers stop naming two pixels.
 * @module
 */
import { samplePixelFrom } from './arrays.js';
import { pixelCell } from './geometry.js';

/**
 * @param {object} o
 * @param {(lod: number) => import('./metadata.js').Level} o.level the level, or a RangeError
 * @param {(lod: number, row: number, col: number, t: number, options: { signal?: AbortSignal, mask: false }) => Promise<Readonly<import('./store.js').Cell>>} o.getCell
 * @param {number} o.nBand
 * @param {number} o.nTime
 */
export function createPointReads({ level, getCell, nBand, nTime }) {
  /** The level and the cell position of pixel (x, y), or a RangeError. @param {number} lod @param {number} x @param {number} y */
  function locate(lod, x, y) {
    const lvl = level(lod);
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= lvl.width || y >= lvl.height) {
      throw new RangeError(`pixel (x ${x}, y ${y}) is outside level ${lod} (${lvl.width} x ${lvl.height})`);
    }
    return pixelCell(lvl, x, y);
  }

  /**
   * @param {number} lod @param {ReturnType<typeof pixelCell>} at @param {number} t @param {AbortSignal | undefined} signal
   */
  async function bandsAt(lod, at, t, signal) {
    const cell = await getCell(lod, at.row, at.col, t, { signal, mask: false });
    return samplePixelFrom(cell.data, { nBand, chunkWidth: cell.chunkWidth, chunkHeight: cell.chunkHeight }, at.x, at.y);
  }

  /**
   * The bands of one pixel (row, col of level `lod`) at timestep t.
   * @param {number} lod @param {number} row @param {number} col @param {number} t
   * @param {{ signal?: AbortSignal }} [options]
   */
  async function readPixel(lod, row, col, t, { signal } = {}) {
    return bandsAt(lod, locate(lod, col, row), t, signal);
  }

  /**
   * Deprecated: readPixel(lod, y, x, t). The bands of pixel (column x, row y) at timestep t.
   * @param {number} lod @param {number} x @param {number} y @param {number} t
   * @param {{ signal?: AbortSignal }} [options]
   */
  async function samplePixel(lod, x, y, t, options) {
    warnOnce('samplePixel(lod, x, y, t)', 'readPixel(lod, row, col, t), row first as in Python');
    return readPixel(lod, y, x, t, options);
  }

  /**
   * The history of one pixel (row, col of level `lod`): its bands at each of `times` (every
   * timestep by default), in that order, as [time][band].
   * @param {number} row @param {number} col
   * @param {{ lod?: number, times?: number[], signal?: AbortSignal }} [options]
   */
  async function readPoint(row, col, { lod = 0, times, signal } = {}) {
    const at = locate(lod, col, row);
    const steps = times ?? Array.from({ length: nTime }, (_, t) => t);
    return Promise.all(steps.map((t) => bandsAt(lod, at, t, signal)));
  }

  return { readPixel, samplePixel, readPoint };
}

/** @type {Set<string>} */
const warned = new Set();

/** One console warning per renamed call and page (a loop over pixels warns once). @param {string} old @param {string} now */
export function warnOnce(old, now) {
  if (warned.has(old)) return;
  warned.add(old);
  console.warn(`chronozarr: ${old} is deprecated; use ${now} (docs/api.md)`);
}
