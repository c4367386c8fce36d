/**
 * The scene's loading policy: which cells load (the asked level's first, the coarsest level's
 * alongside while the asked view is not on screen, the timesteps a step away once it is), which
 * loads are dropped when the view moves on, when the asked timestep replaces the one on screen,
 * and the retry after a failed load.
 * @module
 */
import { chunkKey as key } from './gpu-chunks.js';

const RETRY_MS = 2000;

/** @typedef {{ row: number, col: number }} CellAt */
/** @typedef {[number, CellAt, number]} Need a level, a cell of it and a timestep */

/**
 * @param {import('./scene.js').SceneParts} parts
 * @param {ReturnType<typeof import('./scene-paint.js').createScenePaint>} painter
 * @param {(err: Error, where: { lod: number, row: number, col: number, t: number }) => void} onError
 */
export function createSceneLoads({ store, state, memory, stats, coarsest, visibleAt, has, shaderDelta }, painter, onError) {
  /** @type {Map<string, AbortController>} */
  const loads = new Map();
  /** @type {ReturnType<typeof setTimeout> | 0} */ let retryTimer = 0;

  /** Start the loads the view needs, drop those it no longer needs, and switch time if ready. */
  function refresh() {
    if (state.destroyed) return;
    const { lod, wantedT, shownT } = state;
    const target = visibleAt(lod);
    /** @type {Need[]} */
    const need = [];
    const targetReady = target.every((c) => has(lod, c, wantedT));
    const shownComplete = shownT != null && target.every((c) => has(lod, c, shownT));
    // A timestep already on the GPU everywhere is swapped in before any load starts.
    advance();
    // The asked level's cells are requested first; while the asked view is not on screen yet, the
    // coarsest level's cells load alongside and stand in until it is.
    for (const c of target) need.push([lod, c, wantedT]);
    if (!targetReady && !shownComplete && coarsest !== lod) {
      for (const c of visibleAt(coarsest)) need.push([coarsest, c, wantedT]);
    }
    if (targetReady) need.push(...ahead(target));
    const wanted = new Set(need.map(([k, c, t]) => key(k, c.row, c.col, t)));
    for (const [k, ctrl] of loads) {
      if (!wanted.has(k)) {
        ctrl.abort();
        loads.delete(k);
        stats.aborted++;
      }
    }
    for (const [k, c, t] of need) ensure(k, c.row, c.col, t);
    painter.redraw();
  }

  /**
   * The visible cells at the timesteps a step from the asked one lands on (forward first, wrapping
   * as playback does): loaded onto the GPU once the asked frame is complete, so that a step to one
   * of them swaps the frame at once.
   * @param {CellAt[]} target
   * @returns {Need[]}
   */
  function ahead(target) {
    const { wantedT, lod } = state;
    const n = store.times.length;
    const steps = [...new Set([(wantedT + 1) % n, Math.max(0, wantedT - 1)])].filter((s) => s !== wantedT);
    return steps.flatMap((t) => target.map((c) => /** @type {Need} */ ([lod, c, t])));
  }

  /** Have cell (row, col) of level k at timestep t on the GPU: held already, loading, or loaded now. @param {number} k @param {number} row @param {number} col @param {number} t */
  function ensure(k, row, col, t) {
    const id = key(k, row, col, t);
    const held = memory.get(id);
    if (held) {
      memory.touch(held);
      return;
    }
    if (loads.has(id)) return;
    const ctrl = new AbortController();
    loads.set(id, ctrl);
    const anchorT = shaderDelta ? store.referenceOf(t) ?? t : null;
    const anchor = anchorT == null ? null : memory.anchorFor(k, row, col, anchorT);
    if (anchor) anchor.waiting++;
    let waiting = Boolean(anchor);
    const settle = () => {
      if (waiting && anchor) anchor.waiting--;
      waiting = false;
    };
    Promise.all([store.getCell(k, row, col, t, { signal: ctrl.signal, stored: shaderDelta }), anchor?.promise]).then(
      ([stored]) => {
        settle();
        if (loads.get(id) !== ctrl || state.destroyed) return;
        loads.delete(id);
        memory.add(id, { lod: k, row, col, t }, stored, anchor);
        memory.evict(needed);
        advance();
        loaded(k, t);
      },
      (err) => {
        settle();
        if (loads.get(id) === ctrl) loads.delete(id);
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
    if (state.look && shownT === wantedT && k === lod && visibleAt(lod).every((c) => has(lod, c, wantedT))) {
      painter.paintNow();
      for (const [level, cell, step] of ahead(visibleAt(lod))) ensure(level, cell.row, cell.col, step);
    } else painter.redrawProgress();
  }

  /** Switch the frame to the asked timestep once every visible cell of the asked level has it. */
  function advance() {
    const { lod, wantedT, shownT } = state;
    if (wantedT === shownT) return;
    const target = visibleAt(lod);
    if (shownT == null || target.every((c) => has(lod, c, wantedT))) {
      state.shownT = wantedT;
      state.swapAt = performance.now();
      painter.invalidate();
    }
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
    get pending() {
      return loads.size;
    },
    /** Abort every load and the pending retry (the scene is destroyed). */
    cancel() {
      clearTimeout(retryTimer);
      for (const ctrl of loads.values()) ctrl.abort();
      loads.clear();
    },
  };
}
