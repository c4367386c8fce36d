/**
 * The clock of one request attempt: an abort signal that fires when the caller's does, or when a
 * wait (for the headers, then between two reads of the body) outlasts the timeout.
 * @module
 */

/**
 * @typedef {object} Watchdog
 * @property {AbortSignal} signal aborts the attempt
 * @property {boolean} expired the timeout, not the caller, aborted it
 * @property {number} received body bytes read so far
 * @property {() => void} arm restart the clock
 * @property {(bytes: number) => void} tick a read of `bytes`: counted, and the clock restarts
 * @property {() => void} dispose stop the clock and let go of the caller's signal
 */

/**
 * The clock starts with the request, and once `arm` is called restarts at every `tick` (each read
 * of the body).
 * @param {number} ms
 * @param {AbortSignal} [outer] the caller's signal
 * @returns {Watchdog}
 */
export function watchdog(ms, outer) {
  const controller = new AbortController();
  const onOuter = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onOuter, { once: true });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {Watchdog} */
  const state = {
    signal: controller.signal,
    expired: false,
    received: 0,
    arm() {
      clearTimeout(timer);
      timer = setTimeout(() => {
        state.expired = true;
        controller.abort(new DOMException('the request timed out', 'AbortError'));
      }, ms);
    },
    tick(bytes) {
      state.received += bytes;
      state.arm();
    },
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
  state.arm();
  return state;
}
