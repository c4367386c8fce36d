/**
 * The legend panel: the product's colour ramp with ticks in physical units (or the water classes),
 * and for a linear stretch two handles to drag (or move with the arrow keys), min and max inputs
 * and an Auto button that goes back to the percentile stretch of what is on screen.
 * @module
 */
import { context2d, findElement } from './dom.js';
import { escapeHtml as esc } from './html.js';
import { drawLegend, legendHeight, paintBar, paintSwatch } from './legend-draw.js';
import { positionOf, valueAt } from './legend-spec.js';
import { formatTick, ticks } from './ticks.js';

/**
 * The legend's small canvases are painted in memory: a GPU-backed 2D canvas would make the page
 * create its shared GPU context (a wait on the GPU process) while the first frame is loading.
 */
const SMALL = { willReadFrequently: true };

/**
 * @param {HTMLElement} host
 * @param {object} o
 * @param {(range: [number, number]) => void} o.onRange a stretch set by hand (physical units)
 * @param {() => void} o.onAuto back to the automatic stretch
 */
export function createLegend(host, { onRange, onAuto }) {
  const el = legendElement();
  host.append(el);
  const q = (/** @type {string} */ s) => findElement(el, s, HTMLElement);
  const bar = findElement(el, '.lg-bar', HTMLCanvasElement);
  const handles = /** @type {HTMLElement[]} */ ([...el.querySelectorAll('.lg-handle')]);
  const inputs = /** @type {HTMLInputElement[]} */ ([...el.querySelectorAll('.lg-range input')]);
  /** @type {import('./legend-spec.js').LegendSpec | null} */
  let spec = null;
  /** The bar's domain while a handle is dragged: the scale must not move under the pointer. */
  /** @type {[number, number] | null} */
  let frozen = null;

  /** @param {import('./legend-spec.js').LegendSpec} next */
  function update(next) {
    spec = next.kind === 'ramp' && frozen ? { ...next, domain: frozen, ticks: ticks(frozen[0], frozen[1], 5) } : next;
    const s = spec;
    q('.lg-title').innerHTML = `${esc(s.title)}${s.units ? ` <span class="units">${esc(s.units)}</span>` : ''}`;
    el.dataset.kind = s.kind;
    q('.lg-bar-wrap').hidden = s.kind !== 'ramp';
    q('.lg-ticks').hidden = s.kind !== 'ramp';
    q('.lg-classes').hidden = s.kind !== 'classes';
    q('.lg-range').hidden = !(s.kind === 'ramp' && s.stretch);
    if (s.kind === 'ramp') showRamp({ bar, ticks: q('.lg-ticks'), handles, inputs }, s);
    else showClasses(q('.lg-classes'), s);
  }

  /** Move stretch end `end` to value v (kept below / above the other end). @param {number} end 0 or 1 @param {number} v */
  function setEnd(end, v) {
    if (!spec || spec.kind !== 'ramp' || !spec.stretch) return;
    const r = /** @type {[number, number]} */ ([...spec.stretch]);
    const gap = (spec.domain[1] - spec.domain[0]) * 1e-4;
    r[end] = end === 0 ? Math.min(v, r[1] - gap) : Math.max(v, r[0] + gap);
    onRange(r);
  }

  attachDrag(q('.lg-bar-wrap'), {
    start: () => spec?.kind === 'ramp' && spec.stretch ? (frozen = spec.domain) && true : false,
    nearest: (f) => {
      if (spec?.kind !== 'ramp' || !spec.stretch) return 0; // a drag starts only on a stretch (start)
      const { stretch } = spec;
      return Math.abs(positionOf(spec, stretch[0]) - f) <= Math.abs(positionOf(spec, stretch[1]) - f) ? 0 : 1;
    },
    move: (end, f) => {
      if (spec?.kind === 'ramp') setEnd(end, valueAt(spec, f));
    },
    end: () => {
      frozen = null;
    },
  });
  handles.forEach((h, end) => h.addEventListener('keydown', (e) => {
    const step = keyStep(e);
    if (!spec || spec.kind !== 'ramp' || !spec.stretch || step == null) return;
    e.preventDefault();
    e.stopPropagation();
    setEnd(end, spec.stretch[end] + step * (spec.domain[1] - spec.domain[0]));
  }));
  for (const input of inputs) {
    input.addEventListener('change', () => {
      const range = typedRange(inputs);
      if (range) onRange(range);
    });
  }
  q('.lg-auto').addEventListener('click', () => onAuto());

  return {
    update,
    element: el,
    /** The legend as it is now, on a 2D canvas (exports). */
    draw: (/** @type {CanvasRenderingContext2D} */ ctx, /** @type {number} */ x, /** @type {number} */ y, /** @type {number} */ w, scale = 1) => (spec ? drawLegend(ctx, spec, x, y, w, scale) : 0),
    /** The height `draw` takes at that scale. */
    height: (scale = 1) => (spec ? legendHeight(spec, scale) : 0),
    get spec() {
      return spec;
    },
  };
}

/** The legend's markup: title, bar with two handles, ticks, class list, min and max inputs, Auto. */
function legendElement() {
  const el = document.createElement('section');
  el.className = 'legend';
  el.setAttribute('aria-label', 'Legend');
  el.innerHTML = `<div class="lg-title"></div>
    <div class="lg-bar-wrap"><canvas class="lg-bar" height="12" aria-hidden="true"></canvas>
      <span class="lg-handle" data-end="0" role="slider" tabindex="0" aria-label="Stretch minimum"></span>
      <span class="lg-handle" data-end="1" role="slider" tabindex="0" aria-label="Stretch maximum"></span></div>
    <div class="lg-ticks" aria-hidden="true"></div>
    <ul class="lg-classes"></ul>
    <div class="lg-range">
      <label>Min <input type="number" step="any" inputmode="decimal" data-end="0" aria-label="Stretch minimum (physical units)"></label>
      <label>Max <input type="number" step="any" inputmode="decimal" data-end="1" aria-label="Stretch maximum (physical units)"></label>
      <button type="button" class="lg-auto" title="2nd to 98th percentile of the valid values on screen">Auto</button>
    </div>`;
  return el;
}

/**
 * A ramp: the bar painted, its ticks placed, and for a linear stretch its handles and inputs at
 * the stretch's ends (an input being typed in keeps its text).
 * @param {{ bar: HTMLCanvasElement, ticks: HTMLElement, handles: HTMLElement[], inputs: HTMLInputElement[] }} parts
 * @param {import('./legend-spec.js').RampLegend} s
 */
function showRamp({ bar, ticks: tickRow, handles, inputs }, s) {
  const w = Math.max(1, Math.round(bar.clientWidth * (window.devicePixelRatio || 1)));
  bar.width = w;
  paintBar(context2d(bar, SMALL), s, 0, 0, w, bar.height);
  bar.dataset.domain = s.domain.join(',');
  tickRow.innerHTML = s.ticks
    .map((v) => `<span class="lg-tick" data-value="${v}" style="left:${(positionOf(s, v) * 100).toFixed(3)}%">${formatTick(v)}</span>`)
    .join('');
  handles.forEach((h, i) => {
    h.hidden = !s.stretch;
    if (!s.stretch) return;
    const v = s.stretch[i];
    h.style.left = `${(Math.min(1, Math.max(0, positionOf(s, v))) * 100).toFixed(3)}%`;
    h.setAttribute('aria-valuenow', String(v));
    h.setAttribute('aria-valuetext', `${formatTick(v, 5)} ${s.units}`.trim());
    h.setAttribute('aria-valuemin', String(s.domain[0]));
    h.setAttribute('aria-valuemax', String(s.domain[1]));
    if (document.activeElement !== inputs[i]) inputs[i].value = formatTick(v, 5);
  });
}

/** Classes: one swatch and label per class. @param {HTMLElement} list @param {import('./legend-spec.js').ClassLegend} s */
function showClasses(list, s) {
  list.replaceChildren(
    ...s.items.map((item) => {
      const li = document.createElement('li');
      const sw = document.createElement('canvas');
      sw.width = 22;
      sw.height = 12;
      sw.setAttribute('aria-hidden', 'true');
      paintSwatch(context2d(sw, SMALL), item, 0, 0, sw.width, sw.height);
      li.append(sw, document.createTextNode(` ${item.label}`));
      return li;
    }),
  );
}

/**
 * The fraction of the domain a key moves a handle by (the arrows a hundredth, Page Up and Down a
 * tenth, ten times that with Shift), or null for another key.
 * @param {KeyboardEvent} e
 */
function keyStep(e) {
  /** @type {Record<string, number>} */
  const steps = { ArrowLeft: -0.01, ArrowDown: -0.01, ArrowRight: 0.01, ArrowUp: 0.01, PageDown: -0.1, PageUp: 0.1 };
  const step = steps[e.key];
  return step == null ? null : step * (e.shiftKey ? 10 : 1);
}

/** The range typed in the min and max inputs, or null until both are numbers, max above min. @param {HTMLInputElement[]} inputs */
function typedRange(inputs) {
  const lo = Number(inputs[0].value);
  const hi = Number(inputs[1].value);
  const typed = inputs[0].value !== '' && inputs[1].value !== '' && Number.isFinite(lo) && Number.isFinite(hi) && hi > lo;
  return typed ? /** @type {[number, number]} */ ([lo, hi]) : null;
}

/**
 * Pointer drags along a bar: `start` says whether a drag may begin, `nearest` which end a press
 * at fraction f takes, `move` gets that end and the pointer's fraction of the bar.
 * @param {HTMLElement} wrap
 * @param {{ start: () => boolean, nearest: (f: number) => number, move: (end: number, f: number) => void, end: () => void }} o
 */
function attachDrag(wrap, { start, nearest, move, end }) {
  let active = -1;
  const frac = (/** @type {PointerEvent} */ e) => {
    const box = wrap.getBoundingClientRect();
    return Math.min(1, Math.max(0, (e.clientX - box.left) / Math.max(1, box.width)));
  };
  wrap.addEventListener('pointerdown', (e) => {
    if (!start()) return;
    wrap.setPointerCapture(e.pointerId);
    active = nearest(frac(e));
    move(active, frac(e));
  });
  wrap.addEventListener('pointermove', (e) => active >= 0 && move(active, frac(e)));
  const stop = () => {
    if (active < 0) return;
    active = -1;
    end();
  };
  wrap.addEventListener('pointerup', stop);
  wrap.addEventListener('pointercancel', stop);
}
