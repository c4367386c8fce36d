/**
 * What is on screen: the cells the camera sees, their chunks on the GPU, and the one timestep the
 * frame shows. A timestep change is drawn only when every visible cell of the asked level has it;
 * until then each cell keeps the previous timestep, so no frame mixes timesteps. While cells of the
 * asked level load, loaded cells of coarser levels at the same timestep stand in (coarsest first).
 *
 * Star-delta stores of uint8/uint16 are uploaded as stored: each cell's anchor chunk once, as its
 * own texture kept while a drawn chunk refers to it (and afterwards until the GPU budget needs the
 * room), and a delta timestep as its residual texture, reconstructed in the fragment shader.
 *
 * This module holds the scene's state and its calls; which cells load and when the timestep
 * changes is scene-loads.js, the frames painted scene-paint.js, the GPU memory gpu-chunks.js.
 * @module
 */
import { levelPixel, pixelCell } from '../src/reader/geometry.js';
import { visibleCells } from './camera.js';
import { createGpuChunks, gpuEntryId as key } from './gpu-chunks.js';
import { directionOf } from './load-plan.js';
import { sampleValues } from './sample.js';
import { createSceneLoads } from './scene-loads.js';
import { createScenePaint } from './scene-paint.js';
import { createUploadGate } from './upload-gate.js';

/** @typedef {import('./scene-paint.js').FrameRecord} FrameRecord */
/** @typedef {Awaited<ReturnType<typeof import('../src/reader/dataset.js').openDataset>>} Store */
/** @typedef {import('./typedefs.js').CanvasSize} CanvasSize */
/** @typedef {{ x0: number, x1: number }} Clip the columns of the canvas a scene paints (a split view), CSS px */
/** @typedef {import('./typedefs.js').Look} Look */

/**
 * What the scene draws through: the viewer's renderer (viewer/renderer.js) or the MapLibre layer's
 * (maplibre/gpu.js). The scene hands each texture back to the renderer that made it and never
 * looks inside, so it takes either renderer's texture type.
 * @typedef {import('./typedefs.js').Renderer<any>} SceneRenderer
 */

/**
 * The scene's state, which its loading policy and its painting read and change.
 * @typedef {object} SceneState
 * @property {import('./camera.js').Camera} cam
 * @property {CanvasSize} size
 * @property {number} lod asked level
 * @property {number | null} shownT timestep on screen, null until the first is chosen
 * @property {number} wantedT asked timestep
 * @property {number} texelPx CSS px a level-0 pixel spans on screen
 * @property {1 | -1} direction of the last time change (read-ahead goes that way first)
 * @property {boolean} playing playback runs: the whole loop is read ahead
 * @property {boolean} readAhead read past the frame and its neighbours into the reader's cache
 * @property {number} swapAt performance.now() when shownT last changed
 * @property {Look | null} look
 * @property {Clip | null} clip
 * @property {boolean} destroyed
 */

/**
 * What the scene's parts share.
 * @typedef {object} SceneParts
 * @property {Store} store
 * @property {SceneRenderer} renderer
 * @property {SceneState} state
 * @property {ReturnType<typeof createGpuChunks>} memory
 * @property {{ uploads: number, evictions: number, aborted: number, failed: number, anchorUploads: number }} stats
 * @property {Store['levels']} levels
 * @property {number} coarsest index of the coarsest level
 * @property {(k: number) => { row: number, col: number }[]} visibleAt the cells of level k in view
 * @property {(k: number, c: { row: number, col: number }, t: number) => boolean} has the cell of level k at t is on the GPU
 * @property {boolean} shaderDelta star-delta timesteps are reconstructed on the GPU
 * @property {ReturnType<typeof createUploadGate>} uploads paces the texture uploads
 */

/**
 * @param {object} o
 * @param {Store} o.store the reader's store
 * @param {SceneRenderer} o.renderer
 * @param {(frame: FrameRecord) => void} [o.onFrame]
 * @param {(err: Error, where: { lod: number, row: number, col: number, t: number }) => void} [o.onError]
 * @param {(err: Error) => void} [o.onOverBudget] told when a view first needs more cells than `maxCells`
 * @param {number} [o.gpuBudgetBytes]
 * @param {boolean} [o.readAhead] read ahead into the reader's cache once the frame is complete (default true)
 * @param {number} [o.maxCells] cells of one level drawn at most: a view that needs more draws those
 *   nearest its centre (default: all)
 * @param {number} [o.uploadBytesPerFrame] texture bytes uploaded per animation frame (default: all at once)
 */
export function createScene({ store, renderer, onFrame = () => {}, onError = () => {}, onOverBudget = () => {}, gpuBudgetBytes = 256 * 2 ** 20, readAhead = true, maxCells = Infinity, uploadBytesPerFrame = Infinity }) {
  const { parts, inView } = sceneParts({ store, renderer, gpuBudgetBytes, readAhead, maxCells, uploadBytesPerFrame });
  const { state, memory } = parts;
  const painter = createScenePaint(parts, onFrame);
  const loads = createSceneLoads(parts, painter, onError);
  let overBudget = false;

  /**
   * @param {import('./camera.js').Camera} camera @param {CanvasSize} canvasSize @param {number} level
   * @param {number} [texelPx] CSS px a level-0 pixel spans on screen (the camera's zoom, unless the
   *   camera is in other units, as the MapLibre layer's is): what the coarse picture's level follows
   */
  function setView(camera, canvasSize, level, texelPx = camera.zoom) {
    state.cam = camera;
    state.texelPx = texelPx;
    state.size = canvasSize;
    state.lod = level;
    const needed = inView(level).length;
    // Reported when a view first needs too many cells, not again on every move while it does.
    if (needed > maxCells && !overBudget) {
      onOverBudget(new Error(`the view needs ${needed} cells of level ${level}, more than the ${maxCells} the GPU budget draws at once: drawing the ${maxCells} nearest the centre (zoom in, or raise gpuBudgetBytes)`));
    }
    overBudget = needed > maxCells;
    loads.refresh();
  }

  /** @param {number} t */
  function setTime(t) {
    if (t !== state.wantedT) state.direction = directionOf(state.wantedT, t, store.times.length);
    state.wantedT = t;
    loads.refresh();
  }

  /** Playback started or stopped: the read-ahead covers the whole loop, or the timesteps around. @param {boolean} playing */
  function setPlaying(playing) {
    if (playing !== state.playing) loads.resetLoop();
    state.playing = playing;
    if (playing) state.direction = 1;
    loads.readAhead();
  }

  /** @param {Look} l */
  function setLook(l) {
    state.look = l;
    painter.redraw();
  }

  /** Paint only the columns x0..x1 of the canvas (CSS px), or all of it (null). @param {Clip | null} next */
  function setClip(next) {
    state.clip = next;
    painter.redraw();
  }

  function destroy() {
    state.destroyed = true;
    painter.cancel();
    loads.cancel();
    memory.clear();
  }

  const calls = { setView, setTime, setPlaying, setLook, setClip, refresh: loads.refresh, redraw: painter.redraw, paintNow: painter.paintNow, destroy };
  return sceneReadouts(calls, parts, painter, loads);
}

/**
 * The state, the GPU memory and the cells in view that the scene's parts share, made from the
 * scene's options; with `inView`, every cell of a level in view (before `maxCells`).
 * @param {{ store: Store, renderer: SceneRenderer, gpuBudgetBytes: number, readAhead: boolean, maxCells: number, uploadBytesPerFrame: number }} o
 */
function sceneParts({ store, renderer, gpuBudgetBytes, readAhead, maxCells, uploadBytesPerFrame }) {
  const levels = store.levels;
  const coarsest = levels.length - 1;
  /** @type {SceneState} */
  const state = { cam: { cx: 0, cy: 0, zoom: 1 }, size: { w: 1, h: 1, dpr: 1 }, lod: 0, texelPx: 1, shownT: null, wantedT: 0, direction: 1, playing: false, readAhead, swapAt: 0, look: null, clip: null, destroyed: false };
  const stats = { uploads: 0, evictions: 0, aborted: 0, failed: 0, anchorUploads: 0 };
  /** Reconstruct star-delta timesteps on the GPU from stored anchors and residuals. */
  const shaderDelta = Boolean(renderer.shaderDelta) && store.encoding === 'star-delta';
  const memory = createGpuChunks({ store, renderer, budgetBytes: gpuBudgetBytes, stats, destroyed: () => state.destroyed });

  /** The levels as the camera takes them (its LevelInfo has a mutable transform, the reader's are frozen). */
  const cameraLevels = levels.map((l) => ({ ...l, transform: [...l.transform] }));
  /** Every cell of level k in view, nearest the centre first. @param {number} k */
  const inView = (k) => visibleCells(state.cam, state.size.w, state.size.h, cameraLevels[k], k, levels[0]);
  /** The cells of level k drawn: those in view, within maxCells. @param {number} k */
  const visibleAt = (k) => inView(k).slice(0, maxCells);
  /** @param {number} k @param {{ row: number, col: number }} c @param {number} t */
  const has = (k, c, t) => memory.has(key(k, c.row, c.col, t));
  /** @type {SceneParts} */
  const parts = { store, renderer, state, memory, stats, levels, coarsest, visibleAt, has, shaderDelta, uploads: createUploadGate(uploadBytesPerFrame) };
  return { parts, inView };
}

/**
 * The scene as its users see it: its calls, with what it answers about what is drawn (the chunk
 * under a pixel, the values on screen) and reports (timesteps, progress, loads, GPU memory).
 * @template {object} Calls
 * @param {Calls} calls the scene's setters and actions
 * @param {SceneParts} parts
 * @param {ReturnType<typeof createScenePaint>} painter
 * @param {ReturnType<typeof createSceneLoads>} loads
 */
function sceneReadouts(calls, parts, painter, loads) {
  const { state, memory, stats, visibleAt, has } = parts;
  return {
    ...calls,
    /** The drawn chunk under a level-0 pixel: the finest level on screen there. @param {number} x level-0 column @param {number} y level-0 row */
    pick: (x, y) => pickDrawn(parts, x, y),
    /** Valid physical values of `bands` drawn in view, for the percentile stretch. @param {number[]} bands @param {number} [limit] */
    sampleVisible: (bands, limit) => sampleVisible(parts, bands, limit),
    visibleAt,
    frames: painter.frames,
    stats,
    get shownT() {
      return state.shownT;
    },
    get wantedT() {
      return state.wantedT;
    },
    get lod() {
      return state.lod;
    },
    get gpuBytes() {
      return memory.bytes;
    },
    /** Whether chunks are drawn from stored star-delta anchors and residuals. */
    shaderDelta: parts.shaderDelta,
    get anchorTextures() {
      return memory.anchorTextures;
    },
    get pending() {
      return loads.pending;
    },
    /** How far the read-ahead of the whole loop has got while playing (playback waits for it). */
    get loop() {
      return loads.loop;
    },
    /** Cells of the asked frame loaded, of those it needs, and loads that failed so far. */
    get progress() {
      const cells = visibleAt(state.lod);
      return { loaded: cells.filter((c) => has(state.lod, c, state.wantedT)).length, needed: cells.length, failed: stats.failed };
    },
    /** Every visible cell of the asked level is on screen at the asked timestep. */
    get settled() {
      return state.shownT === state.wantedT && visibleAt(state.lod).every((c) => has(state.lod, c, state.wantedT));
    },
  };
}

/**
 * The drawn chunk under a level-0 pixel: the finest level on screen there.
 * @param {SceneParts} parts
 * @param {number} x level-0 column
 * @param {number} y level-0 row
 */
function pickDrawn({ state, memory, levels, coarsest }, x, y) {
  const { lod, shownT } = state;
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
 * @param {SceneParts} parts
 * @param {number[]} bands
 * @param {number} [limit]
 */
function sampleVisible({ store, state, memory, coarsest, visibleAt }, bands, limit = 120000) {
  const { lod, shownT } = state;
  if (shownT == null) return new Float64Array(0);
  for (let k = lod; k <= coarsest; k++) {
    const es = visibleAt(k).map((c) => memory.get(key(k, c.row, c.col, shownT))).filter((e) => e != null);
    if (es.length) return sampleValues(store, k, es, viewBox(state), bands, limit);
  }
  return new Float64Array(0);
}

/** The level-0 box the canvas shows. @param {SceneState} state */
function viewBox({ cam, size }) {
  return { x0: cam.cx - size.w / 2 / cam.zoom, y0: cam.cy - size.h / 2 / cam.zoom, x1: cam.cx + size.w / 2 / cam.zoom, y1: cam.cy + size.h / 2 / cam.zoom };
}
