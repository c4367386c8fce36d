/**
 * The scene's frames: when one is painted (at the next animation frame, at once for a frame that
 * completes the view, at a bounded pace for the progress of an incomplete one), what it draws (the
 * asked level's cells, over coarser stand-ins until all of them are there), and the record of
 * every frame painted.
 * @module
 */
import { cellRect } from '../src/reader/geometry.js';
import { gpuEntryId as key } from './gpu-chunks.js';

/**
 * @typedef {object} FrameRecord
 * @property {number} n frame number
 * @property {number | null} t timestep of the frame; null only for a split view's side cleared
 *   before any timestep was shown
 * @property {number} lod asked level
 * @property {boolean} complete every visible cell of the asked level is drawn
 * @property {{ lod: number, row: number, col: number, t: number }[]} cells
 * @property {number} at performance.now() of the paint
 * @property {number} swapAt performance.now() when the frame's timestep became the one on screen
 */

/** @typedef {import('./gpu-chunks.js').Entry} Entry */

/**
 * Least ms between frames painted only because another cell of an incomplete view arrived: every
 * painted frame is composited by the browser, which on a software-GL machine costs 30-110 ms of the
 * GPU process that the cells still loading need, so progress shows at this pace (a complete frame,
 * a camera move or a look change paints at once).
 */
const PROGRESS_MS = 120;
/** Frame records kept; beyond it the oldest half is dropped. */
const FRAMES_KEPT = 20000;

/**
 * @param {import('./scene.js').SceneParts} parts
 * @param {(frame: FrameRecord) => void} onFrame
 */
export function createScenePaint(parts, onFrame) {
  const { state, renderer } = parts;
  /** @type {FrameRecord[]} */
  const frames = [];
  let frameNo = 0;
  let dirty = false;
  let raf = 0;
  /** @type {ReturnType<typeof setTimeout> | 0} */ let progressTimer = 0;
  /** performance.now() when the last paint was drawn; the scene's creation before the first. */
  let lastPaintAt = performance.now();

  /** A redraw for a cell that arrived in an incomplete view: no sooner than PROGRESS_MS after the last paint. */
  function redrawProgress() {
    if (progressTimer || state.destroyed) return;
    const wait = lastPaintAt + PROGRESS_MS - performance.now();
    if (wait <= 0) redraw();
    else progressTimer = setTimeout(() => {
      progressTimer = 0;
      redraw();
    }, wait);
  }

  function redraw() {
    dirty = true;
    if (!raf && !state.destroyed) raf = requestAnimationFrame(paint);
  }

  /** Draw now (also used by the export, which needs the pixels of the current frame). */
  function paint() {
    raf = 0;
    if (!dirty || state.destroyed || !state.look) return;
    if (!renderer.ready()) {
      raf = requestAnimationFrame(paint);
      return;
    }
    const shownT = state.shownT;
    const { entries, complete } = drawable(parts);
    // Nothing to show yet: the first use of the GL program would wait, on the main thread, for the
    // GPU to finish compiling it, while the first chunks still need that thread. One side of a
    // split view is cleared all the same: it must not keep the other side's picture.
    if (!entries.length && frameNo === 0 && !state.clip) return;
    dirty = false;
    clearTimeout(progressTimer); // this frame shows that progress
    progressTimer = 0;
    drawFrame(parts, state.look, entries);
    const cells = entries.map((e) => ({ lod: e.lod, row: e.row, col: e.col, t: e.t }));
    // The next progress paint counts from when this one was drawn, so they are PROGRESS_MS apart however long drawing took.
    lastPaintAt = performance.now();
    const record = { n: ++frameNo, t: shownT, lod: state.lod, complete, cells, at: lastPaintAt, swapAt: state.swapAt };
    frames.push(record);
    if (frames.length > FRAMES_KEPT) frames.splice(0, FRAMES_KEPT / 2);
    onFrame(record);
  }

  return {
    frames,
    redraw,
    redrawProgress,
    /** The frame changed (a new timestep on screen): the next paint draws it. */
    invalidate: () => {
      dirty = true;
    },
    /** Paint the current frame now, without waiting for an animation frame. */
    paintNow: () => {
      dirty = true;
      paint();
    },
    /** Stop the pending paints (the scene is destroyed). */
    cancel: () => {
      cancelAnimationFrame(raf);
      clearTimeout(progressTimer);
    },
  };
}

/**
 * The loaded cells the frame draws, coarsest first: the asked level's alone when every one of
 * them is there, else coarser stand-ins below them.
 * @param {import('./scene.js').SceneParts} parts
 * @returns {{ entries: Entry[], complete: boolean }}
 */
function drawable({ state, memory, coarsest, visibleAt, has }) {
  const { lod, shownT } = state;
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

/**
 * Draw `entries` on the renderer, sized to its canvas now, with the look and clip of the state.
 * @param {import('./scene.js').SceneParts} parts
 * @param {import('./typedefs.js').Look} look
 * @param {Entry[]} entries
 */
function drawFrame({ state, renderer, memory, levels }, look, entries) {
  state.size = { ...state.size, ...renderer.resize() };
  renderer.begin(state.cam, state.size, look, state.clip);
  for (const e of entries) {
    memory.touch(e);
    const cs = levels[e.lod].chunkSize;
    const { width, height, ...rect } = cellRect(levels[e.lod], e.lod, e.row, e.col, levels[0]);
    renderer.draw(e.gpu, e.lod, rect, [e.col * cs, e.row * cs], [width, height]);
  }
}
