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
  let raf = 0;
  let last = 0;
  /** The buffering progress last shown. */
  let said = '';

  /** @param {number} lod @param {{ row: number, col: number }[]} cells */
  function loopBytes(lod, cells) {
    const cs = store.levels[lod].chunkSize;
    const bytesPer = { uint8: 1, uint16: 2, int16: 2, float32: 4 }[store.dtype];
    return n * cells.length * cs * cs * (store.bands.length * bytesPer + (store.hasMask ? 1 : 0));
  }

  /**
   * Start: the scene reads the loop ahead (its one read-ahead policy, scene-loads.js, told by
   * onState) and this waits, frame by frame, until that read is done before stepping.
   */
  function play() {
    if (state !== 'stopped' || n < 2) return;
    const { lod, cells } = view();
    const budget = budgetBytes ?? 0.45 * (store.stats().totalBytes || 768 * 2 ** 20);
    const need = loopBytes(lod, cells);
    if (need > budget) {
      fail(`Paused: the loop needs ${mb(need)} at this zoom and the cache holds ${mb(budget)} for playback. Zoom in to play.`);
      return;
    }
    state = 'buffering';
    onState(state, (said = '0%'));
    raf = requestAnimationFrame(buffering);
  }

  /** While buffering, once per animation frame: show how far the loop's read has got, and play once it is done. */
  function buffering() {
    if (state !== 'buffering') return;
    const { state: read, done, total, failed } = loop();
    if (read === 'budget') return fail('Paused: the loop is larger than the cache holds for playback at this zoom. Zoom in to play.');
    if (read === 'done' && failed > 0) return fail(`Paused: the loop could not be buffered (${failed} of ${total} chunks could not be read).`);
    if (read === 'done') {
      state = 'playing';
      onState(state);
      last = performance.now();
      raf = requestAnimationFrame(tick);
      return;
    }
    const shown = `${total ? Math.round((100 * done) / total) : 0}%`;
    if (shown !== said) onState('buffering', (said = shown));
    raf = requestAnimationFrame(buffering);
  }

  /** @param {number} now */
  function tick(now) {
    if (state !== 'playing') return;
    const { wanted, painted } = position();
    if (painted === wanted && now - last >= 1000 / speed - 2) {
      last = now;
      step((wanted + 1) % n);
    }
    raf = requestAnimationFrame(tick);
  }

  function stop() {
    cancelAnimationFrame(raf);
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

const mb = (/** @type {number} */ b) => `${Math.round(b / 2 ** 20)} MB`;
