/**
 * Store geometry, the one place the JS side computes it (as the Python format/geometry.py does):
 * the chunk layout every key and cell slice relies on (spec 2.1, 2.4, 7.1), each level's cell
 * grid, chunk and shard keys, the shard_bytes id, the cell and in-cell position of a pixel, a cell's
 * extent inside the array and on level 0, and where a level-0 pixel lies on a coarser level
 * (level k covers 2^k x 2^k level-0 pixels per pixel). The reader, the viewer and the MapLibre
 * layer import these instead of dividing by the chunk size themselves.
 * @module
 */
import { isDataArray } from './arrays.js';
import { StoreError } from './errors.js';

/** @typedef {{ width: number, height: number, chunkSize: number }} LevelShape */
/** @typedef {import('./arrays.js').ArrayInfo} ArrayInfo */
/** @typedef {import('./arrays.js').DataArrayInfo} DataArrayInfo */

/**
 * The key of the object holding timestep `t` of cell (row, col): the chunk itself when unsharded,
 * else its time shard (`floor(t / shardTime)`).
 * @param {string} arrayPath e.g. "0/data"
 * @param {number} t
 * @param {number} row
 * @param {number} col
 * @param {{ banded?: boolean, shardTime?: number }} [options] banded: data arrays have a band index
 *   (always 0); mask and coverage do not. shardTime: timesteps per shard, 0 when unsharded.
 * @returns {string}
 */
export function chunkKey(arrayPath, t, row, col, { banded = true, shardTime = 0 } = {}) {
  const index = shardTime > 0 ? Math.floor(t / shardTime) : t;
  return banded ? `${arrayPath}/c/${index}/0/${row}/${col}` : `${arrayPath}/c/${index}/${row}/${col}`;
}

/**
 * The id of the shard holding timestep t of cell (row, col) in chronozarr.shard_bytes:
 * "<t_shard>/<row>/<col>" (spec 7.3).
 * @param {number} t @param {number} row @param {number} col @param {number} shardTime
 */
export const shardBytesId = (t, row, col, shardTime) => `${Math.floor(t / shardTime)}/${row}/${col}`;

/**
 * Rows and columns of cells of a level: ceil(H / cs) x ceil(W / cs) (spec 2.1).
 * @param {number} width @param {number} height @param {number} chunkSize
 */
export const cellGrid = (width, height, chunkSize) => ({ gridRows: Math.ceil(height / chunkSize), gridCols: Math.ceil(width / chunkSize) });

/**
 * Columns and rows of cell (row, col) inside the array; the rest of its cs x cs chunk is padding.
 * @param {LevelShape} level @param {number} row @param {number} col
 */
export function cellExtent(level, row, col) {
  const cs = level.chunkSize;
  return { width: Math.min(cs, level.width - col * cs), height: Math.min(cs, level.height - row * cs) };
}

/**
 * The cell holding pixel (x, y) of a level and the pixel's column and row inside that cell.
 * @param {{ chunkSize: number }} level @param {number} x @param {number} y
 */
export function pixelCell(level, x, y) {
  const cs = level.chunkSize;
  return { row: Math.floor(y / cs), col: Math.floor(x / cs), x: x % cs, y: y % cs };
}

/**
 * The pixel of level k that covers level-0 pixel (x, y).
 * @param {number} x @param {number} y @param {number} k
 */
export const levelPixel = (x, y, k) => ({ x: Math.floor(x / 2 ** k), y: Math.floor(y / 2 ** k) });

/**
 * The level-0 rectangle a cell of level k covers, clipped to level 0's extent, and its in-array
 * size at level k.
 * @param {LevelShape} level level k @param {number} k @param {number} row @param {number} col
 * @param {{ width: number, height: number }} level0
 */
export function cellRect(level, k, row, col, level0) {
  const s = 2 ** k;
  const cs = level.chunkSize;
  const { width, height } = cellExtent(level, row, col);
  return {
    x0: col * cs * s,
    y0: row * cs * s,
    x1: Math.min(level0.width, (col * cs + width) * s),
    y1: Math.min(level0.height, (row * cs + height) * s),
    width,
    height,
  };
}

/**
 * Cells of level k that a level-0 rectangle [x0, x1) x [y0, y1) touches (already clipped to level 0).
 * @param {{ chunkSize: number, gridRows: number, gridCols: number }} level
 * @param {number} k @param {number} x0 @param {number} y0 @param {number} x1 @param {number} y1
 */
export function cellRange(level, k, x0, y0, x1, y1) {
  const span = 2 ** k * level.chunkSize;
  return {
    c0: Math.max(0, Math.floor(x0 / span)),
    c1: Math.min(level.gridCols - 1, Math.floor((x1 - 1e-9) / span)),
    r0: Math.max(0, Math.floor(y0 / span)),
    r1: Math.min(level.gridRows - 1, Math.floor((y1 - 1e-9) / span)),
  };
}

/**
 * Refuse a level whose chunks this geometry cannot place: a store chunked otherwise, as another
 * writer may produce it, would read as the wrong pixels, bands or timesteps. cs itself is taken as
 * found (spec 2.1).
 * @template {{ path: string, data: ArrayInfo, mask: ArrayInfo | null, coverage: ArrayInfo | null }} L
 * @param {L} level
 * @param {ArrayInfo} level0 the data array of level 0
 * @returns {Omit<L, 'mask' | 'coverage'> & { mask: DataArrayInfo | null, coverage: DataArrayInfo | null }} the level, its planes known to hold data types
 */
export function checkLevelLayout(level, level0) {
  const { data } = level;
  const [nTime, nBand, height, width] = data.shape;
  const cs = data.chunkShape[2];
  if (nTime !== level0.shape[0] || nBand !== level0.shape[1]) {
    throw new StoreError(`${data.path}: shape ${JSON.stringify(data.shape)} has n_time, n_band [${nTime}, ${nBand}]; level 0 has [${level0.shape[0]}, ${level0.shape[1]}]`);
  }
  expectChunks(data, [1, nBand, cs, cs], '2.1', '[1, n_band, cs, cs]');
  const shape = [nTime, height, width];
  return { ...level, mask: checkPlane(level.mask, shape, cs, '2.4'), coverage: checkPlane(level.coverage, shape, cs, '2.5') };
}

/**
 * Every level holds pixels, agrees with its chronozarr.levels mirror (spec 3.7) and halves the
 * level below (spec 6), as the Python reader checks: a shape that claims more than the store holds
 * would make every read cost the claim.
 * @param {{ index: number, height: number, width: number, gridRows: number, gridCols: number, data: ArrayInfo }[]} levels
 * @param {any[] | null} mirrors chronozarr.levels as stored (untrusted JSON)
 */
export function checkLevelShapes(levels, mirrors) {
  const fix = "the array document or chronozarr.levels is damaged; restore it from the store's writer or re-encode";
  for (const level of levels) {
    const { shape, path } = level.data;
    if (shape.includes(0)) throw new StoreError(`${path}: shape ${JSON.stringify(shape)} holds no pixels (spec 2.1): ${fix}`);
    const mirror = mirrors?.[level.index];
    if (mirror && (String(mirror.shape) !== String(shape) || String(mirror.grid) !== String([level.gridRows, level.gridCols]))) {
      throw new StoreError(`${path}: shape ${JSON.stringify(shape)} disagrees with chronozarr.levels[${level.index}] (shape ${JSON.stringify(mirror.shape)}, grid ${JSON.stringify(mirror.grid)}; spec 3.7): ${fix}`);
    }
    const below = levels[level.index - 1];
    if (below && (level.height !== Math.ceil(below.height / 2) || level.width !== Math.ceil(below.width / 2))) {
      throw new StoreError(
        `${path}: level ${level.index} is ${level.height} x ${level.width} pixels, level ${below.index} ${below.height} x ${below.width}; it must be ceil(H/2) x ceil(W/2) = ${Math.ceil(below.height / 2)} x ${Math.ceil(below.width / 2)} (spec 6): ${fix}`,
      );
    }
  }
}

/**
 * A mask or coverage array must hold a data type and be laid out as the data array's planes.
 * @param {ArrayInfo | null} plane @param {number[]} shape [n_time, H, W] @param {number} cs
 * @param {string} section
 * @returns {DataArrayInfo | null}
 */
function checkPlane(plane, shape, cs, section) {
  if (!plane) return null;
  if (!isDataArray(plane)) throw new StoreError(`${plane.path}: unsupported data_type ${JSON.stringify(plane.dtype)} (spec ${section} makes it uint8)`);
  if (plane.shape.join() !== shape.join()) {
    throw new StoreError(`${plane.path}: shape ${JSON.stringify(plane.shape)} must be [n_time, H, W] = ${JSON.stringify(shape)} (spec ${section})`);
  }
  expectChunks(plane, [1, cs, cs], section, "[1, cs, cs] with the data array's cs");
  return plane;
}

/**
 * @param {ArrayInfo} info @param {number[]} inner @param {string} section
 * @param {string} rule
 */
function expectChunks(info, inner, section, rule) {
  if (info.chunkShape.join() !== inner.join()) {
    throw new StoreError(`${info.path}: chunk shape ${JSON.stringify(info.chunkShape)} is not ${rule} = ${JSON.stringify(inner)} (spec ${section}); this reader cannot place its chunks`);
  }
  if (info.shardShape && info.shardShape.slice(1).join() !== inner.slice(1).join()) {
    throw new StoreError(`${info.path}: shard shape ${JSON.stringify(info.shardShape)} must be [shard_time, ${inner.slice(1).join(', ')}] (spec 7.1): one shard holds one cell`);
  }
}
