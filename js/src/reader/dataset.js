/**
 * openDataset: a chronozarr dataset (the store's arrays read as one raster time series) as
 * `(lod, row, col, t)` → typed array of exact stored values, with request discipline (one GET per chunk; one bounded index read per shard, then one range per
 * chunk), a joint decoded/compressed cache, prefetch around a timestep and optional decode workers.
 * The parts live in their own modules: settings, chunk-bytes (byte access and shard indexes),
 * decoding (workers and the decoded tiers), prefetch, reads (the calls that read); this one opens
 * them and puts the dataset together.
 * @module
 */
import { createCache } from './cache.js';
import { decoderOf, prepareCodec } from './codecs.js';
import { createChunkBytes } from './chunk-bytes.js';
import { createDecoding } from './decoding.js';
import { describe } from './description.js';
import { StoreError, abortError } from './errors.js';
import { historyAt as layoutAt } from './history-format.js';
import { createHistoryReads } from './history.js';
import { createLimiter } from './limiter.js';
import { loadMetadata } from './metadata.js';
import { createPool } from './pool.js';
import { createPrefetcher } from './prefetch.js';
import { createReads } from './reads.js';
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
  const { history, historyAt } = historyReads(ctx, shardIndex);
  const reads = createReads(ctx, { values, storedValues, prefetch: prefetcher.prefetch, bounded, history, historyAt });
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
 * The history reads of every level that has a history array: level 0's made with the store,
 * a coarser level's (format 1.3) when a call first asks for it; null for a level without one.
 * @param {import('./context.js').StoreContext} ctx @param {import('./history.js').ShardIndexRead} shardIndex
 */
function historyReads(ctx, shardIndex) {
  const { meta } = ctx;
  const history = meta.history ? createHistoryReads(ctx, meta.history, shardIndex) : null;
  /** @type {Map<number, import('./reads.js').History>} */
  const coarse = new Map();
  /** @param {number} level @returns {import('./reads.js').History} */
  const historyAt = (level) => {
    if (level === 0) return history;
    if (!coarse.has(level)) {
      const layout = layoutAt(meta.history, level);
      coarse.set(level, layout ? createHistoryReads(ctx, layout, shardIndex) : null);
    }
    return coarse.get(level) ?? null;
  };
  return { history, historyAt };
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
