/**
 * openDataset: a chronozarr dataset (the store's arrays read as one raster time series) as `(lod, row, col, t)` → typed array of exact stored values,
 * with request discipline (one GET per chunk; one bounded index read per shard, then one range per
 * chunk), a joint decoded/compressed cache, prefetch around a timestep and optional decode workers.
 * The parts live in their own modules: settings, chunk-bytes (byte access and shard indexes),
 * decoding (workers and the decoded tiers), prefetch; this one opens them and answers the calls.
 * @module
 */
import { createCache } from './cache.js';
import { decoderOf, prepareCodec } from './codecs.js';
import { createChunkBytes } from './chunk-bytes.js';
import { anchorOf } from './context.js';
import { createDecoding } from './decoding.js';
import { describe } from './description.js';
import { StoreError, abortError } from './errors.js';
import { cellExtent } from './geometry.js';
import { createHistoryReads } from './history.js';
import { createLimiter, ticketFor } from './limiter.js';
import { loadMetadata } from './metadata.js';
import { createPointReads } from './points.js';
import { createPool } from './pool.js';
import { createPrefetcher } from './prefetch.js';
import { createRegionSeries } from './region-series.js';
import { resolveLocation, storeSettings } from './settings.js';
import { abortAll, callSignal, linkSignals } from './signals.js';
import { createTransport, emptyTransportStats } from './transport.js';

/** @typedef {import('./settings.js').StoreOptions} StoreOptions */

/**
 * @typedef {object} Cell
 * @property {import('./arrays.js').DataValues} data [band][y][x] over the padded chunk; shared with the cache, do not write
 * @property {number} chunkWidth
 * @property {number} chunkHeight
 * @property {number} width columns of the chunk inside the array (the rest is padding)
 * @property {number} height rows of the chunk inside the array
 * @property {Uint8Array} [mask] [y][x], present when the store has a mask
 * @property {number | null} [anchor] with `stored: true`: the anchor timestep of residual data, else null
 */

/** @typedef {Awaited<ReturnType<typeof openDataset>>} Store an open dataset */

/**
 * Runs one call under its own deadline as well as the caller's signal.
 * @typedef {<T>(signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>) => Promise<T>} Bounded
 */

/**
 * What openDataset resolves to (`store instanceof ChronoStore`): the store's description (url, times,
 * timesIso, bands, bandNames, dtype, crs, nodata, encoding, levels, levelForResolution, attrs,
 * rootAttrs, hasMask, hasCoverage, anchorIndices, referenceOf, hasHistory, hasHistoryMask;
 * description.js) and its calls (getCell, getMask, getCoverage, readPixel, readPoint, readPointMask, readRegionSeries,
 * prefetch, prefetchHistory, stats, close; samplePixel is readPixel's deprecated column-first form). A store is
 * made by openDataset or `ChronoStore.open`, which opens it first.
 */
export class ChronoStore {
  constructor() {
    throw new StoreError('a ChronoStore is made by openDataset(url, options) or ChronoStore.open(url, options)');
  }

  /** The same as openDataset. @param {string | URL} location @param {StoreOptions} [options] */
  static open(location, options) {
    return openDataset(location, options);
  }
}

/**
 * Open a dataset: one GET of the root zarr.json for a v0.2 store (per-level documents otherwise).
 * @param {string | URL} location
 * @param {StoreOptions} [options]
 */
export async function openDataset(location, options = {}) {
  const settings = storeSettings(options);
  const root = new AbortController();
  const stats = emptyTransportStats();
  const limiter = createLimiter(settings.maxRequests);
  const { base, fetch } = await resolveLocation(location, options.fetch);
  const { retryDelaysMs, maxObjectBytes, timeoutMs, forbiddenIsNotFound } = settings;
  const transport = createTransport({ base, fetch, retryDelaysMs, limiter, maxObjectBytes, stats, timeoutMs, forbiddenIsNotFound });
  // The decode workers start now: their scripts and codec load while the metadata request is out.
  const pool = settings.workers > 0 ? createPool({ size: settings.workers, spawnWorker: options.spawnWorker }) : null;
  pool?.warm();
  const opening = linkSignals(root.signal, options.signal);
  const deadline = callSignal(opening.signal, settings.deadlineMs, base);
  let meta;
  try {
    meta = await loadMetadata(transport, deadline.signal);
    options.signal?.throwIfAborted();
  } catch (err) {
    pool?.close();
    throw err;
  } finally {
    deadline.dispose();
    opening.dispose();
  }
  prepareCodecs(meta, pool);
  /** @type {import('./context.js').StoreContext} */
  const ctx = {
    meta,
    transport,
    cache: createCache(settings.totalBytes, settings.decodedBytes),
    pool,
    inflight: new Map(),
    lent: new Map(),
    indexes: createCache(settings.shardIndexBytes),
    star: meta.encoding === 'star-delta',
    state: { closed: false, decodes: 0 },
    reorder: limiter.reorder,
    holdReadAhead: limiter.hold,
  };
  const { compressed, shardIndex } = createChunkBytes(ctx);
  const { values, storedValues } = createDecoding(ctx, compressed);
  const prefetcher = createPrefetcher(ctx, settings, { compressed, values, storedValues }, root.signal);
  const onUserAbort = () => close();
  options.signal?.addEventListener('abort', onUserAbort, { once: true });

  /** Abort in-flight requests and prefetch, end the worker pool and drop the caches. */
  function close() {
    if (ctx.state.closed) return;
    ctx.state.closed = true;
    options.signal?.removeEventListener('abort', onUserAbort);
    root.abort(abortError(undefined));
    abortAll(ctx.inflight);
    pool?.close();
    ctx.lent.clear();
    ctx.cache.clear();
    ctx.indexes.clear();
  }

  /** @type {Bounded} */
  const bounded = async (signal, run) => {
    const call = callSignal(signal, settings.deadlineMs, base);
    try {
      return await run(call.signal);
    } finally {
      call.dispose();
    }
  };
  const history = meta.history ? createHistoryReads(ctx, meta.history, shardIndex) : null;
  const reads = createReads(ctx, { values, storedValues, prefetch: prefetcher.prefetch, bounded, history });
  const members = {
    url: base,
    ...describe(meta),
    ...reads,
    stats: () => storeStats(ctx, stats, limiter, prefetcher),
    close,
  };
  return Object.freeze(/** @type {typeof members & ChronoStore} */ (Object.setPrototypeOf(members, ChronoStore.prototype)));
}

/**
 * The former name of openDataset, the same function, kept for one release (CHANGELOG.md).
 * @deprecated use openDataset: "store" now names the byte container only.
 */
export const openStore = openDataset;

/**
 * The codecs load while the first chunks are still on the wire, in the workers and here
 * (for the chunks that arrive before a worker is ready, and for all of them without workers).
 * @param {import('./metadata.js').StoreMetadata} meta @param {import('./context.js').StoreContext['pool']} pool
 */
function prepareCodecs(meta, pool) {
  /** @type {Set<import('./codecs.js').CodecSpec['name']>} */
  const codecNames = new Set();
  let warmBytes = 0;
  for (const level of meta.levels) {
    for (const info of [level.data, level.mask, level.coverage]) {
      if (!info?.codec) continue;
      codecNames.add(decoderOf(info.codec));
      warmBytes = Math.max(warmBytes, info.chunkBytes);
    }
  }
  pool?.prepare([...codecNames], warmBytes);
  // This thread's copy, for chunks that come before a worker is ready, loads a task later: its
  // module's evaluation would otherwise run before the caller's first reads go on the wire.
  setTimeout(() => {
    for (const name of codecNames) prepareCodec(name);
  }, 0);
}

/**
 * The calls that read: cells, planes, pixels and prefetch, with their arguments checked.
 * @param {import('./context.js').StoreContext} ctx
 * @param {{ values: import('./decoding.js').ChunkRead, storedValues: import('./decoding.js').ChunkRead, prefetch: ReturnType<typeof createPrefetcher>['prefetch'], bounded: Bounded, history: ReturnType<typeof createHistoryReads> | null }} parts
 */
function createReads(ctx, { values, storedValues, prefetch: prefetchCells, bounded, history }) {
  const { meta } = ctx;
  const nTime = meta.times.length;
  const nBand = meta.bands.length;

  const checkOpen = () => {
    if (ctx.state.closed) throw new StoreError('the store is closed');
  };

  /** @param {number} lod */
  function level(lod) {
    const found = Number.isInteger(lod) ? meta.levels[lod] : undefined;
    if (!found) throw new RangeError(`level ${lod} does not exist; the store has levels 0..${meta.levels.length - 1}`);
    return found;
  }

  /** @param {import('./metadata.js').Level} lvl @param {number} row @param {number} col @param {number} t */
  function checkCell(lvl, row, col, t) {
    if (!Number.isInteger(row) || !Number.isInteger(col) || row < 0 || col < 0 || row >= lvl.gridRows || col >= lvl.gridCols) {
      throw new RangeError(`cell (${row}, ${col}) is outside level ${lvl.index}'s ${lvl.gridRows} x ${lvl.gridCols} grid`);
    }
    if (!Number.isInteger(t) || t < 0 || t >= nTime) throw new RangeError(`timestep ${t} does not exist; the store has ${nTime} timesteps`);
  }

  /** @param {import('./metadata.js').Level} lvl @param {number} row @param {number} col @param {import('./arrays.js').DataValues} data @returns {Cell} */
  const frame = (lvl, row, col, data) => ({ data, chunkWidth: lvl.chunkSize, chunkHeight: lvl.chunkSize, ...cellExtent(lvl, row, col) });

  /**
   * One cell at one timestep: exact stored values (reconstructed under star-delta), laid out
   * [band][y][x] over the padded chunk, with the cell's mask when the store has one.
   * With `stored: true` the data are the values as stored, not reconstructed: for a star-delta
   * timestep with an anchor, the residuals (true = (anchor + residual) mod 2^bits, with the anchor's
   * data from `getCell(lod, row, col, cell.anchor, { stored: true })`), and the cell carries
   * `anchor`: that anchor timestep, or null when the data are true values.
   * @param {number} lod @param {number} row @param {number} col @param {number} t
   * `priority` says what the cell is for, which decides when its requests go out (limiter.js):
   * `frame` (the default) for what is on screen, `picture` for a coarse stand-in of a view that
   * shows nothing yet, `ahead` and `background` for read-ahead, `metadata` goes before all.
   * @param {{ signal?: AbortSignal, mask?: boolean, stored?: boolean, priority?: import('./limiter.js').Priority }} [options] mask: false skips the mask read
   * @returns {Promise<Readonly<Cell>>}
   */
  async function getCell(lod, row, col, t, { signal, mask = true, stored: raw = false, priority = 'frame' } = {}) {
    checkOpen();
    const lvl = level(lod);
    checkCell(lvl, row, col, t);
    const place = ticketFor(priority);
    const [data, maskData] = await bounded(signal, (call) => {
      const reading = Promise.all([
        raw ? storedValues(lvl.data, t, row, col, call, place) : values(lvl.data, t, row, col, call, place),
        mask && lvl.mask ? values(lvl.mask, t, row, col, call, place) : undefined,
      ]);
      ctx.reorder(); // a read-ahead of the same chunk this joined may go now
      return reading;
    });
    const cell = frame(lvl, row, col, data);
    if (raw) cell.anchor = anchorOf(ctx, lvl.data, t) >= 0 ? meta.references[t] : null;
    if (maskData) cell.mask = /** @type {Uint8Array} */ (maskData);
    return Object.freeze(cell);
  }

  /** @param {'mask' | 'coverage'} which */
  const plane = (which) =>
    /**
     * @param {number} lod @param {number} row @param {number} col @param {number} t
     * @param {{ signal?: AbortSignal }} [options]
     * @returns {Promise<Readonly<Cell> | null>}
     */
    async (lod, row, col, t, { signal } = {}) => {
      checkOpen();
      const lvl = level(lod);
      checkCell(lvl, row, col, t);
      const info = lvl[which];
      if (!info) return null;
      return Object.freeze(frame(lvl, row, col, await bounded(signal, (call) => values(info, t, row, col, call, ticketFor('frame')))));
    };

  /**
   * Fill the caches around timestep t for the given cells, in windowOrder, within horizonSteps
   * and the idle budgets (the whole loop, bounded by half the cache, when playing). A newer call
   * cancels what this one still has to do. Resolves with what it did; never rejects on a failed
   * chunk (those are counted) or on cancellation.
   * `stored: true` decodes delta timesteps near t as stored residuals (for `getCell(..., { stored: true })`)
   * instead of reconstructing them.
   * `priority`: `background` (the default) or `ahead`, for the timesteps next to the one on screen.
   * `onProgress(done, total)` after each chunk (playback shows how much of the loop is buffered).
   * @param {{ lod: number, cells: Array<[number, number] | { row: number, col: number }>, t: number, playing?: boolean, masks?: boolean, stored?: boolean, signal?: AbortSignal, priority?: 'ahead' | 'background', onProgress?: (done: number, total: number) => void }} request
   */
  function prefetch(request) {
    checkOpen();
    if (request.priority != null && request.priority !== 'ahead' && request.priority !== 'background') {
      throw new RangeError(`prefetch priority ${JSON.stringify(request.priority)}: read-ahead is 'ahead' or 'background'`);
    }
    const lvl = level(request.lod);
    const pairs = request.cells.map((c) => (Array.isArray(c) ? c : [c.row, c.col]));
    for (const [row, col] of pairs) checkCell(lvl, row, col, Math.min(Math.max(0, request.t), nTime - 1));
    return prefetchCells(lvl, pairs, request);
  }

  /**
   * Read ahead the history array's shard indexes over a box of level-0 pixels (`{ y0, x0, y1, x1 }`,
   * ends exclusive), nearest its centre first and at most `maxShards` shards and `maxBytes` of index
   * (16 and 256 kB by default), so that a pixel's history there is one range per time block.
   * `priority` is `background` (the default, the lowest) or `frame`, for an index a click on the
   * view is likely to need as soon as the view is complete (it queues behind the frame's chunks
   * asked before it). Resolves with what it did (`{ shards, indexes, read, bytes, failed }`, zeros
   * on a store without the array); never rejects on a failed read.
   * @param {{ y0: number, x0: number, y1: number, x1: number }} box
   * @param {{ maxShards?: number, maxBytes?: number, signal?: AbortSignal, priority?: 'frame' | 'background' }} [options]
   */
  async function prefetchHistory(box, { maxShards = 16, maxBytes = 256 * 1024, signal, priority = 'background' } = {}) {
    checkOpen();
    for (const k of /** @type {const} */ (['y0', 'x0', 'y1', 'x1'])) if (!Number.isFinite(box?.[k])) throw new RangeError(`prefetchHistory: box.${k} must be a number, got ${box?.[k]}`);
    if (!history) return { shards: 0, indexes: 0, read: 0, bytes: 0, failed: 0 };
    if (priority !== 'frame' && priority !== 'background') throw new RangeError(`prefetchHistory: priority must be 'frame' or 'background', got ${JSON.stringify(priority)}`);
    return history.warmIndexes(box, { maxShards, maxBytes, signal, priority });
  }

  const getMask = plane('mask');
  const { readPixel, samplePixel, readPoint, readPointMask } = createPointReads({ level, getCell, getMask, nBand, nTime, history, bounded, where: ctx.transport.url('zarr.json'), closed: () => ctx.state.closed });
  const { readRegionSeries } = createRegionSeries({ meta, getCell, history, bounded });
  return { getCell, getMask, getCoverage: plane('coverage'), readPixel, samplePixel, readPoint, readPointMask, readRegionSeries, prefetch, prefetchHistory };
}

/**
 * Requests, bytes, cache and worker counters.
 * @param {import('./context.js').StoreContext} ctx @param {ReturnType<typeof emptyTransportStats>} stats
 * @param {ReturnType<typeof createLimiter>} limiter @param {ReturnType<typeof createPrefetcher>} prefetcher
 */
function storeStats(ctx, stats, limiter, prefetcher) {
  const c = ctx.cache.stats();
  const { pool } = ctx;
  return {
    ...stats,
    cacheHits: c.hits,
    cacheMisses: c.misses,
    evictions: c.evictions,
    cacheBytes: c.bytes,
    decodedBytes: c.decodedBytes,
    compressedBytes: c.compressedBytes,
    peakCacheBytes: c.peakBytes,
    totalBytes: c.budget,
    cachedChunks: c.entries,
    shardIndexes: ctx.indexes.stats().entries,
    shardIndexBytes: ctx.indexes.stats().bytes,
    decodes: ctx.state.decodes,
    workerDecodes: pool ? pool.decodes : 0,
    workers: pool ? pool.size : 0,
    workersReady: pool ? pool.ready : 0,
    inFlight: limiter.active,
    queued: limiter.queued,
    pending: ctx.inflight.size,
    prefetchErrors: prefetcher.errors,
    prefetching: prefetcher.running,
  };
}
