/**
 * The loading indicator: a thin bar along the top of the map while the frame asked for is not
 * complete, filled by the share of its cells on screen; it says so when a chunk could not be
 * loaded (the scene retries it), and goes away once the frame is complete. A person never looks at
 * an empty map without a sign that something is coming.
 * @module
 */

/** How often the bar looks at the loads between paints. */
const CHECK_MS = 200;

/**
 * @param {object} o
 * @param {HTMLElement} o.bar the indicator's element
 * @param {{ readonly progress: { loaded: number, needed: number, failed: number }, readonly settled: boolean }} o.scene
 */
export function createLoading({ bar, scene }) {
  /** @type {ReturnType<typeof setTimeout> | 0} */ let timer = 0;
  /** Failures counted when the current wait began: only newer ones are this view's. */
  let failedBefore = scene.progress.failed;
  /** What the bar shows now: it is touched only when that changes (each change costs the page a frame). */
  let shown = '';

  function show() {
    const { loaded, needed, failed } = scene.progress;
    const done = scene.settled;
    const trouble = failed > failedBefore;
    const state = done ? 'done' : `${loaded}/${needed}/${trouble}`;
    if (state === shown) return !done;
    shown = state;
    bar.hidden = done;
    if (done) {
      failedBefore = failed;
      return false;
    }
    const share = needed ? loaded / needed : 0;
    bar.style.setProperty('--share', String(share));
    bar.classList.toggle('failed', trouble);
    bar.setAttribute('aria-valuenow', String(Math.round(100 * share)));
    bar.setAttribute('aria-valuetext', trouble ? `${loaded} of ${needed} parts of the view loaded; some could not be loaded and are being retried` : `${loaded} of ${needed} parts of the view loaded`);
    bar.title = trouble ? 'Some of this view could not be loaded: retrying' : 'Loading the view';
    return true;
  }

  /**
   * Follow the loads until the frame is complete (called whenever the view or time changes, and on
   * every paint): checked a few times a second between paints, not on every animation frame, so
   * waiting costs the page no frames of its own.
   */
  function watch() {
    if (!show() || timer) return;
    const tick = () => {
      timer = show() ? setTimeout(tick, CHECK_MS) : 0;
    };
    timer = setTimeout(tick, CHECK_MS);
  }

  return { watch, stop: () => clearTimeout(timer) };
}
