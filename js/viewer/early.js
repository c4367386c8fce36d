/**
 * The request for the store's root zarr.json that the standalone page (index.html) makes before
 * the app's script has loaded: a fetch for the reader that answers that one request with it, and
 * every other request (or this one again, or a failed early attempt) over the network.
 * @module
 */

/**
 * @typedef {object} EarlyRequest
 * @property {string} url the root zarr.json's URL, as the reader's transport spells it
 * @property {AbortController} controller aborts the early request
 * @property {Promise<Response | null>} response null when it failed to reach the host
 */

/**
 * A fetch that takes the early answer to its URL's first plain GET.
 * @param {EarlyRequest | undefined} early
 * @returns {typeof fetch | undefined} undefined when the page made no early request
 */
export function earlyFetch(early) {
  if (!early) return undefined;
  /** @type {EarlyRequest | null} */
  let pending = early;
  const network = globalThis.fetch.bind(globalThis);
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const plain = (init?.method ?? 'GET') === 'GET' && !new Headers(init?.headers).has('range');
    if (pending && plain && url === pending.url) {
      const taken = pending;
      pending = null;
      // The reader's deadline and its caller's abort reach the early request too.
      const signal = init?.signal;
      if (signal?.aborted) taken.controller.abort(signal.reason);
      else signal?.addEventListener('abort', () => taken.controller.abort(signal.reason), { once: true });
      const response = await taken.response;
      if (response) return response;
      signal?.throwIfAborted();
    }
    return network(input, init);
  };
}
