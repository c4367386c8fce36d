/**
 * What openStore is told and what it assumes: its options with their defaults, and where requests
 * for a location go.
 * @module
 */
import { StoreError } from './errors.js';
import { CALL_DEADLINE_MS, SHARD_INDEX_CACHE_BYTES } from './limits.js';
import { DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS } from './transport.js';

/** Default bound on all the requests of one call (opening, a cell), retries and waits included. */
export const DEFAULT_DEADLINE_MS = CALL_DEADLINE_MS;

export const MiB = 2 ** 20;

/**
 * @typedef {object} StoreOptions
 * @property {typeof fetch} [fetch] used for every request (default: global fetch; file reads in Node)
 * @property {number} [workers] decode workers; 0 decodes on the calling thread (Node default 0,
 *   browsers min(4, hardwareConcurrency - 1))
 * @property {number} [totalBytes] joint budget of the decoded and compressed cache tiers
 *   (1.5 GiB where navigator.deviceMemory >= 8, else 768 MiB, or decodedBytes when that is larger)
 * @property {number} [decodedBytes] ceiling on the decoded tier alone (default: only totalBytes bounds it)
 * @property {() => DecodeWorker} [spawnWorker] makes one decode worker running chronozarr/decode-worker
 *   (default: a module worker in browsers, a worker thread in Node)
 * @property {number} [shardIndexBytes] bytes of shard indexes kept, least recently used dropped first (32 MiB)
 * @property {boolean} [forbiddenIsNotFound] read a 403 answer as a missing key (fill), for hosts that
 *   answer 403 for absent keys; otherwise a 403 is a FetchError
 * @property {number} [horizonSteps] timesteps prefetched either side of t when idle (12)
 * @property {number} [idleBytes] bytes one idle prefetch may fetch (64 MiB)
 * @property {number} [idleMs] time one idle prefetch may run (15 s)
 * @property {number} [maxRequests] requests in flight at once (16)
 * @property {number[]} [retryDelaysMs] waits before each retry of a 5xx, a network error or a timeout ([250, 1000, 3000])
 * @property {number} [timeoutMs] bound on each wait of a request, for its headers and between reads of its
 *   body (10 000); with the default retries a server that never answers fails a request after about 44 s
 * @property {number} [deadlineMs] bound on one call (opening the store, getCell and the like): every
 *   request it needs, their retries and waits (50 000), so a call ends within a minute whatever it reads
 * @property {number} [maxObjectBytes] largest object read whole (256 MiB)
 * @property {AbortSignal} [signal] aborting it closes the store (and aborts opening it)
 */

/**
 * A decode worker as `spawnWorker` may return it: a browser Worker or a Node worker_threads Worker.
 * @typedef {Worker | import('node:worker_threads').Worker} DecodeWorker
 */

/** @typedef {ReturnType<typeof storeSettings>} Settings */

/** Every option openStore knows: a misspelt one would otherwise be silently ignored. */
const OPTION_NAMES = new Set(['fetch', 'workers', 'totalBytes', 'decodedBytes', 'horizonSteps', 'idleBytes', 'idleMs', 'maxRequests', 'retryDelaysMs', 'timeoutMs', 'deadlineMs', 'maxObjectBytes', 'signal', 'spawnWorker', 'forbiddenIsNotFound', 'shardIndexBytes']);

function defaultTotalBytes() {
  // navigator.deviceMemory is Chromium's (lib.dom leaves it out); elsewhere it is undefined.
  const memory = /** @type {{ deviceMemory?: unknown } | undefined} */ (globalThis.navigator)?.deviceMemory;
  return typeof memory === 'number' && memory >= 8 ? 1536 * MiB : 768 * MiB;
}

function defaultWorkers() {
  if (globalThis.process?.versions?.node || typeof globalThis.Worker !== 'function') return 0;
  const cores = globalThis.navigator?.hardwareConcurrency ?? 2;
  return Math.max(1, Math.min(4, cores - 1));
}

/**
 * The options with their defaults filled in; an unknown option, a timeout that is not a positive
 * number and a decoded ceiling that is not a byte count are refused.
 * @param {StoreOptions} options
 */
export function storeSettings(options) {
  const unknown = Object.keys(options).filter((name) => !OPTION_NAMES.has(name));
  if (unknown.length) throw new RangeError(`openStore does not know the option${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; it knows ${[...OPTION_NAMES].join(', ')}`);
  const decodedBytes = options.decodedBytes ?? Infinity;
  if (!(decodedBytes >= 0)) throw new RangeError(`decodedBytes must be a number of bytes, got ${options.decodedBytes}`);
  const settings = {
    workers: options.workers ?? defaultWorkers(),
    // Naming a decoded ceiling larger than the default budget raises the budget to it.
    totalBytes: options.totalBytes ?? Math.max(defaultTotalBytes(), options.decodedBytes ?? 0),
    decodedBytes,
    horizonSteps: options.horizonSteps ?? 12,
    idleBytes: options.idleBytes ?? 64 * MiB,
    idleMs: options.idleMs ?? 15_000,
    maxRequests: options.maxRequests ?? 16,
    retryDelaysMs: options.retryDelaysMs ?? [...DEFAULT_RETRY_DELAYS_MS],
    maxObjectBytes: options.maxObjectBytes ?? 256 * MiB,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
    forbiddenIsNotFound: options.forbiddenIsNotFound ?? false,
    // As many as the Python reader keeps (limits.json).
    shardIndexBytes: options.shardIndexBytes ?? SHARD_INDEX_CACHE_BYTES,
  };
  for (const name of /** @type {const} */ (['timeoutMs', 'deadlineMs'])) {
    if (!(settings[name] > 0 && Number.isFinite(settings[name]))) throw new RangeError(`${name} must be a positive number of milliseconds, got ${options[name]}`);
  }
  return settings;
}

/**
 * Where requests go: an http(s) URL as it is, a file: URL or (in Node) a directory path as file:,
 * a relative URL against the page.
 * @param {string | URL} location
 * @param {typeof fetch | undefined} userFetch
 * @returns {Promise<{ base: string, fetch: typeof fetch }>}
 */
export async function resolveLocation(location, userFetch) {
  const text = String(location);
  if (/^https?:\/\//i.test(text)) return { base: text, fetch: userFetch ?? globalThis.fetch.bind(globalThis) };
  const node = Boolean(globalThis.process?.versions?.node);
  if (node && !/^[a-z][a-z0-9+.-]*:/i.test(text) || /^file:/i.test(text)) {
    const { pathToFileURL } = await import('node:url');
    const base = /^file:/i.test(text) ? text : pathToFileURL(text).href;
    return { base, fetch: userFetch ?? /** @type {typeof fetch} */ ((await import('./file-fetch.js')).fileFetch) };
  }
  const page = globalThis.location?.href;
  if (!page) throw new StoreError(`cannot open ${JSON.stringify(text)}: give an http(s) URL, a file: URL or a directory path`);
  return { base: new URL(text, page).href, fetch: userFetch ?? globalThis.fetch.bind(globalThis) };
}
