/**
 * What draws an open store on the map: the GPU side and the viewer's scene made for it, the map's
 * view handed to the scene when it changes, each frame the scene lists committed for MapLibre's
 * render, the percentile stretch of a linear look following what is on screen, 'loading' and
 * 'ready' as complete frames are drawn, and the reader's caches filled around the view once ready.
 * @module
 */
import { textureFormat } from '../lib/formats.js';
import { createScene } from '../lib/scene.js';
import { percentileRange } from '../lib/stretch.js';
import { createGpu } from './gpu.js';
import { mapView } from './view.js';

/** @typedef {import('../lib/scene.js').FrameRecord} FrameRecord */
/** @typedef {Parameters<typeof mapView>[0] & { triggerRepaint(): void }} LayerMap the MapLibre map, as the drawing uses it */

const EMPTY_VIEW = /** @type {const} */ ([{ cx: 0, cy: 0, zoom: 1 }, { w: 0, h: 0, dpr: 1 }]);
const MiB = 2 ** 20;
/** Texture bytes uploaded per animation frame; the rest wait for the next frames. */
export const UPLOAD_BYTES_PER_FRAME = 16 * MiB;
export const DEFAULT_GPU_BUDGET = 256 * MiB;

/**
 * Cells of one level the layer draws at once: half the texture slots the budget holds, a slot being
 * one chunk of every band (a star-delta cell takes two, its anchor and its delta, and a mask one more).
 * @param {Pick<import('../lib/scene.js').Store, 'dtype' | 'bands' | 'levels'>} store @param {number} budgetBytes
 */
export function cellLimit(store, budgetBytes) {
  const slotBytes = store.bands.length * store.levels[0].chunkSize ** 2 * textureFormat(store.dtype).empty.BYTES_PER_ELEMENT;
  return Math.max(1, Math.floor(Math.floor(budgetBytes / slotBytes) / 2));
}

/**
 * @param {object} o
 * @param {import('../lib/scene.js').Store} o.store
 * @param {ReturnType<typeof import('./mercator.js').placement>} o.place
 * @param {import('./options.js').LayerOptions} o.opts
 * @param {number} o.t the timestep to show first
 * @param {import('./look.js').LayerLook} o.look the layer's look, whose `auto` range the drawing keeps up to date
 * @param {ReturnType<typeof import('./frames.js').createFrameLog>} o.drawn the frames drawn on the map
 * @param {ReturnType<typeof import('./events.js').createEmitter>} o.events
 * @param {(error: unknown, where?: { lod: number, row: number, col: number, t: number }) => void} o.fail
 */
export function createDrawing({ store, place, opts, t, look, drawn, events, fail }) {
  const texel0 = place.texelSize();
  const gpu = createGpu({ dtype: store.dtype, nBands: store.bands.length, toMercator: place.toMercator, divisions: opts.meshDivisions });
  const scene = layerScene(store, gpu.renderer, opts, { onFrame: (record) => onFrame(record), fail });
  /** @type {LayerMap | null} */
  let map = null;
  let viewKey = '';
  /** @type {boolean | null} */
  let ready = null;
  const stretch = createAutoStretch({ look, scene, applyLook, viewKey: () => viewKey });
  // An empty view first: the scene loads nothing until the map's view is known.
  scene.setView(...EMPTY_VIEW, 0);
  scene.setTime(t);
  applyLook();

  function applyLook() {
    const l = look.current();
    if (l) scene.setLook(l);
  }

  /** Give the scene the map's view when it changed (the scene loads what the view needs). */
  function updateView() {
    if (!map) return;
    const v = mapView(map, place, store.levels.length, texel0, opts.lodBias ?? 0.5);
    const key = `${v.cam.cx},${v.cam.cy},${v.size.w},${v.size.h},${v.lod}`;
    if (key === viewKey) return;
    viewKey = key;
    scene.setView(v.cam, v.size, v.lod, v.texelPx);
    checkReady();
  }

  /** The scene listed a new frame: it becomes the one render draws. @param {FrameRecord} record */
  function onFrame(record) {
    gpu.commit(record);
    stretch.follow(record);
    map?.triggerRepaint();
  }

  /** 'loading' when the view needs data, 'ready' once a complete frame of it has been drawn. */
  function checkReady() {
    const now = drawn.complete(scene, gpu.frame?.n);
    if (now === ready) return;
    ready = now;
    events.emit(now ? 'ready' : 'loading');
  }

  return {
    scene,
    gpu,
    applyLook,
    updateView,
    /** The map is there too: compile the shaders and show its view. @param {LayerMap} m @param {WebGL2RenderingContext} gl */
    attach(m, gl) {
      map = m;
      gpu.attach(gl);
      updateView();
      m.triggerRepaint();
    },
    /** Show timestep `s` once every visible cell has it. @param {number} s */
    setTime(s) {
      t = s;
      scene.setTime(s);
      checkReady();
    },
    /** MapLibre drew the frame `record` (gpu.render's). @param {FrameRecord | null} record */
    drew(record) {
      drawn.drew(record);
      checkReady();
    },
    /** Free the scene's loads and GPU objects. */
    dispose() {
      scene.destroy();
      gpu.dispose();
      map = null;
    },
  };
}

/**
 * The viewer's scene made for the layer: the GPU budget of the options and the cells it holds,
 * uploads paced per animation frame, read-ahead as the options say, every failure to `fail`.
 * @param {import('../lib/scene.js').Store} store
 * @param {import('../lib/scene.js').SceneRenderer} renderer
 * @param {import('./options.js').LayerOptions} opts
 * @param {{ onFrame: (record: FrameRecord) => void, fail: (error: unknown, where?: { lod: number, row: number, col: number, t: number }) => void }} on
 */
function layerScene(store, renderer, opts, { onFrame, fail }) {
  const gpuBudgetBytes = opts.gpuBudgetBytes ?? DEFAULT_GPU_BUDGET;
  return createScene({
    store,
    renderer,
    gpuBudgetBytes,
    maxCells: cellLimit(store, gpuBudgetBytes),
    uploadBytesPerFrame: UPLOAD_BYTES_PER_FRAME,
    onFrame,
    onError: (error, where) => fail(error, where),
    onOverBudget: (error) => fail(error),
    readAhead: Boolean(opts.prefetch),
  });
}

/**
 * The percentile stretch of a linear look following what is on screen: sampled again when a frame
 * shows other cells, a new view or another product or band, unless the look has a fixed range.
 * @param {object} o
 * @param {import('./look.js').LayerLook} o.look whose `auto` range this keeps up to date
 * @param {ReturnType<typeof createScene>} o.scene
 * @param {() => void} o.applyLook gives the scene the look once `auto` changed
 * @param {() => string} o.viewKey the map's view drawn now
 */
function createAutoStretch({ look, scene, applyLook, viewKey }) {
  let stretchKey = '';
  return {
    /** @param {FrameRecord} record */
    follow(record) {
      const l = look.current();
      if (!l || l.mode !== 'linear' || look.range || !record.cells.length) return;
      const key = `${record.t}|${record.lod}|${record.complete}|${record.cells.length}|${viewKey()}|${look.product}|${look.band}`;
      if (key === stretchKey) return;
      stretchKey = key;
      const r = percentileRange(scene.sampleVisible(l.bands));
      if (r && (!look.auto || r[0] !== look.auto[0] || r[1] !== look.auto[1])) {
        look.auto = r;
        applyLook();
      }
    },
  };
}
