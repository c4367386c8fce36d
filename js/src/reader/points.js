/**
 * One pixel read through getCell: its bands at one timestep (`samplePixel(lod, x, y, t)`) or its
 * history over time (`readPoint(row, col, { lod, times })`, the Python reader's `read_point`: row
 * first, as there).
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
   * The bands of one pixel (column x, row y of the level) at timestep t.
   * @param {number} lod @param {number} x @param {number} y @param {number} t
   * @param {{ signal?: AbortSignal }} [options]
   */
  async function samplePixel(lod, x, y, t, { signal } = {}) {
    return bandsAt(lod, locate(lod, x, y), t, signal);
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

  return { samplePixel, readPoint };
}
