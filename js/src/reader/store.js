/**
 * openStore: a chronozarr store as `(lod, row, col, t)` → typed array of exact stored values,
 * with request discipline (one GET per chunk; one bounded index read per shard, then one range per
 * chunk), a joint decoded/compressed cache, prefetch around a timestep and optional decode workers.
 * @module
 */
import { fillChunk, typedView } from './arrays.js';
import { createCache } from './cache.js';
import { decodeBytes, prepareCodec } from './codecs.js';
import { StoreError, abortError, isAbort } from './errors.js';
import { chunkKey } from './keys.js';
import { createLimiter } from './limiter.js';
import { loadMetadata } from './metadata.js';
import { windowOrder } from './order.js';
import { createPool } from './pool.js';
import { applyDelta } from './reconstruct.js';
import { parseShardIndex, shardBytesKey } from './shards.js';
import { abortAll, linkSignals, shared } from './signals.js';
import { DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS, createTransport, emptyTransportStats } from './transport.js';

const MiB = 2 ** 20;
const FILL = Symbol('fill');

/**
 * @typedef {object} StoreOptions
 * @property {typeof fetch} [fetch] used for every request (default: global fetch; file reads in Node)
 * @property {number} [workers] decode workers; 0 decodes on the calling thread (Node default 0,
 *   browsers min(4, hardwareConcurrency - 1))
 * @property {number} [totalBytes] joint budget of the decoded and compressed cache tiers
 *   (1.5 GiB where navigator.deviceMemory >= 8, else 768 MiB)
 * @property {number} [horizonSteps] timesteps prefetched either side of t when idle (12)
 * @property {number} [idleBytes] bytes one idle prefetch may fetch (64 MiB)
 * @property {number} [idleMs] time one idle prefetch may run (15 s)
 * @property {number} [maxRequests] requests in flight at once (16)
 * @property {number[]} [retryDelaysMs] waits before each retry of a 5xx, a network error or a timeout ([250, 1000, 3000])
 * @property {number} [timeoutMs] bound on each wait of a request, for its headers and between reads of its
 *   body (10 000); with the default retries a server that never answers fails a read after about 44 s
 * @property {number} [maxObjectBytes] largest object read whole (256 MiB)
 * @property {AbortSignal} [signal] aborting it closes the store (and aborts opening it)
 */

/**
 * @typedef {object} Cell
 * @property {Uint8Array | Uint16Array | Int16Array | Float32Array} data [band][y][x] over the padded chunk; shared with the cache, do not write
 * @property {number} chunkWidth
 * @property {number} chunkHeight
 * @property {number} width columns of the chunk inside the array (the rest is padding)
 * @property {number} height rows of the chunk inside the array
 * @property {Uint8Array} [mask] [y][x], present when the store has a mask
 */

function defaultTotalBytes() {
  const memory = globalThis.navigator?.deviceMemory;
  return typeof memory === 'number' && memory >= 8 ? 1536 * MiB : 768 * MiB;
}

/** One chunk of one array: the part of its cache keys after the tier prefix. */
const chunkId = (info, step, row, col) => `${info.path}|${step}|${row}|${col}`;

function defaultWorkers() {
  if (globalThis.process?.versions?.node || typeof globalThis.Worker !== 'function') return 0;
  const cores = globalThis.navigator?.hardwareConcurrency ?? 2;
  return Math.max(1, Math.min(4, cores - 1));
}

/**
 * Where requests go: an http(s) URL as it is, a file: URL or (in Node) a directory path as file:,
 * a relative URL against the page.
 * @param {string | URL} location
 */
async function resolveLocation(location, userFetch) {
  const text = String(location);
  if (/^https?:\/\//i.test(text)) return { base: text, fetch: userFetch ?? globalThis.fetch.bind(globalThis) };
  const node = Boolean(globalThis.process?.versions?.node);
  if (node && !/^[a-z][a-z0-9+.-]*:/i.test(text) || /^file:/i.test(text)) {
    const { pathToFileURL } = await import('node:url');
    const base = /^file:/i.test(text) ? text : pathToFileURL(text).href;
    return { base, fetch: userFetch ?? (await import('./file-fetch.js')).fileFetch };
  }
  const page = globalThis.location?.href;
  if (!page) throw new StoreError(`cannot open ${JSON.stringify(text)}: give an http(s) URL, a file: URL or a directory path`);
  return { base: new URL(text, page).href, fetch: userFetch ?? globalThis.fetch.bind(globalThis) };
}

/**
 * Open a store: one GET of the root zarr.json for a v0.2 store (per-level documents otherwise).
 * @param {string | URL} location
 * @param {StoreOptions} [options]
 */
export async function openStore(location, options = {}) {
  const settings = {
    workers: options.workers ?? defaultWorkers(),
    totalBytes: options.totalBytes ?? defaultTotalBytes(),
    horizonSteps: options.horizonSteps ?? 12,
    idleBytes: options.idleBytes ?? 64 * MiB,
    idleMs: options.idleMs ?? 15_000,
    maxRequests: options.maxRequests ?? 16,
    retryDelaysMs: options.retryDelaysMs ?? [...DEFAULT_RETRY_DELAYS_MS],
    maxObjectBytes: options.maxObjectBytes ?? 256 * MiB,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  if (!(settings.timeoutMs > 0 && Number.isFinite(settings.timeoutMs))) throw new RangeError(`timeoutMs must be a positive number of milliseconds, got ${options.timeoutMs}`);
  const root = new AbortController();
  const onUserAbort = () => close();
  const stats = emptyTransportStats();
  const limiter = createLimiter(settings.maxRequests);
  const { base, fetch } = await resolveLocation(location, options.fetch);
  const transport = createTransport({ base, fetch, retryDelaysMs: settings.retryDelaysMs, limiter, maxObjectBytes: settings.maxObjectBytes, stats, timeoutMs: settings.timeoutMs });
  // The decode workers start now: their scripts and codec load while the metadata request is out.
  const pool = settings.workers > 0 ? createPool({ size: settings.workers }) : null;
  pool?.warm();
  const opening = linkSignals(root.signal, options.signal);
  let meta;
  try {
    meta = await loadMetadata(transport, opening.signal);
    options.signal?.throwIfAborted();
  } catch (err) {
    pool?.close();
    throw err;
  } finally {
    opening.dispose();
  }
  options.signal?.addEventListener('abort', onUserAbort, { once: true });

  const cache = createCache(settings.totalBytes);
  const codecNames = new Set();
  let warmBytes = 0;
  for (const level of meta.levels) {
    for (const info of [level.data, level.mask, level.coverage]) {
      if (!info?.codec) continue;
      codecNames.add(info.codec.name);
      warmBytes = Math.max(warmBytes, info.chunkBytes);
    }
  }
  // The codecs load now, while the first chunks are still on the wire, in the workers and here
  // (for the chunks that arrive before a worker is ready, and for all of them without workers).
  pool?.prepare([...codecNames], warmBytes);
  for (const name of codecNames) prepareCodec(name);
  /** Compressed chunks lent (transferred) to a decode worker: key → settles when they are back. */
  const lent = new Map();
  /** @type {Map<string, import('./shards.js').ShardIndex | null>} */
  const indexes = new Map();
  const inflight = new Map();
  const star = meta.encoding === 'star-delta';
  const nTime = meta.times.length;
  const nBand = meta.bands.length;
  let closed = false;
  let decodes = 0;
  let prefetchRun = null;
  let prefetchErrors = 0;

  const checkOpen = () => {
    if (closed) throw new StoreError('the store is closed');
  };

  /** Compressed bytes of one stored chunk, or null when it is not stored (fill). */
  function compressed(info, t, row, col, signal, priority) {
    const key = `z|${info.path}|${t}|${row}|${col}`;
    const away = lent.get(key);
    if (away) return away.then(() => compressed(info, t, row, col, signal, priority));
    const hit = cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit === FILL ? null : hit);
    return shared(inflight, key, signal, async (s) => {
      let bytes;
      if (!info.shardShape) {
        const limit = Math.ceil(info.chunkBytes * 1.1) + 65536;
        bytes = await transport.get(chunkKey(info.path, t, row, col, { banded: info.banded }), { signal: s, priority, limit });
      } else {
        const shardTime = info.shardShape[0];
        const shardKey = chunkKey(info.path, t, row, col, { banded: info.banded, shardTime });
        const index = await shardIndex(info, shardKey, s, priority);
        const position = t % shardTime;
        if (!index || index.offsets[position] < 0) {
          bytes = null;
        } else {
          bytes = await transport.range(shardKey, index.offsets[position], index.lengths[position], { signal: s, priority });
          if (bytes == null) throw new StoreError(`${transport.url(shardKey)} disappeared while it was being read`);
        }
      }
      if (!closed) cache.set(key, bytes ?? FILL, bytes ? bytes.length : 64, 'compressed');
      return bytes;
    });
  }

  /** The shard's index from cache or store; null when the shard does not exist (all fill). */
  function shardIndex(info, shardKey, signal, priority) {
    if (indexes.has(shardKey)) return Promise.resolve(indexes.get(shardKey));
    return shared(inflight, `i|${shardKey}`, signal, async (s) => {
      const n = info.indexBytes;
      const listed = info.path === `${info.path.split('/')[0]}/${meta.variable}` ? meta.shardBytes[info.path.split('/')[0]]?.[shardBytesKey(shardKey)] : undefined;
      let length = Number.isInteger(listed) ? listed : null;
      if (length == null && info.indexAtEnd && Object.keys(meta.shardBytes).length > 0) {
        // The store lists shard lengths; one it does not list (a mask shard) costs a HEAD (spec 7.3).
        length = await transport.size(shardKey, { signal: s, priority });
        if (length == null) {
          if (!closed) indexes.set(shardKey, null);
          return null;
        }
      }
      let raw;
      if (!info.indexAtEnd) raw = await transport.range(shardKey, 0, n, { signal: s, priority });
      else if (length != null) {
        if (length < n) throw new StoreError(`${transport.url(shardKey)}: shard_bytes gives ${length} bytes, less than its ${n}-byte index`);
        raw = await transport.range(shardKey, length - n, n, { signal: s, priority });
      } else raw = await transport.suffix(shardKey, n, { signal: s, priority });
      const index = raw == null ? null : parseShardIndex(raw, info, length, transport.url(shardKey));
      if (!closed) indexes.set(shardKey, index);
      return index;
    });
  }

  /** Decoded stored values of one chunk (residuals for a delta timestep). */
  async function stored(info, t, row, col, signal, priority) {
    let bytes = await compressed(info, t, row, col, signal, priority);
    // Decodes that joined one read get the same bytes: the first may have lent them to a worker by
    // now (transferred, detached here); the others wait until they are back in the cache.
    while (lent.has(`z|${info.path}|${t}|${row}|${col}`)) bytes = await compressed(info, t, row, col, signal, priority);
    if (bytes == null) return fillChunk(info);
    const where = transport.url(chunkKey(info.path, t, row, col, { banded: info.banded, shardTime: info.shardShape?.[0] ?? 0 }));
    decodes++;
    let raw;
    if (!info.codec) raw = bytes.slice();
    else if (pool) raw = await decodeInPool(info, `z|${info.path}|${t}|${row}|${col}`, bytes, where, signal, priority);
    else raw = await decodeBytes(info.codec, bytes, info.chunkBytes, where);
    if (raw.length !== info.chunkBytes) throw new StoreError(`${where}: chunk decodes to ${raw.length} bytes, expected ${info.chunkBytes}`);
    return typedView(info.dtype, raw);
  }

  /**
   * Decode in a worker, transferring the compressed bytes instead of copying them. While they are
   * away their cache entry is marked lent (a reader of it waits); the worker sends them back and
   * they go back into the entry, or the entry is dropped if they are lost (a failed worker).
   */
  async function decodeInPool(info, key, bytes, where, signal, priority) {
    let settle;
    const away = new Promise((resolve) => (settle = resolve));
    lent.set(key, away);
    let handled = false;
    const returned = (input) => {
      if (handled) return;
      handled = true;
      if (input !== bytes && cache.peek(key) === bytes) {
        if (input && !closed) cache.replace(key, input);
        else cache.remove(key);
      }
      if (lent.get(key) === away) lent.delete(key);
      settle();
    };
    try {
      return await pool.decode(info.codec, bytes, info.chunkBytes, where, signal, returned, priority);
    } finally {
      if (!handled) returned(bytes.byteLength ? bytes : null); // empty: it left and did not come back
    }
  }

  /** True values of one chunk: stored values, or anchor + residual for a delta timestep. */
  function values(info, t, row, col, signal, priority) {
    const key = `v|${info.path}|${t}|${row}|${col}`;
    const hit = cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    return shared(inflight, key, signal, async (s) => {
      const anchor = star && info.banded ? meta.references[t] : -1;
      let out;
      if (anchor >= 0) {
        const [base, residual] = await Promise.all([values(info, anchor, row, col, s, priority), stored(info, t, row, col, s, priority)]);
        out = applyDelta(base, residual, residual);
      } else {
        out = await stored(info, t, row, col, s, priority);
      }
      if (!closed) cache.set(key, out, out.byteLength, 'decoded');
      return out;
    });
  }

  /**
   * Decoded stored values of one chunk, cached: the residual for a delta timestep (not
   * reconstructed), the true values otherwise.
   */
  function storedValues(info, t, row, col, signal, priority) {
    const anchor = star && info.banded ? meta.references[t] : -1;
    if (anchor < 0) return values(info, t, row, col, signal, priority);
    const key = `s|${info.path}|${t}|${row}|${col}`;
    const hit = cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    return shared(inflight, key, signal, async (s) => {
      const out = await stored(info, t, row, col, s, priority);
      if (!closed) cache.set(key, out, out.byteLength, 'decoded');
      return out;
    });
  }

  function level(lod) {
    const found = Number.isInteger(lod) ? meta.levels[lod] : undefined;
    if (!found) throw new RangeError(`level ${lod} does not exist; the store has levels 0..${meta.levels.length - 1}`);
    return found;
  }

  function checkCell(lvl, row, col, t) {
    if (!Number.isInteger(row) || !Number.isInteger(col) || row < 0 || col < 0 || row >= lvl.gridRows || col >= lvl.gridCols) {
      throw new RangeError(`cell (${row}, ${col}) is outside level ${lvl.index}'s ${lvl.gridRows} x ${lvl.gridCols} grid`);
    }
    if (!Number.isInteger(t) || t < 0 || t >= nTime) throw new RangeError(`timestep ${t} does not exist; the store has ${nTime} timesteps`);
  }

  const frame = (lvl, row, col, data) => ({
    data,
    chunkWidth: lvl.chunkSize,
    chunkHeight: lvl.chunkSize,
    width: Math.min(lvl.chunkSize, lvl.width - col * lvl.chunkSize),
    height: Math.min(lvl.chunkSize, lvl.height - row * lvl.chunkSize),
  });

  /**
   * One cell at one timestep: exact stored values (reconstructed under star-delta), laid out
   * [band][y][x] over the padded chunk, with the cell's mask when the store has one.
   * @param {number} lod @param {number} row @param {number} col @param {number} t
   * With `stored: true` the data are the values as stored, not reconstructed: for a star-delta
   * timestep with an anchor, the residuals (true = (anchor + residual) mod 2^bits, with the anchor's
   * data from `getCell(lod, row, col, cell.anchor, { stored: true })`), and the cell carries
   * `anchor`: that anchor timestep, or null when the data are true values.
   * @param {{ signal?: AbortSignal, mask?: boolean, stored?: boolean }} [options] mask: false skips the mask read
   * @returns {Promise<Readonly<Cell & { anchor?: number | null }>>}
   */
  async function getCell(lod, row, col, t, { signal, mask = true, stored: raw = false } = {}) {
    checkOpen();
    const lvl = level(lod);
    checkCell(lvl, row, col, t);
    const [data, maskData] = await Promise.all([
      raw ? storedValues(lvl.data, t, row, col, signal, 0) : values(lvl.data, t, row, col, signal, 0),
      mask && lvl.mask ? values(lvl.mask, t, row, col, signal, 0) : undefined,
    ]);
    const cell = frame(lvl, row, col, data);
    if (raw) cell.anchor = star && lvl.data.banded && meta.references[t] >= 0 ? meta.references[t] : null;
    if (maskData) cell.mask = /** @type {Uint8Array} */ (maskData);
    return Object.freeze(cell);
  }

  /** @param {'mask' | 'coverage'} which */
  const plane = (which) =>
    /**
     * @param {number} lod @param {number} row @param {number} col @param {number} t
     * @param {{ signal?: AbortSignal }} [options]
     */
    async (lod, row, col, t, { signal } = {}) => {
      checkOpen();
      const lvl = level(lod);
      checkCell(lvl, row, col, t);
      if (!lvl[which]) return null;
      return Object.freeze(frame(lvl, row, col, await values(lvl[which], t, row, col, signal, 0)));
    };

  /**
   * The bands of one pixel (column x, row y of the level) at timestep t.
   * @param {number} lod @param {number} x @param {number} y @param {number} t
   * @param {{ signal?: AbortSignal }} [options]
   */
  async function samplePixel(lod, x, y, t, { signal } = {}) {
    checkOpen();
    const lvl = level(lod);
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= lvl.width || y >= lvl.height) {
      throw new RangeError(`pixel (x ${x}, y ${y}) is outside level ${lod} (${lvl.width} x ${lvl.height})`);
    }
    const cs = lvl.chunkSize;
    const { data } = await getCell(lod, Math.floor(y / cs), Math.floor(x / cs), t, { signal, mask: false });
    const out = new /** @type {any} */ (data.constructor)(nBand);
    const at = (y % cs) * cs + (x % cs);
    for (let b = 0; b < nBand; b++) out[b] = data[b * cs * cs + at];
    return out;
  }

  /**
   * Fill the caches around timestep t for the given cells, in windowOrder, within horizonSteps
   * and the idle budgets (the whole loop, bounded by half the cache, when playing). A newer call
   * cancels what this one still has to do. Resolves with what it did; never rejects on a failed
   * chunk (those are counted) or on cancellation.
   * `stored: true` decodes delta timesteps near t as stored residuals (for `getCell(..., { stored: true })`)
   * instead of reconstructing them.
   * @param {{ lod: number, cells: Array<[number, number] | { row: number, col: number }>, t: number, playing?: boolean, masks?: boolean, stored?: boolean, signal?: AbortSignal }} request
   */
  function prefetch({ lod, cells, t, playing = false, masks = false, stored: raw = false, signal }) {
    checkOpen();
    const lvl = level(lod);
    const previous = prefetchRun;
    const link = linkSignals(root.signal, signal);
    /** Requests this run has out, by chunk: a newer run lets those it also wants finish. */
    const reading = new Map();
    const run = { link, reading, stopped: false };
    prefetchRun = run;
    const pairs = cells.map((c) => (Array.isArray(c) ? c : [c.row, c.col]));
    for (const [row, col] of pairs) checkCell(lvl, row, col, Math.min(Math.max(0, t), nTime - 1));
    const order = windowOrder(t, nTime, {
      horizonSteps: settings.horizonSteps,
      playing,
      reference: (s) => (star && meta.references[s] >= 0 ? meta.references[s] : null),
    });
    const tasks = [];
    for (const step of order) {
      const near = Math.abs(step - t) <= 1;
      for (const [row, col] of pairs) {
        const anchorStep = star && meta.references[step] < 0;
        tasks.push({ info: lvl.data, step, row, col, decode: star ? anchorStep || near : near });
        if (masks && lvl.mask) tasks.push({ info: lvl.mask, step, row, col, decode: near });
      }
    }
    if (previous) {
      // The older run takes no new task; of its requests on the wire, those this run would send
      // first go on (this run joins them), the others are aborted: on a slow link they would hold
      // bandwidth the steps near t need.
      previous.stopped = true;
      const first = tasks.slice(0, Math.max(1, settings.maxRequests));
      const wanted = new Set(first.map((task) => chunkId(task.info, task.step, task.row, task.col)));
      for (const [id, controller] of previous.reading) if (!wanted.has(id)) controller.abort(abortError(undefined));
    }
    const budgetBytes = playing ? settings.totalBytes / 2 : settings.idleBytes;
    const deadline = playing ? Infinity : Date.now() + settings.idleMs;
    const result = { state: 'done', order, chunks: 0, bytes: 0, failed: 0 };
    let next = 0;
    const worker = async () => {
      while (next < tasks.length) {
        if (link.signal.aborted || run.stopped) {
          result.state = 'aborted';
          return;
        }
        if (result.bytes >= budgetBytes || Date.now() >= deadline) {
          result.state = 'budget';
          return;
        }
        const task = tasks[next++];
        const residual = raw && star && task.info.banded && meta.references[task.step] >= 0;
        if (cache.has(`${residual ? 's' : 'v'}|${task.info.path}|${task.step}|${task.row}|${task.col}`)) {
          result.chunks++;
          continue;
        }
        const id = chunkId(task.info, task.step, task.row, task.col);
        const own = linkSignals(link.signal, undefined);
        reading.set(id, own.controller);
        try {
          const before = cache.has(`z|${id}`);
          const bytes = await compressed(task.info, task.step, task.row, task.col, own.signal, 1);
          const length = bytes ? bytes.length : 0; // read before a decode worker borrows them
          if (task.decode) await (residual ? storedValues : values)(task.info, task.step, task.row, task.col, own.signal, 1);
          result.chunks++;
          if (!before) result.bytes += length;
        } catch (err) {
          if (isAbort(err) || own.signal.aborted) {
            result.state = 'aborted';
            return;
          }
          result.failed++;
          prefetchErrors++;
        } finally {
          reading.delete(id);
          own.dispose();
        }
      }
    };
    const runners = Array.from({ length: Math.max(1, settings.maxRequests) }, worker);
    return Promise.all(runners).then(() => {
      link.dispose();
      if (prefetchRun === run) prefetchRun = null;
      return result;
    });
  }

  /** Requests, bytes, cache and worker counters. */
  function statsNow() {
    const c = cache.stats();
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
      shardIndexes: indexes.size,
      decodes,
      workerDecodes: pool ? pool.decodes : 0,
      workers: pool ? pool.size : 0,
      workersReady: pool ? pool.ready : 0,
      inFlight: limiter.active,
      queued: limiter.queued,
      pending: inflight.size,
      prefetchErrors,
      prefetching: prefetchRun != null,
    };
  }

  /** Abort in-flight requests and prefetch, end the worker pool and drop the caches. */
  function close() {
    if (closed) return;
    closed = true;
    options.signal?.removeEventListener('abort', onUserAbort);
    root.abort(abortError(undefined));
    abortAll(inflight);
    pool?.close();
    lent.clear();
    cache.clear();
    indexes.clear();
  }

  const levels = meta.levels.map((l) =>
    Object.freeze({
      index: l.index,
      path: l.path,
      gridRows: l.gridRows,
      gridCols: l.gridCols,
      width: l.width,
      height: l.height,
      resolution: l.resolution,
      transform: Object.freeze([...l.transform]),
      chunkSize: l.chunkSize,
      sharded: Boolean(l.data.shardShape),
    }),
  );
  const bands = meta.bands.map((b) => Object.freeze(b));

  return Object.freeze({
    url: base,
    specVersion: meta.specVersion,
    times: Object.freeze([...meta.times]),
    bands: Object.freeze(bands),
    bandNames: Object.freeze(bands.map((b) => b.name)),
    dtype: meta.levels[0].data.dtype,
    crs: meta.crs,
    nodata: meta.nodata,
    encoding: meta.encoding,
    anchorIndices: Object.freeze([...meta.anchorIndices]),
    /** The anchor timestep t decodes through, or null when it holds true values. */
    referenceOf: (t) => (meta.references[t] >= 0 ? meta.references[t] : null),
    levels: Object.freeze(levels),
    attrs: Object.freeze({ ...meta.block, bands }),
    hasMask: meta.maskVariable != null,
    hasCoverage: meta.coverageVariable != null,
    getCell,
    getMask: plane('mask'),
    getCoverage: plane('coverage'),
    samplePixel,
    prefetch,
    stats: statsNow,
    close,
  });
}
