/**
 * The scene's loading: the loads of the load plan (load-plan.js: a coarse picture while the view
 * shows nothing, the frame, the timesteps a step away once it is complete), each asked of the
 * reader with its priority; loads the plan no longer has are dropped when the view or time moves
 * on, and one it ranks higher is moved up. Once the frame is complete, the rest is read ahead into
 * the reader's cache at the lowest priority, as the plan's readAheadRequest says: timesteps around
 * the asked one in windowOrder, or the whole loop while playing. Also when the asked timestep replaces the one on screen, and the retry after a
 * failed load (which keeps its priority).
 *
 * Its parts: createSceneLoads follows the plan and switches the time; createReadAhead reads ahead
 * and keeps the loop's status; createCellLoads holds the loads in flight.
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

/** @typedef {{ lod: number, row: number, col: number, t: number }} LoadAt a cell of a level at a timestep */

/**
 * @param {import('./scene.js').SceneParts} parts
 * @param {ReturnType<typeof import('./scene-paint.js').createScenePaint>} painter
 * @param {(err: Error, where: LoadAt) => void} onError
 */
export function createSceneLoads(parts, painter, onError) {
  const { state, memory, visibleAt, has } = parts;
  /** Every visible cell of the asked level is on the GPU at the asked timestep. */
  const frameComplete = () => visibleAt(state.lod).every((c) => has(state.lod, c, state.wantedT));
  const ahead = createReadAhead(parts, frameComplete);
  const cells = createCellLoads(parts, { loaded, failed: onError, retry: refresh });

  /** Start the loads the view needs, drop those it no longer needs, and switch time if ready. */
  function refresh() {
    if (state.destroyed) return;
    // A timestep already on the GPU everywhere is swapped in before any load starts, and painted
    // now rather than on the next animation frame (a step to a neighbour read ahead costs nothing).
    const swapped = advance();
    const needs = viewPlan(parts);
    cells.keepOnly(new Set(needs.map((n) => key(n.lod, n.cell.row, n.cell.col, n.t))));
    for (const n of needs) cells.ensure(n.lod, n.cell.row, n.cell.col, n.t, n.priority);
    const complete = frameComplete();
    if (complete) ahead.readAhead();
    if (swapped && complete && state.look) painter.paintNow();
    else painter.redraw();
  }

  /**
   * A cell of level k at timestep t is now on the GPU: make room for it, switch time if it was the
   * last one missing, and paint what it adds to the frame on screen.
   * @param {number} k @param {number} t
   */
  function loaded(k, t) {
    memory.evict(() => neededKeys(parts));
    advance();
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

  return {
    refresh,
    readAhead: ahead.readAhead,
    /** The read-ahead of the whole loop, started when playback asks for it (state.playing). */
    get loop() {
      return ahead.loop;
    },
    /** Playback stopped or started: what the loop's read-ahead has done starts again from nothing. */
    resetLoop: ahead.reset,
    get pending() {
      return cells.pending;
    },
    /** Abort every load and the pending retry (the scene is destroyed). */
    cancel: cells.cancel,
  };
}

/** The load plan of the view now. @param {import('./scene.js').SceneParts} parts */
function viewPlan({ store, state, coarsest, visibleAt, has }) {
  const { lod, wantedT, shownT, texelPx, size } = state;
  const showing = shownT != null && visibleAt(lod).every((c) => has(lod, c, shownT));
  const picture = pictureLevel(texelPx, size.dpr, lod, coarsest);
  return loadPlan({ lod, picture, t: wantedT, direction: state.direction, nTime: store.times.length, visibleAt, has, showing });
}

/**
 * Keys of the chunks the view needs, which eviction keeps: every level from the coarsest to the
 * asked one, at the asked and the shown timestep.
 * @param {import('./scene.js').SceneParts} parts
 */
function neededKeys({ state, coarsest, visibleAt }) {
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

/**
 * Once the frame is complete, read the rest ahead into the reader's cache as the load plan says
 * (readAheadRequest: behind everything else, asked once per view, time and playing state), and
 * keep how far the read-ahead of the loop has got while playing.
 * @param {import('./scene.js').SceneParts} parts
 * @param {() => boolean} frameComplete every visible cell of the asked level is on the GPU at the asked timestep
 */
function createReadAhead({ store, state, visibleAt, shaderDelta }, frameComplete) {
  /** What was last read ahead (level, cells, timestep, playing), so a refresh asks once. */
  let readingAhead = '';
  /** @type {LoopStatus} how far the read-ahead of the loop has got while playing */
  let loop = { state: 'waiting', done: 0, total: 0, failed: 0 };

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

  return {
    readAhead,
    get loop() {
      return loop;
    },
    /** What the loop's read-ahead has done starts again from nothing. */
    reset() {
      loop = { state: 'waiting', done: 0, total: 0, failed: 0 };
      readingAhead = '';
    },
  };
}

/**
 * The loads in flight, one per cell and timestep, each asked of the reader with its priority:
 * started, moved up when asked again with a better rank, dropped, uploaded through the upload
 * gate once read, and, after a failure, retried as a whole view after RETRY_MS.
 * @param {import('./scene.js').SceneParts} parts
 * @param {{ loaded: (k: number, t: number) => void, failed: (err: Error, where: LoadAt) => void, retry: () => void }} on
 *   told when a cell is on the GPU, when a load failed, and when to try the view again
 */
function createCellLoads(parts, on) {
  const { store, state, memory, stats, shaderDelta, uploads } = parts;
  /** @type {Map<string, Load>} */
  const loads = new Map();
  /** @type {ReturnType<typeof setTimeout> | 0} */ let retryTimer = 0;

  /**
   * Have cell (row, col) of level k at timestep t on the GPU: held already, loading (moved up if
   * `priority` ranks higher than what it loads with), or loaded now.
   * @param {number} k @param {number} row @param {number} col @param {number} t @param {import('../src/reader/limiter.js').Priority} priority
   */
  function ensure(k, row, col, t, priority) {
    const id = key(k, row, col, t);
    const held = memory.get(id);
    if (held) memory.touch(held);
    else if (loads.has(id)) moveUp(parts, /** @type {Load} */ (loads.get(id)), { lod: k, row, col, t }, priority);
    else start(id, k, row, col, t, priority);
  }

  /**
   * Load a cell neither held nor loading: read it (with its anchor, for a star-delta cell), upload
   * it through the gate, or count the failure and try the view again after RETRY_MS.
   * @param {string} id @param {number} k @param {number} row @param {number} col @param {number} t @param {import('../src/reader/limiter.js').Priority} priority
   */
  function start(id, k, row, col, t, priority) {
    const ctrl = new AbortController();
    const load = { controller: ctrl, rank: RANKS[priority] };
    loads.set(id, load);
    const anchorT = shaderDelta ? store.referenceOf(t) ?? t : null;
    const wait = anchorWait(anchorT == null ? null : memory.anchorFor(k, row, col, anchorT, priority));
    const { anchor } = wait;
    Promise.all([store.getCell(k, row, col, t, { signal: ctrl.signal, stored: shaderDelta, priority }), anchor?.promise]).then(
      // The anchor stays waited for until the upload: an idle anchor may be evicted.
      ([stored]) => uploads.submit(stored.data.byteLength + (stored.mask?.byteLength ?? 0), () => {
        wait.settle();
        if (loads.get(id) !== load || state.destroyed) {
          if (anchor) memory.releaseAnchor(anchor);
          return;
        }
        loads.delete(id);
        memory.add(id, { lod: k, row, col, t }, stored, anchor);
        on.loaded(k, t);
      }),
      (err) => {
        wait.settle();
        if (anchor) memory.releaseAnchor(anchor);
        if (loads.get(id) === load) loads.delete(id);
        if (ctrl.signal.aborted || state.destroyed || err?.name === 'AbortError') return;
        stats.failed++;
        on.failed(err, { lod: k, row, col, t });
        clearTimeout(retryTimer);
        retryTimer = setTimeout(on.retry, RETRY_MS);
      },
    );
  }

  return {
    ensure,
    /** Abort the loads whose key is not in `wanted` (the view or time moved on). @param {Set<string>} wanted */
    keepOnly(wanted) {
      for (const [k, load] of loads) {
        if (!wanted.has(k)) {
          load.controller.abort();
          loads.delete(k);
          stats.aborted++;
        }
      }
    },
    get pending() {
      return loads.size;
    },
    cancel() {
      clearTimeout(retryTimer);
      uploads.cancel();
      for (const load of loads.values()) load.controller.abort();
      loads.clear();
    },
  };
}

/**
 * Asked again for a cell it is loading, with a better rank: join the load in the reader (and the
 * load of its anchor) with that rank, which moves it up.
 * @param {import('./scene.js').SceneParts} parts @param {Load} loading @param {LoadAt} at
 * @param {import('../src/reader/limiter.js').Priority} priority
 */
function moveUp({ store, memory, shaderDelta }, loading, { lod: k, row, col, t }, priority) {
  if (RANKS[priority] >= loading.rank) return;
  loading.rank = RANKS[priority];
  store.getCell(k, row, col, t, { signal: loading.controller.signal, stored: shaderDelta, priority }).catch(() => {});
  const anchorT = shaderDelta ? store.referenceOf(t) : null;
  if (anchorT != null) memory.anchorFor(k, row, col, anchorT, priority);
}

/**
 * A load's wait on its star-delta anchor, counted in the anchor's `waiting` (an anchor waited for
 * is not evicted or dropped) until `settle`, which counts it off once.
 * @param {import('./gpu-chunks.js').Anchor | null} anchor
 */
function anchorWait(anchor) {
  if (anchor) anchor.waiting++;
  let waiting = Boolean(anchor);
  return {
    anchor,
    settle() {
      if (waiting && anchor) anchor.waiting--;
      waiting = false;
    },
  };
}
