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
 * The request and its retries are request.js's; this module makes the store's URLs and the kinds
 * of request on them, and checks that a range came back as asked.
 * @module
 */
import { checkPartial, contentRangeTotal } from './answers.js';
import { FetchError } from './errors.js';
import { REQUEST_TIMEOUT_MS } from './limits.js';
import { createRequester } from './request.js';

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

  const request = createRequester({ fetch, retryDelaysMs, limiter, stats, timeoutMs, forbiddenIsNotFound });

  /**
   * The whole object, or null when it is not there.
   * @param {string} key
   * @param {{ signal?: AbortSignal, priority?: import('./limiter.js').Ticket, limit?: number }} [options]
   * @returns {Promise<Uint8Array | null>}
   */
  async function get(key, options = {}) {
    const answer = await request(url(key), {}, 'gets', options.limit ?? maxObjectBytes, options);
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
    const answer = await request(url(key), { Range: `bytes=${start}-${start + length - 1}` }, 'ranges', Math.max(length, maxObjectBytes), options);
    if (!answer) return null;
    return rangeBody(answer, url(key), start, length, stats);
  }

  /**
   * The last `length` bytes (a suffix range; browsers preflight it cross-origin).
   * @param {string} key
   * @param {number} length
   * @param {{ signal?: AbortSignal, priority?: import('./limiter.js').Ticket }} [options]
   * @returns {Promise<Uint8Array | null>}
   */
  async function suffix(key, length, options = {}) {
    const answer = await request(url(key), { Range: `bytes=-${length}` }, 'suffixes', maxObjectBytes, options);
    if (!answer) return null;
    return suffixBody(answer, url(key), length, stats);
  }

  /**
   * The object's length from a HEAD, or null when it is not there: for a shard that
   * chronozarr.shard_bytes does not list, so its index is still read with a bounded range.
   * @param {string} key
   * @param {{ signal?: AbortSignal, priority?: import('./limiter.js').Ticket }} [options]
   * @returns {Promise<number | null>}
   */
  async function size(key, options = {}) {
    const answer = await request(url(key), {}, 'heads', 0, { ...options, method: 'HEAD' });
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
 * The bytes of a range answer: a 206 with the Content-Range asked for, or a 200 (the whole object)
 * cut here.
 * @param {import('./answers.js').Answer} answer @param {string} where @param {number} start @param {number} length
 * @param {TransportStats} stats
 */
function rangeBody(answer, where, start, length, stats) {
  const end = start + length - 1;
  if (answer.status === 200) {
    stats.rangeAnsweredWhole++;
    if (answer.body.length < end + 1) throw new FetchError(where, 200, `object shorter than the byte range ${start}-${end}`);
    return answer.body.subarray(start, end + 1);
  }
  checkPartial(answer, where, start, end, length);
  return answer.body;
}

/**
 * The bytes of a suffix answer: a 206 of the last `length` bytes, or a 200 (the whole object) cut here.
 * @param {import('./answers.js').Answer} answer @param {string} where @param {number} length @param {TransportStats} stats
 */
function suffixBody(answer, where, length, stats) {
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
