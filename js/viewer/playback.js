/**
 * Playback: buffer the loop for the cells on screen, then step through it at the chosen speed,
 * one step at a time and only after the previous step has been painted (so every step is shown, in
 * order). When the loop cannot be buffered (larger than the cache, or a chunk fails) playback
 * pauses with a message.
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
 * @param {(t: number) => void} o.step
 * @param {(state: 'stopped' | 'buffering' | 'playing', detail?: string) => void} o.onState
 * @param {(message: string) => void} o.onFail
 * @param {boolean} [o.stored] buffer the cells as stored (star-delta residuals), as the scene draws them
 */
export function createPlayback({ store, view, position, step, onState, onFail, stored = false }) {
  const n = store.times.length;
  let state = /** @type {'stopped' | 'buffering' | 'playing'} */ ('stopped');
  let speed = DEFAULT_SPEED;
  /** @type {number | null} bytes the loop may take; null: 45 % of the reader's cache */
  let budgetBytes = null;
  let raf = 0;
  let last = 0;
  /** @type {AbortController | null} */
  let buffering = null;

  /** @param {number} lod @param {{ row: number, col: number }[]} cells */
  function loopBytes(lod, cells) {
    const cs = store.levels[lod].chunkSize;
    const bytesPer = { uint8: 1, uint16: 2, int16: 2, float32: 4 }[store.dtype];
    return n * cells.length * cs * cs * (store.bands.length * bytesPer + (store.hasMask ? 1 : 0));
  }

  async function play() {
    if (state !== 'stopped' || n < 2) return;
    const { lod, cells } = view();
    const budget = budgetBytes ?? 0.45 * (store.stats().totalBytes || 768 * 2 ** 20);
    const need = loopBytes(lod, cells);
    if (need > budget) {
      fail(`Paused: the loop needs ${mb(need)} at this zoom and the cache holds ${mb(budget)} for playback. Zoom in to play.`);
      return;
    }
    const ctrl = new AbortController();
    buffering = ctrl;
    state = 'buffering';
    onState(state, '0%');
    const from = position().wanted;
    /** @type {[number, { row: number, col: number }][]} */
    const jobs = [];
    for (let d = 0; d < n; d++) for (const c of cells) jobs.push([(from + d) % n, c]);
    let done = 0;
    let next = 0;
    /** @type {unknown} */
    let failure = null;
    const worker = async () => {
      while (next < jobs.length && !ctrl.signal.aborted && !failure) {
        const [t, c] = jobs[next++];
        try {
          // Behind the frame on screen: these join the scene's read-ahead of the loop (load-plan.js).
          await store.getCell(lod, c.row, c.col, t, { signal: ctrl.signal, stored, priority: 'background' });
        } catch (err) {
          if (!ctrl.signal.aborted) failure = err;
          return;
        }
        done++;
        if (done % Math.max(1, cells.length) === 0) onState('buffering', `${Math.round((100 * done) / jobs.length)}%`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    if (buffering !== ctrl || ctrl.signal.aborted) return;
    buffering = null;
    if (failure) {
      fail(`Paused: the loop could not be buffered (${failure instanceof Error ? failure.message : failure}).`);
      return;
    }
    state = 'playing';
    onState(state);
    last = performance.now();
    raf = requestAnimationFrame(tick);
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
    buffering?.abort();
    buffering = null;
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
