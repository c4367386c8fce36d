/**
 * One request to a store's host, with the status rules static hosting needs and the retries: 404
 * and 410 are a missing key, 403 an error (a missing key under `forbiddenIsNotFound`), 5xx, network
 * errors and waits past `timeoutMs` are retried after `retryDelaysMs`, and no body may exceed its
 * bound. transport.js builds the store's URLs and the kinds of request (GET, ranges, HEAD) on it.
 * @module
 */
import { refuseTransformed } from './answers.js';
import { FetchError, StoreError, abortError, isAbort } from './errors.js';
import { METADATA, isForeground } from './limiter.js';
import { discard, readBody } from './response-body.js';
import { sleep } from './signals.js';
import { watchdog } from './watchdog.js';

/**
 * @typedef {object} RequestRules
 * @property {typeof fetch} fetch
 * @property {number[]} retryDelaysMs
 * @property {{ acquire: (t: import('./limiter.js').Ticket, s?: AbortSignal) => Promise<() => void> }} limiter
 * @property {import('./transport.js').TransportStats} stats
 * @property {number} timeoutMs bound on each wait: for the headers, and between body reads
 * @property {boolean} forbiddenIsNotFound a 403 is a missing key
 */

/** @param {RequestRules} rules */
export function createRequester({ fetch, retryDelaysMs, limiter, stats, timeoutMs, forbiddenIsNotFound }) {
  /**
   * One request with retries. Resolves null for a missing key, else { status, headers, body }.
   * @param {string} where the object's URL
   * @param {Record<string, string>} headers
   * @param {'gets' | 'ranges' | 'suffixes' | 'heads'} kind
   * @param {number} limit largest acceptable body
   * @param {{ signal?: AbortSignal, priority?: import('./limiter.js').Ticket, method?: 'GET' | 'HEAD' }} options
   * @returns {Promise<import('./answers.js').Answer | null>}
   */
  return async function request(where, headers, kind, limit, { signal, priority = METADATA, method = 'GET' }) {
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
  };
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
