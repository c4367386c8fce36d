/**
 * Reading a store's objects over fetch with the rules static hosting needs: 404 and 410 are a
 * missing key (fill), 403 is an error (a missing key under `forbiddenIsNotFound`), 5xx and network
 * errors are retried after `retryDelaysMs`,
 * a range must come back 206 with the Content-Range asked for (a 200 is cut locally), no body may
 * exceed its bound, and a signed URL's query goes with every request.
 *
 * Every wait of a request is bounded by `timeoutMs`: until the answer's headers arrive, and
 * between any two reads of its body. A wait that runs out is a failed attempt and is retried like
 * a network error, so with the defaults (10 s, retries after 0.25, 1 and 3 s) a server that never
 * answers is given up on after about 4 x 10 + 4.25 = 44 seconds.
 * @module
 */
import { checkPartial, contentRangeTotal, refuseTransformed } from './answers.js';
import { FetchError, StoreError, abortError, isAbort } from './errors.js';
import { METADATA, isForeground } from './limiter.js';
import { REQUEST_TIMEOUT_MS } from './limits.js';
import { discard, readBody } from './response-body.js';
import { sleep } from './signals.js';
import { watchdog } from './watchdog.js';

/** Default bound on each wait of a request, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = REQUEST_TIMEOUT_MS;
/** Default waits before each retry of a failed attempt, in milliseconds. */
export const DEFAULT_RETRY_DELAYS_MS = Object.freeze([250, 1000, 3000]);

/**
 * @typedef {object} TransportStats
 * @property {number} requests
 * @property {number} gets
 * @property {number} ranges
 * @property {number} suffixes
 * @property {number} heads
 * @property {number} bytes
 * @property {number} missing
 * @property {number} retries
 * @property {number} aborted
 * @property {number} rangeAnsweredWhole
 */

/** @returns {TransportStats} */
export const emptyTransportStats = () => ({
  requests: 0, gets: 0, ranges: 0, suffixes: 0, heads: 0, bytes: 0, missing: 0, retries: 0, aborted: 0, rangeAnsweredWhole: 0,
});

/**
 * @param {object} options
 * @param {string} options.base store URL (http, https, file), without a trailing slash
 * @param {typeof fetch} options.fetch
 * @param {number[]} options.retryDelaysMs
 * @param {{ acquire: (t: import('./limiter.js').Ticket, s?: AbortSignal) => Promise<() => void> }} options.limiter
 * @param {number} options.maxObjectBytes
 * @param {TransportStats} options.stats
 * @param {number} [options.timeoutMs] bound on each wait: for the headers, and between body reads
 * @param {boolean} [options.forbiddenIsNotFound] a 403 is a missing key (hosts that answer so for absent keys)
 */
export function createTransport({ base, fetch, retryDelaysMs, limiter, maxObjectBytes, stats, timeoutMs = DEFAULT_TIMEOUT_MS, forbiddenIsNotFound = false }) {
  const parsed = new URL(base);
  const query = parsed.search;
  parsed.search = '';
  parsed.hash = '';
  const root = parsed.href.replace(/\/+$/, '');

  /** @param {string} key */
  const url = (key) => `${root}/${key.split('/').map(encodeURIComponent).join('/')}${query}`;

  /**
   * One request with retries. Resolves null for a missing key, else { status, headers, body }.
   * @param {string} key
   * @param {Record<string, string>} headers
   * @param {'gets' | 'ranges' | 'suffixes' | 'heads'} kind
   * @param {number} limit largest acceptable body
   * @param {{ signal?: AbortSignal, priority?: import('./limiter.js').Ticket, method?: 'GET' | 'HEAD' }} options
   * @returns {Promise<import('./answers.js').Answer | null>}
   */
  async function request(key, headers, kind, limit, { signal, priority = METADATA, method = 'GET' }) {
    const where = url(key);
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw abortError(signal);
      let status = null;
      let reason;
      let cause;
      const release = await limiter.acquire(priority, signal);
      const watch = watchdog(timeoutMs, signal);
      try {
        stats.requests++;
        stats[kind]++;
        // The browser is told the rank too: of the requests handed over, read-ahead goes behind the
        // rest (a host allows a browser a few connections; the limiter only orders what waits).
        const init = { method, headers, signal: watch.signal };
        const response = await fetch(where, isForeground(priority) ? init : { ...init, priority: 'low' });
        watch.arm(); // from here the clock runs between reads of the body
        status = response.status;
        if (status === 404 || status === 410 || (status === 403 && forbiddenIsNotFound)) {
          await discard(response);
          stats.missing++;
          return null;
        }
        if (status === 403) {
          await discard(response);
          throw new FetchError(where, status, 'access forbidden; the host refuses this key (a private bucket, or one that answers 403 for absent keys: pass forbiddenIsNotFound: true for that)');
        }
        if (status < 500) {
          refuseTransformed(response, where);
          const body = method === 'HEAD' ? new Uint8Array(0) : await readBody(response, limit, where, watch);
          stats.bytes += body.length;
          return { status, headers: response.headers, body };
        }
        await discard(response);
        reason = 'server error';
      } catch (err) {
        if (err instanceof FetchError || err instanceof StoreError) throw err;
        if (signal?.aborted || (isAbort(err) && !watch.expired)) {
          stats.aborted++;
          throw signal?.aborted ? named(abortError(signal), where, status) : err;
        }
        reason = failure(err, status, watch, timeoutMs);
        cause = err;
      } finally {
        watch.dispose();
        release();
      }
      if (attempt >= retryDelaysMs.length) {
        throw new FetchError(where, status, `${reason}, gave up after ${attempt + 1} attempts`, { cause });
      }
      stats.retries++;
      await sleep(retryDelaysMs[attempt], signal).catch((err) => {
        throw named(err, where, status);
      });
    }
  }

  /**
   * The whole object, or null when it is not there.
   * @param {string} key
   * @param {{ signal?: AbortSignal, priority?: import('./limiter.js').Ticket, limit?: number }} [options]
   * @returns {Promise<Uint8Array | null>}
   */
  async function get(key, options = {}) {
    const answer = await request(key, {}, 'gets', options.limit ?? maxObjectBytes, options);
    if (!answer) return null;
    if (answer.status !== 200) throw new FetchError(url(key), answer.status, 'unexpected status for a GET');
    return answer.body;
  }

  /**
   * `length` bytes from `start` (a bounded range, which browsers send without a preflight).
   * @param {string} key
   * @param {number} start
   * @param {number} length
   * @param {{ signal?: AbortSignal, priority?: import('./limiter.js').Ticket }} [options]
   * @returns {Promise<Uint8Array | null>}
   */
  async function range(key, start, length, options = {}) {
    const end = start + length - 1;
    const answer = await request(key, { Range: `bytes=${start}-${end}` }, 'ranges', Math.max(length, maxObjectBytes), options);
    if (!answer) return null;
    const where = url(key);
    if (answer.status === 200) {
      stats.rangeAnsweredWhole++;
      if (answer.body.length < end + 1) throw new FetchError(where, 200, `object shorter than the byte range ${start}-${end}`);
      return answer.body.subarray(start, end + 1);
    }
    checkPartial(answer, where, start, end, length);
    return answer.body;
  }

  /**
   * The last `length` bytes (a suffix range; browsers preflight it cross-origin).
   * @param {string} key
   * @param {number} length
   * @param {{ signal?: AbortSignal, priority?: import('./limiter.js').Ticket }} [options]
   * @returns {Promise<Uint8Array | null>}
   */
  async function suffix(key, length, options = {}) {
    const answer = await request(key, { Range: `bytes=-${length}` }, 'suffixes', maxObjectBytes, options);
    if (!answer) return null;
    const where = url(key);
    if (answer.status === 200) {
      stats.rangeAnsweredWhole++;
      if (answer.body.length < length) throw new FetchError(where, 200, `object shorter than the ${length} bytes asked for`);
      return answer.body.subarray(answer.body.length - length);
    }
    const total = contentRangeTotal(answer.headers.get('content-range'));
    // A server answers a suffix longer than the object with all of it (RFC 9110 14.1.2).
    if (total != null && total < length) throw new FetchError(where, answer.status, `the object is ${total} bytes, shorter than the last ${length} bytes asked for`);
    if (total != null) checkPartial(answer, where, total - length, total - 1, length);
    else checkPartial(answer, where, null, null, length);
    return answer.body;
  }

  /**
   * The object's length from a HEAD, or null when it is not there: for a shard that
   * chronozarr.shard_bytes does not list, so its index is still read with a bounded range.
   * @param {string} key
   * @param {{ signal?: AbortSignal, priority?: import('./limiter.js').Ticket }} [options]
   * @returns {Promise<number | null>}
   */
  async function size(key, options = {}) {
    const answer = await request(key, {}, 'heads', 0, { ...options, method: 'HEAD' });
    if (!answer) return null;
    const length = Number(answer.headers.get('content-length'));
    if (answer.status !== 200 || !Number.isInteger(length) || answer.headers.get('content-length') == null) {
      throw new FetchError(url(key), answer.status, 'HEAD gave no Content-Length');
    }
    return length;
  }

  return { url, get, range, suffix, size };
}

/**
 * A call's deadline error, naming the object whose request it ended (the rest as they are).
 * @param {Error} err @param {string} where @param {number | null} status
 */
function named(err, where, status) {
  return err instanceof FetchError && err.url !== where ? new FetchError(where, status, err.reason, { cause: err }) : err;
}

/**
 * Why an attempt failed, for the error that gives up: no answer in time, a body that stalled or
 * broke off, or a request that never got an answer.
 * @param {unknown} err
 * @param {number | null} status the answer's, null when none came
 * @param {import('./watchdog.js').Watchdog} watch
 * @param {number} timeoutMs
 */
function failure(err, status, watch, timeoutMs) {
  if (watch.expired) {
    return status == null ? `no answer within the ${timeoutMs / 1000} s timeout` : `the body stalled for the ${timeoutMs / 1000} s timeout after ${watch.received} bytes`;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (status != null) return `the body broke off after ${watch.received} bytes (${message}), shorter than the server announced`;
  return `request failed (${message})`;
}
