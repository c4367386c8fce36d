/**
 * The viewer's current timestep, held here and nowhere else. Whatever changes it (the timeline,
 * playback, keys, the embed API, a click on the chart) calls `set`; whatever shows it (the scene,
 * the timeline, the date, the split view, the address, the embed message) listens for the `time`
 * event. So a control never calls another control, and a new part only subscribes.
 * @module
 */

/**
 * @typedef {'user' | 'playback' | 'api' | 'open'} TimeSource who changed the timestep: a person, playback,
 *   the embed or test API, or the first view
 * @typedef {{ t: number, previous: number, changed: boolean, source: TimeSource }} TimeChange
 */

/**
 * @param {number} nTime timesteps in the store (at least one)
 * @param {number} first the timestep to start at (clamped)
 */
export function createClock(nTime, first) {
  const events = new EventTarget();
  const clamp = (/** @type {number} */ t) => Math.max(0, Math.min(nTime - 1, Math.trunc(Number.isFinite(t) ? t : 0)));
  let t = clamp(first);
  return {
    get t() {
      return t;
    },
    nTime,
    /**
     * Ask for timestep `next` (clamped to the store's axis) and tell every listener, also when it
     * did not change (a listener may have been made after the last change).
     * @param {number} next @param {TimeSource} [source]
     */
    set(next, source = 'user') {
      const previous = t;
      t = clamp(next);
      /** @type {TimeChange} */
      const detail = { t, previous, changed: t !== previous, source };
      events.dispatchEvent(new CustomEvent('time', { detail }));
    },
    /**
     * Call `listener` on every change from now on; returns the function that stops it.
     * @param {(change: TimeChange) => void} listener
     */
    on(listener) {
      const handler = (/** @type {Event} */ e) => listener(/** @type {CustomEvent<TimeChange>} */ (e).detail);
      events.addEventListener('time', handler);
      return () => events.removeEventListener('time', handler);
    },
  };
}

/** @typedef {ReturnType<typeof createClock>} Clock */
