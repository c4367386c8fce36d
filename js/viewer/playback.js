/**
 * Playback: wait for the loop of the cells on screen to be read (by the scene's read-ahead, which
 * playing turns to the whole loop), then step through it at the chosen speed, one step at a time
 * and only after the previous step has been painted (so every step is shown, in order). When the
 * loop cannot be buffered (larger than the cache, or a chunk fails) playback pauses with a message.
 * @module
 */

/** Steps per second the viewer offers. */
export const SPEEDS = /** @type {const} */ ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 20, 24, 30, 40, 48, 60]);

/** Steps per second until the user picks another. */
export const DEFAULT_SPEED = 4;

/** The offered speed nearest `v`. @param {number} v */
export function snapSpeed(v) {
  /** @type {number} */
  let best = SPEEDS[0];
  for (const s of SPEEDS) if (Math.abs(s - v) < Math.abs(best - v)) best = s;
  return best;
}

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {() => { lod: number, cells: { row: number, col: number }[] }} o.view
 * @param {() => { wanted: number, painted: number | null }} o.position
 * @param {() => import('../lib/scene-loads.js').LoopStatus} o.loop how far the scene's read-ahead of the loop has got
 * @param {(t: number) => void} o.step
 * @param {(state: 'stopped' | 'buffering' | 'playing', detail?: string) => void} o.onState
 * @param {(message: string) => void} o.onFail
 */
export function createPlayback({ store, view, position, loop, step, onState, onFail }) {
  const n = store.times.length;
  let state = /** @type {'stopped' | 'buffering' | 'playing'} */ ('stopped');
  let speed = DEFAULT_SPEED;
  /** @type {number | null} bytes the loop may take; null: 45 % of the reader's cache */
  let budgetBytes = null;
  /** Cancels the animation frames of the phase running (buffering or stepping). */
  let cancel = () => {};

  /**
   * Start: the scene reads the loop ahead (its one read-ahead policy, scene-loads.js, told by
   * onState) and this waits, frame by frame, until that read is done before stepping.
   */
  function play() {
    if (state !== 'stopped' || n < 2) return;
    const refused = loopRefusal(store, budgetBytes, view());
    if (refused) {
      fail(refused);
      return;
    }
    state = 'buffering';
    onState(state, '0%');
    const active = () => state === 'buffering';
    cancel = bufferLoop(loop, { active, progress: (shown) => onState('buffering', shown), done: stepping, failure: fail });
  }

  /** The loop is read: step through it. */
  function stepping() {
    state = 'playing';
    onState(state);
    cancel = stepLoop({ n, position, step, speed: () => speed, active: () => state === 'playing' });
  }

  function stop() {
    cancel();
    if (state !== 'stopped') {
      state = 'stopped';
      onState(state);
    }
  }

  /** @param {string} message */
  function fail(message) {
    stop();
    onFail(message);
  }

  return {
    play,
    stop,
    toggle: () => (state === 'stopped' ? play() : stop()),
    get state() {
      return state;
    },
    get playing() {
      return state !== 'stopped';
    },
    /** @param {number | null} bytes */
    setBudget(bytes) {
      budgetBytes = bytes;
    },
    get speed() {
      return speed;
    },
    set speed(v) {
      speed = snapSpeed(v);
    },
  };
}

/**
 * Buffering, once per animation frame while `active`: `progress` with how far the loop's read has
 * got when that changed, until it is `done` or a `failure` says why it cannot play. Returns what
 * cancels it.
 * @param {() => import('../lib/scene-loads.js').LoopStatus} loop
 * @param {{ active: () => boolean, progress: (shown: string) => void, done: () => void, failure: (message: string) => void }} on
 */
function bufferLoop(loop, on) {
  /** The buffering progress last shown. */
  let said = '0%';
  let raf = requestAnimationFrame(frame);
  function frame() {
    if (!on.active()) return;
    const next = bufferingNext(loop());
    if ('failure' in next) return on.failure(next.failure);
    if ('done' in next) return on.done();
    if (next.shown !== said) on.progress((said = next.shown));
    raf = requestAnimationFrame(frame);
  }
  return () => cancelAnimationFrame(raf);
}

/**
 * Stepping, once per animation frame while `active`: the next timestep once the one asked is
 * painted and a step's time at `speed` has passed, so every step is shown, in order. Returns what
 * cancels it.
 * @param {object} o
 * @param {number} o.n timesteps in the loop
 * @param {() => { wanted: number, painted: number | null }} o.position
 * @param {(t: number) => void} o.step
 * @param {() => number} o.speed steps per second now
 * @param {() => boolean} o.active
 */
function stepLoop({ n, position, step, speed, active }) {
  let last = performance.now();
  let raf = requestAnimationFrame(tick);
  /** @param {number} now */
  function tick(now) {
    if (!active()) return;
    const { wanted, painted } = position();
    if (painted === wanted && now - last >= 1000 / speed() - 2) {
      last = now;
      step((wanted + 1) % n);
    }
    raf = requestAnimationFrame(tick);
  }
  return () => cancelAnimationFrame(raf);
}

/**
 * Why the loop of the view cannot play: its bytes (every timestep of the cells on screen, bands
 * and mask) over the budget (or 45 % of the reader's cache); null when it fits.
 * @param {import('../lib/typedefs.js').Store} store @param {number | null} budgetBytes
 * @param {{ lod: number, cells: { row: number, col: number }[] }} view
 */
function loopRefusal(store, budgetBytes, { lod, cells }) {
  const budget = budgetBytes ?? 0.45 * (store.stats().totalBytes || 768 * 2 ** 20);
  const cs = store.levels[lod].chunkSize;
  const bytesPer = { uint8: 1, uint16: 2, int16: 2, float32: 4 }[store.dtype];
  const need = store.times.length * cells.length * cs * cs * (store.bands.length * bytesPer + (store.hasMask ? 1 : 0));
  return need > budget ? `Paused: the loop needs ${mb(need)} at this zoom and the cache holds ${mb(budget)} for playback. Zoom in to play.` : null;
}

/**
 * What the loop's read-ahead status means while buffering: a failure to pause with, done (play),
 * or the progress to show.
 * @param {import('../lib/scene-loads.js').LoopStatus} status
 * @returns {{ failure: string } | { done: true } | { shown: string }}
 */
function bufferingNext({ state: read, done, total, failed }) {
  if (read === 'budget') return { failure: 'Paused: the loop is larger than the cache holds for playback at this zoom. Zoom in to play.' };
  if (read === 'done' && failed > 0) return { failure: `Paused: the loop could not be buffered (${failed} of ${total} chunks could not be read).` };
  if (read === 'done') return { done: true };
  return { shown: `${total ? Math.round((100 * done) / total) : 0}%` };
}

const mb = (/** @type {number} */ b) => `${Math.round(b / 2 ** 20)} MB`;
