/**
 * The chunk layout every chunk key and cell slice relies on (spec 2.1, 2.4, 7.1). A store chunked
 * otherwise, as another writer may produce it, would read as the wrong pixels, bands or timesteps,
 * so it is refused by name. cs itself is taken as found (spec 2.1).
 * @module
 */
import { DTYPES } from './arrays.js';
import { StoreError } from './errors.js';

/**
 * @param {{ path: string, data: import('./arrays.js').ArrayInfo, mask: import('./arrays.js').ArrayInfo | null, coverage: import('./arrays.js').ArrayInfo | null }} level
 * @param {import('./arrays.js').ArrayInfo} level0 the data array of level 0
 */
export function checkLevelLayout(level, level0) {
  const { data } = level;
  const [nTime, nBand, height, width] = data.shape;
  const cs = data.chunkShape[2];
  if (nTime !== level0.shape[0] || nBand !== level0.shape[1]) {
    throw new StoreError(`${data.path}: shape ${JSON.stringify(data.shape)} has n_time, n_band [${nTime}, ${nBand}]; level 0 has [${level0.shape[0]}, ${level0.shape[1]}]`);
  }
  expectChunks(data, [1, nBand, cs, cs], '2.1', '[1, n_band, cs, cs]');
  for (const [plane, section] of [[level.mask, '2.4'], [level.coverage, '2.5']]) {
    if (!plane) continue;
    if (!(plane.dtype in DTYPES)) throw new StoreError(`${plane.path}: unsupported data_type ${JSON.stringify(plane.dtype)} (spec ${section} makes it uint8)`);
    const shape = [nTime, height, width];
    if (plane.shape.join() !== shape.join()) {
      throw new StoreError(`${plane.path}: shape ${JSON.stringify(plane.shape)} must be [n_time, H, W] = ${JSON.stringify(shape)} (spec ${section})`);
    }
    expectChunks(plane, [1, cs, cs], section, "[1, cs, cs] with the data array's cs");
  }
}

function expectChunks(info, inner, section, rule) {
  if (info.chunkShape.join() !== inner.join()) {
    throw new StoreError(`${info.path}: chunk shape ${JSON.stringify(info.chunkShape)} is not ${rule} = ${JSON.stringify(inner)} (spec ${section}); this reader cannot place its chunks`);
  }
  if (info.shardShape && info.shardShape.slice(1).join() !== inner.slice(1).join()) {
    throw new StoreError(`${info.path}: shard shape ${JSON.stringify(info.shardShape)} must be [shard_time, ${inner.slice(1).join(', ')}] (spec 7.1): one shard holds one cell`);
  }
}
