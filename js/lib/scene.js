/**
 * What is on screen: the cells the camera sees, their chunks on the GPU, and the one timestep the
 * frame shows. A timestep change is drawn only when every visible cell of the asked level has it;
 * until then each cell keeps the previous timestep, so no frame mixes timesteps. While cells of the
 * asked level load, loaded cells of coarser levels at the same timestep stand in (coarsest first).
 *
 * Star-delta stores of uint8/uint16 are uploaded as stored: each cell's anchor chunk once, as its
 * own texture kept while a drawn chunk refers to it (and afterwards until the GPU budget needs the
 * room), and a delta timestep as its residual texture, reconstructed in the fragment shader.
 * @module
 */
import { cellRect, levelPixel, pixelCell } from '../src/reader/geometry.js';
import { visibleCells } from './camera.js';
import { chunkKey as key, createGpuChunks } from './gpu-chunks.js';
import { sampleValues } from './sample.js';

/**
 * @typedef {object} FrameRecord
 * @property {number} n frame number
 * @property {number} t timestep of the frame
 * @property {number} lod asked level
 * @property {boolean} complete every visible cell of the asked level is drawn
 * @property {{ lod: number, row: number, col: number, t: number }[]} cells
 * @property {number} at performance.now() of the paint
 * @property {number} swapAt performance.now() when the frame's timestep became the one on screen
 */

const RETRY_MS = 2000;
/**
 * Least ms between frames painted only because another cell of an incomplete view arrived: every
 * painted frame is composited by the browser, which on a software-GL machine costs 30-110 ms of the
 * GPU process that the cells still loading need, so progress shows at this pace (a complete frame,
 * a camera move or a look change paints at once).
 */
const PROGRESS_MS = 120;

/**
 * @param {object} o
 * @param {any} o.store the reader's store
 * @param {any} o.renderer the viewer's renderer (renderer.js) or the MapLibre layer's (maplibre/gpu.js)
 * @param {(frame: FrameRecord) => void} [o.onFrame]
 * @param {(err: Error, where: { lod: number, row: number, col: number, t: number }) => void} [o.onError]
 * @param {number} [o.gpuBudgetBytes]
 */
export function createScene({ store, renderer, onFrame = () => {}, onError = () => {}, gpuBudgetBytes = 256 * 2 ** 20 }) {
  const levels = store.levels;
  const coarsest = levels.length - 1;
  /** @type {Map<string, AbortController>} */
  const loads = new Map();
  /** @type {FrameRecord[]} */
  const frames = [];
  let frameNo = 0;
  let cam = { cx: 0, cy: 0, zoom: 1 };
  let size = { w: 1, h: 1, dpr: 1 };
  let lod = 0;
  /** @type {number | null} */
  let shownT = null;
  let wantedT = 0;
  let swapAt = 0;
  /** @type {any} */
  let look = null;
  /** @type {{ x0: number, x1: number } | null} the part of the canvas this scene paints (a split view), CSS px */
  let clip = null;
  let dirty = false;
  let raf = 0;
  /** @type {ReturnType<typeof setTimeout> | 0} */ let retryTimer = 0;
  /** @type {ReturnType<typeof setTimeout> | 0} */ let progressTimer = 0;
  /** performance.now() of the last paint; the scene's creation before the first. */
  let lastPaintAt = performance.now();
  let destroyed = false;
  const stats = { uploads: 0, evictions: 0, aborted: 0, failed: 0, anchorUploads: 0 };
  /** Reconstruct star-delta timesteps on the GPU from stored anchors and residuals. */
  const shaderDelta = Boolean(renderer.shaderDelta) && store.encoding === 'star-delta';
  const memory = createGpuChunks({ store, renderer, budgetBytes: gpuBudgetBytes, stats, destroyed: () => destroyed });

  const visibleAt = (k) => visibleCells(cam, size.w, size.h, levels[k], k, levels[0]);
  /** @param {number} k @param {{ row: number, col: number }} c @param {number} t */
  const has = (k, c, t) => memory.has(key(k, c.row, c.col, t));

  function setView(camera, canvasSize, level) {
    cam = camera;
    size = canvasSize;
    lod = level;
    refresh();
  }

  function setTime(t) {
    wantedT = t;
    refresh();
  }

  function setLook(l) {
    look = l;
    redraw();
  }

  /** Start the loads the view needs, drop those it no longer needs, and switch time if ready. */
  function refresh() {
    if (destroyed) return;
    const target = visibleAt(lod);
    /** @type {[number, {row: number, col: number}, number][]} */
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
    redraw();
  }

  /**
   * The visible cells at the timesteps a step from the asked one lands on (forward first, wrapping
   * as playback does): loaded onto the GPU once the asked frame is complete, so that a step to one
   * of them swaps the frame at once.
   * @returns {[number, {row: number, col: number}, number][]}
   */
  function ahead(target) {
    const n = store.times.length;
    const steps = [...new Set([(wantedT + 1) % n, Math.max(0, wantedT - 1)])].filter((s) => s !== wantedT);
    return steps.flatMap((t) => target.map((c) => /** @type {[number, any, number]} */ ([lod, c, t])));
  }

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
      if (waiting) anchor.waiting--;
      waiting = false;
    };
    Promise.all([store.getCell(k, row, col, t, { signal: ctrl.signal, stored: shaderDelta }), anchor?.promise]).then(
      ([stored]) => {
        settle();
        if (loads.get(id) !== ctrl || destroyed) return;
        loads.delete(id);
        memory.add(id, { lod: k, row, col, t }, stored, anchor);
        memory.evict(needed);
        advance();
        if (t !== shownT) return; // a neighbour loaded ahead, or a stand-in for a timestep not shown yet
        // The frame this completes is painted now rather than on the next animation frame.
        if (look && shownT === wantedT && k === lod && visibleAt(lod).every((c) => has(lod, c, wantedT))) {
          dirty = true;
          paint();
          for (const [level, cell, step] of ahead(visibleAt(lod))) ensure(level, cell.row, cell.col, step);
        } else redrawProgress();
      },
      (err) => {
        settle();
        if (loads.get(id) === ctrl) loads.delete(id);
        if (ctrl.signal.aborted || destroyed || err?.name === 'AbortError') return;
        stats.failed++;
        onError(err, { lod: k, row, col, t });
        clearTimeout(retryTimer);
        retryTimer = setTimeout(refresh, RETRY_MS);
      },
    );
  }

  /** Switch the frame to the asked timestep once every visible cell of the asked level has it. */
  function advance() {
    if (wantedT === shownT) return;
    const target = visibleAt(lod);
    if (shownT == null || target.every((c) => has(lod, c, wantedT))) {
      shownT = wantedT;
      swapAt = performance.now();
      dirty = true;
    }
  }

  /** Keys of the chunks the view needs, which eviction keeps: every level from the coarsest to the asked one, at the asked and the shown timestep. */
  function needed() {
    const keep = new Set();
    for (let k = coarsest; k >= lod; k--) {
      for (const c of visibleAt(k)) {
        keep.add(key(k, c.row, c.col, wantedT));
        if (shownT != null) keep.add(key(k, c.row, c.col, shownT));
      }
    }
    return keep;
  }

  /** A redraw for a cell that arrived in an incomplete view: no sooner than PROGRESS_MS after the last paint. */
  function redrawProgress() {
    if (progressTimer || destroyed) return;
    const wait = lastPaintAt + PROGRESS_MS - performance.now();
    if (wait <= 0) redraw();
    else progressTimer = setTimeout(() => {
      progressTimer = 0;
      redraw();
    }, wait);
  }

  function redraw() {
    dirty = true;
    if (!raf && !destroyed) raf = requestAnimationFrame(paint);
  }

  /** Draw now (also used by the export, which needs the pixels of the current frame). */
  function paint() {
    raf = 0;
    if (!dirty || destroyed || !look) return;
    if (!renderer.ready()) {
      raf = requestAnimationFrame(paint);
      return;
    }
    const { entries, complete } = drawable();
    // Nothing to show yet: the first use of the GL program would wait, on the main thread, for the
    // GPU to finish compiling it, while the first chunks still need that thread. One side of a
    // split view is cleared all the same: it must not keep the other side's picture.
    if (!entries.length && frameNo === 0 && !clip) return;
    dirty = false;
    lastPaintAt = performance.now();
    clearTimeout(progressTimer); // this frame shows that progress
    progressTimer = 0;
    size = { ...size, ...renderer.resize() };
    renderer.begin(cam, size, look, clip);
    for (const e of entries) {
      memory.touch(e);
      drawCell(e);
    }
    const cells = entries.map((e) => ({ lod: e.lod, row: e.row, col: e.col, t: e.t }));
    const record = { n: ++frameNo, t: shownT, lod, complete, cells, at: performance.now(), swapAt };
    frames.push(record);
    if (frames.length > 20000) frames.splice(0, 10000);
    onFrame(record);
  }

  /**
   * The loaded cells the frame draws, coarsest first: the asked level's alone when every one of
   * them is there, else coarser stand-ins below them.
   */
  function drawable() {
    if (shownT == null) return { entries: [], complete: false };
    const target = visibleAt(lod);
    const complete = target.every((c) => has(lod, c, shownT));
    const entries = [];
    for (let k = complete ? lod : coarsest; k >= lod; k--) {
      for (const c of k === lod ? target : visibleAt(k)) {
        const e = memory.get(key(k, c.row, c.col, shownT));
        if (e) entries.push(e);
      }
    }
    return { entries, complete };
  }

  function drawCell(e) {
    const cs = levels[e.lod].chunkSize;
    const { width, height, ...rect } = cellRect(levels[e.lod], e.lod, e.row, e.col, levels[0]);
    renderer.draw(e.gpu, e.lod, rect, [e.col * cs, e.row * cs], [width, height]);
  }

  /**
   * The drawn chunk under a level-0 pixel: the finest level on screen there.
   * @param {number} x level-0 column
   * @param {number} y level-0 row
   */
  function pick(x, y) {
    if (shownT == null) return null;
    for (let k = lod; k <= coarsest; k++) {
      const p = levelPixel(x, y, k);
      if (p.x >= levels[k].width || p.y >= levels[k].height) continue;
      const at = pixelCell(levels[k], p.x, p.y);
      const e = memory.get(key(k, at.row, at.col, shownT));
      if (e) return { entry: e, lod: k, x: p.x, y: p.y };
    }
    return null;
  }

  /**
   * Valid physical values of the given bands over the drawn cells of the asked level in view, at
   * most about `limit` of them (evenly strided), for the percentile stretch.
   * @param {number[]} bands
   * @param {number} [limit]
   */
  function sampleVisible(bands, limit = 120000) {
    if (shownT == null) return new Float64Array(0);
    for (let k = lod; k <= coarsest; k++) {
      const es = visibleAt(k).map((c) => memory.get(key(k, c.row, c.col, /** @type {number} */ (shownT)))).filter((e) => e != null);
      if (es.length) return sampleValues(store, k, es, viewBox(), bands, limit);
    }
    return new Float64Array(0);
  }

  /** The level-0 box the canvas shows. */
  function viewBox() {
    return { x0: cam.cx - size.w / 2 / cam.zoom, y0: cam.cy - size.h / 2 / cam.zoom, x1: cam.cx + size.w / 2 / cam.zoom, y1: cam.cy + size.h / 2 / cam.zoom };
  }

  function destroy() {
    destroyed = true;
    cancelAnimationFrame(raf);
    clearTimeout(retryTimer);
    clearTimeout(progressTimer);
    for (const ctrl of loads.values()) ctrl.abort();
    loads.clear();
    memory.clear();
  }

  /** Paint only the columns x0..x1 of the canvas (CSS px), or all of it (null). */
  function setClip(next) {
    clip = next;
    redraw();
  }

  return {
    setView,
    setTime,
    setLook,
    setClip,
    refresh,
    redraw,
    paintNow: () => {
      dirty = true;
      paint();
    },
    pick,
    sampleVisible,
    visibleAt,
    destroy,
    frames,
    stats,
    get shownT() {
      return shownT;
    },
    get wantedT() {
      return wantedT;
    },
    get lod() {
      return lod;
    },
    get gpuBytes() {
      return memory.bytes;
    },
    /** Whether chunks are drawn from stored star-delta anchors and residuals. */
    shaderDelta,
    get anchorTextures() {
      return memory.anchorTextures;
    },
    get pending() {
      return loads.size;
    },
    /** Every visible cell of the asked level is on screen at the asked timestep. */
    get settled() {
      return shownT === wantedT && visibleAt(lod).every((c) => has(lod, c, wantedT));
    },
  };
}
