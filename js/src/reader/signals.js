/**
 * Small helpers for cancellation: sleeping, racing a promise against a signal, and sharing one
 * piece of work between several callers that may each give up.
 * @module
 */
import { abortError, deadlineError } from './errors.js';

/**
 * Resolve after `ms`, or reject as soon as `signal` aborts (the timer is cleared then).
 * @param {number} ms
 * @param {AbortSignal} [signal]
 */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(undefined);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The promise's result, or an AbortError as soon as `signal` aborts.
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal} [signal]
 * @returns {Promise<T>}
 */
export function raceSignal(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * A signal that aborts when either parent does; `dispose` detaches it from the parents.
 * @param {AbortSignal | undefined} a
 * @param {AbortSignal | undefined} b
 */
export function linkSignals(a, b) {
  const controller = new AbortController();
  const parents = [a, b].filter((parent) => parent != null);
  const abort = (/** @type {Event} */ event) => controller.abort(/** @type {AbortSignal} */ (event.target).reason);
  for (const parent of parents) {
    if (parent.aborted) controller.abort(parent.reason);
    else parent.addEventListener('abort', abort, { once: true });
  }
  const dispose = () => parents.forEach((p) => p.removeEventListener('abort', abort));
  return { signal: controller.signal, controller, dispose };
}

/**
 * A signal for one call: it aborts when the caller's does, or with the call's deadline error once
 * `ms` have passed, so every request, retry and wait of the call ends then; `dispose` stops the clock.
 * @param {AbortSignal | undefined} signal the caller's
 * @param {number} ms @param {string} url the store's, for the error
 */
export function callSignal(signal, ms, url) {
  const link = linkSignals(signal, undefined);
  const timer = setTimeout(() => link.controller.abort(deadlineError(url, ms)), ms);
  return {
    signal: link.signal,
    dispose: () => {
      clearTimeout(timer);
      link.dispose();
    },
  };
}

/**
 * One piece of shared work in flight: its controller, how many callers still wait for it, its
 * result, and the ticket its requests wait in line with (every caller's ticket joins it).
 * @template [T=unknown]
 * @typedef {{ controller: AbortController, waiters: number, promise: Promise<T>, ticket: import('./limiter.js').Ticket }} SharedWork
 */

/**
 * Work shared by key between callers: the first caller starts `run` with a signal of its own,
 * later callers join it, and the work is aborted only when every caller has given up (or
 * `abortAll` is called). Settled work leaves the map. The work's requests wait in line with the
 * first caller's ticket, which every later caller's joins: a frame that joins a read-ahead of the
 * same chunk moves it up.
 * @template T
 * @param {Map<string, SharedWork>} inflight work by key; the work under one key always resolves to one type
 * @param {string} key
 * @param {AbortSignal | undefined} signal the caller's signal
 * @param {import('./limiter.js').Ticket} ticket the caller's place in line
 * @param {(signal: AbortSignal, ticket: import('./limiter.js').Ticket) => Promise<T>} run
 * @returns {Promise<T>}
 */
export function shared(inflight, key, signal, ticket, run) {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  let entry = /** @type {SharedWork<T> | undefined} */ (inflight.get(key));
  if (!entry) {
    const controller = new AbortController();
    entry = { controller, waiters: 0, promise: /** @type {Promise<T>} */ (/** @type {unknown} */ (null)), ticket };
    const current = entry;
    entry.promise = Promise.resolve()
      .then(() => run(controller.signal, ticket))
      .finally(() => {
        if (inflight.get(key) === current) inflight.delete(key);
      });
    entry.promise.catch(() => {});
    inflight.set(key, entry);
  }
  const current = entry;
  current.ticket.join(ticket);
  current.waiters++;
  if (!signal) {
    return current.promise.finally(() => current.waiters--);
  }
  return new Promise((resolve, reject) => {
    let done = false;
    const onAbort = () => {
      if (done) return;
      done = true;
      current.waiters--;
      if (current.waiters <= 0) {
        current.controller.abort(signal.reason);
        if (inflight.get(key) === current) inflight.delete(key);
      }
      reject(abortError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    current.promise.then(
      (/** @type {T} */ value) => {
        if (done) return;
        done = true;
        current.waiters--;
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (/** @type {unknown} */ err) => {
        if (done) return;
        done = true;
        current.waiters--;
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Abort every piece of shared work in the map and forget it. @param {Map<string, SharedWork>} inflight */
export function abortAll(inflight) {
  for (const entry of inflight.values()) entry.controller.abort();
  inflight.clear();
}
