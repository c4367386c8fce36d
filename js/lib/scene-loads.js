/**
 * The scene's loading: the loads of the load plan (load-plan.js: a coarse picture while the view
 * shows nothing, the frame, the timesteps a step away once it is complete), each asked of the
 * reader with its priority; loads the plan no longer has are dropped when the view or time moves
 * on, and one it ranks higher is moved up. Once the frame is complete, the rest is read ahead into
 * the reader's cache at the lowest priority, as the plan's readAheadRequest says: timesteps around
 * the asked one in windowOrder, or the whole loop while playing. Also when the asked timestep replaces the one on screen, and the retry after a
 * failed load (which keeps its priority).
 * @module
 */
import { pictureLevel } from './camera.js';
import { gpuEntryId as key } from './gpu-chunks.js';
import { loadPlan, readAheadRequest } from './load-plan.js';
import { RANKS } from '../src/reader/limiter.js';

const RETRY_MS = 2000;

/** @typedef {{ row: number, col: number }} CellAt */
/** @typedef {{ controller: AbortController, rank: number }} Load */
/**
 * The read-ahead of the loop while playing: `waiting` for the frame to be complete, `reading`,
 * then as the reader's prefetch ended: `done` (every chunk read, `failed` of them not), `budget`
 * (the loop is larger than the cache's share) or `aborted` (the view moved: a new run follows).
 * @typedef {{ state: 'waiting' | 'reading' | 'done' | 'budget' | 'aborted', done: number, total: number, failed: number }} LoopStatus
 */

/**
 * @param {import('./scene.js').SceneParts} parts
 * @param {ReturnType<typeof import('./scene-paint.js').createScenePaint>} painter
 * @param {(err: Error, where: { lod: number, row: number, col: number, t: number }) => void} onError
 */
export function createSceneLoads({ store, state, memory, stats, coarsest, visibleAt, has, shaderDelta, uploads }, painter, onError) {
  /** @type {Map<string, Load>} */
  const loads = new Map();
  /** @type {ReturnType<typeof setTimeout> | 0} */ let retryTimer = 0;
  /** What was last read ahead (level, cells, timestep, playing), so a refresh asks once. */
  let readingAhead = '';
  /** @type {LoopStatus} how far the read-ahead of the loop has got while playing */
  let loop = { state: 'waiting', done: 0, total: 0, failed: 0 };

  /** The load plan of the view now. */
  function plan() {
    const { lod, wantedT, shownT, texelPx, size } = state;
    const showing = shownT != null && visibleAt(lod).every((c) => has(lod, c, shownT));
    const picture = pictureLevel(texelPx, size.dpr, lod, coarsest);
    return loadPlan({ lod, picture, t: wantedT, direction: state.direction, nTime: store.times.length, visibleAt, has, showing });
  }

  /** Every visible cell of the asked level is on the GPU at the asked timestep. */
  const frameComplete = () => visibleAt(state.lod).every((c) => has(state.lod, c, state.wantedT));

  /** Start the loads the view needs, drop those it no longer needs, and switch time if ready. */
  function refresh() {
    if (state.destroyed) return;
    // A timestep already on the GPU everywhere is swapped in before any load starts, and painted
    // now rather than on the next animation frame (a step to a neighbour read ahead costs nothing).
    const swapped = advance();
    const needs = plan();
    const wanted = new Set(needs.map((n) => key(n.lod, n.cell.row, n.cell.col, n.t)));
    for (const [k, load] of loads) {
      if (!wanted.has(k)) {
        load.controller.abort();
        loads.delete(k);
        stats.aborted++;
      }
    }
    for (const n of needs) ensure(n.lod, n.cell.row, n.cell.col, n.t, n.priority);
    const complete = frameComplete();
    if (complete) readAhead();
    if (swapped && complete && state.look) painter.paintNow();
    else painter.redraw();
  }

  /**
   * Once the frame is complete, read the rest ahead into the reader's cache as the load plan says
   * (readAheadRequest: behind everything else, asked once per view, time and playing state).
   */
  function readAhead() {
    if (!state.readAhead) return;
    const { lod, wantedT, playing } = state;
    const ahead = readAheadRequest({ lod, cells: visibleAt(lod), t: wantedT, playing, complete: frameComplete() });
    if (!ahead || ahead.key === readingAhead) return;
    readingAhead = ahead.key;
    const status = /** @type {LoopStatus} */ ({ state: 'reading', done: 0, total: 0, failed: 0 });
    if (playing) loop = status;
    const onProgress = (/** @type {number} */ done, /** @type {number} */ total) => Object.assign(status, { done, total });
    const { cells, t, priority } = ahead;
    store.prefetch({ lod, cells, t, playing, masks: store.hasMask, stored: shaderDelta, priority, onProgress }).then(
      (r) => Object.assign(status, { state: r.state, failed: r.failed }),
      () => Object.assign(status, { state: 'aborted' }),
    );
  }

  /**
   * Have cell (row, col) of level k at timestep t on the GPU: held already, loading (moved up if
   * `priority` ranks higher than what it loads with), or loaded now.
   * @param {number} k @param {number} row @param {number} col @param {number} t
   * @param {import('../src/reader/limiter.js').Priority} priority
   */
  function ensure(k, row, col, t, priority) {
    const id = key(k, row, col, t);
    const held = memory.get(id);
    if (held) {
      memory.touch(held);
      return;
    }
    const loading = loads.get(id);
    if (loading) {
      if (RANKS[priority] < loading.rank) {
        // Asking again with the better rank joins the load in the reader and moves it up.
        loading.rank = RANKS[priority];
        store.getCell(k, row, col, t, { signal: loading.controller.signal, stored: shaderDelta, priority }).catch(() => {});
        const anchorT = shaderDelta ? store.referenceOf(t) : null;
        if (anchorT != null) memory.anchorFor(k, row, col, anchorT, priority);
      }
      return;
    }
    const ctrl = new AbortController();
    const load = { controller: ctrl, rank: RANKS[priority] };
    loads.set(id, load);
    const anchorT = shaderDelta ? store.referenceOf(t) ?? t : null;
    const anchor = anchorT == null ? null : memory.anchorFor(k, row, col, anchorT, priority);
    if (anchor) anchor.waiting++;
    let waiting = Boolean(anchor);
    const settle = () => {
      if (waiting && anchor) anchor.waiting--;
      waiting = false;
    };
    Promise.all([store.getCell(k, row, col, t, { signal: ctrl.signal, stored: shaderDelta, priority }), anchor?.promise]).then(
      // The anchor stays waited for until the upload: an idle anchor may be evicted.
      ([stored]) => uploads.submit(stored.data.byteLength + (stored.mask?.byteLength ?? 0), () => {
        settle();
        if (loads.get(id) !== load || state.destroyed) {
          if (anchor) memory.releaseAnchor(anchor);
          return;
        }
        loads.delete(id);
        memory.add(id, { lod: k, row, col, t }, stored, anchor);
        memory.evict(needed);
        advance();
        loaded(k, t);
      }),
      (err) => {
        settle();
        if (anchor) memory.releaseAnchor(anchor);
        if (loads.get(id) === load) loads.delete(id);
        if (ctrl.signal.aborted || state.destroyed || err?.name === 'AbortError') return;
        stats.failed++;
        onError(err, { lod: k, row, col, t });
        clearTimeout(retryTimer);
        retryTimer = setTimeout(refresh, RETRY_MS);
      },
    );
  }

  /** A cell of level k at timestep t is on the GPU: paint what it adds to the frame on screen. @param {number} k @param {number} t */
  function loaded(k, t) {
    const { lod, wantedT, shownT } = state;
    if (t !== shownT) return; // a neighbour loaded ahead, or a stand-in for a timestep not shown yet
    // The frame this completes is painted now rather than on the next animation frame.
    if (state.look && shownT === wantedT && k === lod && frameComplete()) {
      painter.paintNow();
      refresh(); // the frame is complete: what comes after it in the plan starts now
    } else painter.redrawProgress();
  }

  /** Switch the frame to the asked timestep once every visible cell of the asked level has it; whether it did. */
  function advance() {
    const { lod, wantedT, shownT } = state;
    if (wantedT === shownT) return false;
    const target = visibleAt(lod);
    if (shownT != null && !target.every((c) => has(lod, c, wantedT))) return false;
    state.shownT = wantedT;
    state.swapAt = performance.now();
    painter.invalidate();
    return true;
  }

  /** Keys of the chunks the view needs, which eviction keeps: every level from the coarsest to the asked one, at the asked and the shown timestep. */
  function needed() {
    const { lod, wantedT, shownT } = state;
    const keep = new Set();
    for (let k = coarsest; k >= lod; k--) {
      for (const c of visibleAt(k)) {
        keep.add(key(k, c.row, c.col, wantedT));
        if (shownT != null) keep.add(key(k, c.row, c.col, shownT));
      }
    }
    return keep;
  }

  return {
    refresh,
    readAhead,
    /** The read-ahead of the whole loop, started when playback asks for it (state.playing). */
    get loop() {
      return loop;
    },
    /** Playback stopped or started: what the loop's read-ahead has done starts again from nothing. */
    resetLoop() {
      loop = { state: 'waiting', done: 0, total: 0, failed: 0 };
      readingAhead = '';
    },
    get pending() {
      return loads.size;
    },
    /** Abort every load and the pending retry (the scene is destroyed). */
    cancel() {
      clearTimeout(retryTimer);
      uploads.cancel();
      for (const load of loads.values()) load.controller.abort();
      loads.clear();
    },
  };
}
