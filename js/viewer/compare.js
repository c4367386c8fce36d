/**
 * Compare two dates: a split view with timestep A (the timeline's) left of a draggable divider and
 * timestep B right of it. Each side is its own scene over the same canvas, painting only its
 * columns, so each side is an exact frame of its own timestep (a scene never mixes timesteps).
 * @module
 */
import { findElement } from '../lib/dom.js';
import { createScene } from '../lib/scene.js';

/**
 * @typedef {{ t: number, split: number }} CompareState B's timestep and the divider (0..1 of the width)
 */

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {ReturnType<typeof import('./renderer.js').createRenderer>} o.renderer
 * @param {ReturnType<typeof createScene>} o.primary the scene of timestep A
 * @param {HTMLElement} o.stage where the divider and the date labels go
 * @param {() => { w: number, h: number, dpr: number }} o.size the canvas' CSS size
 * @param {(t: number) => string} o.label
 * @param {import('./clock.js').Clock} o.clock the timestep on the left, whose changes move the labels
 * @param {(state: CompareState | null) => void} o.onChange after the user moved the divider or picked B
 * @param {(err: Error, where: import('../lib/typedefs.js').ChunkAt) => void} o.onError
 */
export function createCompare({ store, renderer, primary, stage, size, label, clock, onChange, onError }) {
  const { el, divider, select, labelA } = compareElement(store.times.length, label);
  stage.append(el);
  const sideB = createSideB({ store, renderer, onError });
  /** @type {CompareState | null} */
  let state = null;

  const splitPx = () => (state ? state.split * size().w : 0);

  /** Turn the split view on (or change it), or off with null. @param {CompareState | null} next */
  function set(next) {
    if (!next) {
      sideB.off();
      state = null;
      el.hidden = true;
      primary.setClip(null);
      return;
    }
    state = { t: Math.max(0, Math.min(store.times.length - 1, Math.trunc(next.t))), split: Math.min(1, Math.max(0, next.split)) };
    sideB.show(state.t);
    el.hidden = false;
    select.value = String(state.t);
    layout();
  }

  /** Clip both scenes to their sides and place the divider and labels. */
  function layout() {
    const scene = sideB.scene;
    if (!state || !scene) return;
    const x = splitPx();
    primary.setClip({ x0: 0, x1: x });
    scene.setClip({ x0: x, x1: size().w });
    placeDivider(divider, x, state.split, `${label(clock.t)} left, ${label(state.t)} right`);
    labelA.textContent = `A ${label(clock.t)}`;
  }

  /** The user moved the divider to `split`. @param {number} split */
  function move(split) {
    if (!state) return;
    set({ ...state, split });
    onChange(state);
  }

  attachDivider(divider, stage, { move, split: () => state?.split ?? null });
  select.addEventListener('change', () => {
    if (!state) return;
    set({ ...state, t: Number(select.value) });
    onChange(state);
  });
  clock.on(() => layout());

  return {
    set,
    /** @param {import('../lib/typedefs.js').Camera} cam @param {import('../lib/typedefs.js').CanvasSize} canvasSize @param {number} lod */
    setView(cam, canvasSize, lod) {
      sideB.setView(cam, canvasSize, lod);
      layout();
    },
    setLook: sideB.setLook,
    /** The drawn chunk under a level-0 pixel on the side of screen x `px`. @param {number} x @param {number} y @param {number} px */
    pick(x, y, px) {
      const scene = sideB.scene;
      return scene && px >= splitPx() ? scene.pick(x, y) : primary.pick(x, y);
    },
    get state() {
      return state;
    },
    get scene() {
      return sideB.scene;
    },
    /** Both sides show their asked timestep with every visible cell. */
    get settled() {
      const scene = sideB.scene;
      return primary.settled && (!scene || scene.settled);
    },
  };
}

/**
 * The scene of date B: made when the split view turns on, with the view and the look the viewer
 * shows (kept while it is off), and destroyed when it turns off.
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {ReturnType<typeof import('./renderer.js').createRenderer>} o.renderer
 * @param {(err: Error, where: import('../lib/typedefs.js').ChunkAt) => void} o.onError
 */
function createSideB({ store, renderer, onError }) {
  /** @type {ReturnType<typeof createScene> | null} */
  let scene = null;
  /** @type {[import('../lib/typedefs.js').Camera, import('../lib/typedefs.js').CanvasSize, number] | null} */
  let view = null;
  /** @type {import('../lib/typedefs.js').Look | null} */
  let look = null;
  return {
    /** Show timestep t, making the scene if the split view was off. @param {number} t */
    show(t) {
      if (!scene) {
        scene = createScene({ store, renderer, onError, onFrame: () => {} });
        if (look) scene.setLook(look);
        if (view) scene.setView(...view);
      }
      scene.setTime(t);
    },
    off() {
      scene?.destroy();
      scene = null;
    },
    /** @param {import('../lib/typedefs.js').Camera} cam @param {import('../lib/typedefs.js').CanvasSize} canvasSize @param {number} lod */
    setView(cam, canvasSize, lod) {
      view = [cam, canvasSize, lod];
      scene?.setView(cam, canvasSize, lod);
    },
    /** @param {import('../lib/typedefs.js').Look} l */
    setLook(l) {
      look = l;
      scene?.setLook(l);
    },
    get scene() {
      return scene;
    },
  };
}

/**
 * The split view's markup, hidden: date A's label, date B's select (one option per timestep) and
 * the divider, a slider.
 * @param {number} nTime @param {(t: number) => string} label
 */
function compareElement(nTime, label) {
  const el = document.createElement('div');
  el.className = 'compare';
  el.hidden = true;
  el.innerHTML = `<span class="cmp-label cmp-a"></span>
    <label class="cmp-label cmp-b"><span aria-hidden="true">B </span><span class="sr-only">Date B, right of the divider</span><select class="cmp-select"></select></label>
    <div class="cmp-divider" role="slider" tabindex="0" aria-label="Compare divider (left: date A, right: date B)" aria-valuemin="0" aria-valuemax="100"></div>`;
  const divider = findElement(el, '.cmp-divider', HTMLElement);
  const select = findElement(el, '.cmp-select', HTMLSelectElement);
  const labelA = findElement(el, '.cmp-a', HTMLElement);
  for (let t = 0; t < nTime; t++) select.append(new Option(label(t), String(t)));
  return { el, divider, select, labelA };
}

/**
 * The divider at `x` CSS px, its slider value the split in percent, its text saying which date is where.
 * @param {HTMLElement} divider @param {number} x @param {number} split 0..1 @param {string} sides
 */
function placeDivider(divider, x, split, sides) {
  divider.style.left = `${x.toFixed(1)}px`;
  divider.setAttribute('aria-valuenow', String(Math.round(split * 100)));
  divider.setAttribute('aria-valuetext', `${Math.round(split * 100)}%: ${sides}`);
}

/**
 * The divider follows a pointer that pressed it, and moves with the arrow, Page and Home/End keys.
 * @param {HTMLElement} divider @param {HTMLElement} stage the element whose width the split divides
 * @param {{ move: (split: number) => void, split: () => number | null }} o the split now, null while the view is not split
 */
function attachDivider(divider, stage, { move, split }) {
  divider.addEventListener('pointerdown', (e) => {
    divider.setPointerCapture(e.pointerId);
    e.stopPropagation();
  });
  divider.addEventListener('pointermove', (e) => {
    if (!divider.hasPointerCapture(e.pointerId)) return;
    const box = stage.getBoundingClientRect();
    move((e.clientX - box.left) / Math.max(1, box.width));
  });
  divider.addEventListener('keydown', (e) => {
    const step = /** @type {Record<string, number>} */ ({ ArrowLeft: -0.02, ArrowRight: 0.02, PageDown: -0.1, PageUp: 0.1, Home: -1, End: 1 })[e.key];
    const now = split();
    if (step == null || now == null) return;
    e.preventDefault();
    e.stopPropagation();
    move(now + step);
  });
}
