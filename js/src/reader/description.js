// @ts-check
/**
 * What a store says about itself, frozen: times, bands, levels, schedule and attributes, in the
 * vocabulary docs/api.md lines up with the Python reader (timesIso beside times_iso, levels[k].grid
 * beside Level.grid, levelForResolution beside level_for_resolution, rootAttrs beside root_attrs).
 */

/**
 * @param {import('./metadata.js').StoreMetadata} meta
 */
export function describe(meta) {
  const levels = meta.levels.map((l) =>
    Object.freeze({
      index: l.index,
      path: l.path,
      gridRows: l.gridRows,
      gridCols: l.gridCols,
      /** (rows, cols) of cells, as Python's Level.grid */
      grid: Object.freeze([l.gridRows, l.gridCols]),
      /** (time, band, y, x) of the data array, as Python's Level.shape */
      shape: Object.freeze([...l.data.shape]),
      width: l.width,
      height: l.height,
      resolution: l.resolution,
      transform: Object.freeze([...l.transform]),
      chunkSize: l.chunkSize,
      sharded: Boolean(l.data.shardShape),
    }),
  );
  const bands = meta.bands.map((b) => Object.freeze(b));
  const names = Object.freeze(bands.map((b) => b.name));
  const times = Object.freeze([...meta.times]);
  return {
    specVersion: meta.specVersion,
    /** ISO-8601 strings */
    times,
    /** the same strings under Python's name for them (times_iso); Python's `times` is datetime64 */
    timesIso: times,
    /** band names, as the reference reader's `store.bands`; the band objects are `attrs.bands` */
    bands: names,
    /** the same names (kept: up to 0.2.0 `bands` held the band objects and `bandNames` the names) */
    bandNames: names,
    dtype: meta.levels[0].data.dtype,
    crs: meta.crs,
    nodata: meta.nodata,
    encoding: meta.encoding,
    anchorIndices: Object.freeze([...meta.anchorIndices]),
    /** The anchor timestep t decodes through, or null when it holds true values. @param {number} t */
    referenceOf: (t) => (meta.references[t] >= 0 ? meta.references[t] : null),
    levels: Object.freeze(levels),
    /**
     * The coarsest level whose resolution does not exceed the one asked for, else 0 (spec 10.3).
     * @param {number} resolution in the CRS's units per pixel
     */
    levelForResolution: (resolution) => levels.reduce((best, l) => (l.resolution <= resolution ? Math.max(best, l.index) : best), 0),
    /** the root chronozarr block; `attrs.bands` holds the band objects (name, scale, offset, ...) */
    attrs: Object.freeze({ ...meta.block, bands: Object.freeze(bands) }),
    /** every attribute of the root group (chronozarr, multiscales, ...), as stored */
    rootAttrs: Object.freeze({ ...meta.rootAttributes }),
    hasMask: meta.maskVariable != null,
    hasCoverage: meta.coverageVariable != null,
    /** The store has a usable time-major history array: a level-0 pixel's readPoint costs a request or two per time block. */
    hasHistory: meta.history != null,
    /** The history has a mask copy (version 1.1): a level-0 pixel's readPointMask costs the same as its readPoint. */
    hasHistoryMask: meta.history?.mask != null,
  };
}
