/**
 * chronozarr: read chronozarr stores (Zarr v3 raster time series) in browsers and Node.
 * @module
 */
export { ChronoStore, openDataset, openStore } from './reader/dataset.js';
export { applyDelta } from './reader/reconstruct.js';
export { samplePixelFrom } from './reader/arrays.js';
export { chunkKey } from './reader/geometry.js';
export { PIXEL_BUDGET, areaOf, projectGeometry } from './reader/region.js';
export { scrubCost, windowOrder } from './reader/order.js';
export { FetchError, HistoryError, StoreError } from './reader/errors.js';

/** @typedef {import('./reader/dataset.js').Store} Store */
/** @typedef {import('./reader/dataset.js').StoreOptions} StoreOptions */
/** @typedef {import('./reader/dataset.js').Cell} Cell */
/** @typedef {import('./reader/attributes.js').Band} Band */
