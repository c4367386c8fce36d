/**
 * The regions on the map: an SVG layer over the canvas that draws them (each its colour, the
 * selected ones bolder) and the shape being drawn, and the gestures, all pointer events so a
 * mouse, a pen and a finger work alike: a drag draws a box (the Box tool, or Shift+drag on the
 * map), clicks place a polygon's corners (the Polygon tool; a double click, Enter or a click on the
 * first corner closes it, Escape cancels), a press on a region selects it (Shift: adds to the
 * selection) and a drag moves the selection. A focused region takes the arrow keys (a move of
 * 10 CSS pixels, 1 with Shift) and Delete.
 * @module
 */
import { corners } from './region-shapes.js';

/** CSS pixels a press may move and still be a click. */
const CLICK_PX = 5;
/** A click this near the first corner closes the polygon. */
const CLOSE_PX = 10;

/** @typedef {{ id: number, color: string, shape: import('./region-shapes.js').RegionShape }} Region */
/** @typedef {{ kind: 'box', a: [number, number], b: [number, number] } | { kind: 'polygon', points: [number, number][], cursor: [number, number] | null }} Draft in CSS pixels of the canvas */

/**
 * @typedef {object} Layer what the layer shows and the gestures change
 * @property {SVGSVGElement} svg
 * @property {HTMLCanvasElement} canvas
 * @property {Region[]} regions
 * @property {Set<number>} selected
 * @property {'none' | 'box' | 'polygon'} mode the tool in use
 * @property {Draft | null} draft
 * @property {[number, number] | null} offset a move of the selection under way, CSS pixels
 * @property {(X: number, Y: number) => [number, number]} toScreen store CRS to canvas CSS pixels
 * @property {(px: number, py: number) => [number, number]} toStore
 */

/**
 * @typedef {object} LayerActions
 * @property {() => void} render
 * @property {(corners: [number, number][], kind: 'box' | 'polygon') => void} add a shape drawn, its corners in CSS pixels
 * @property {(dx: number, dy: number) => void} move the selection, CSS pixels
 * @property {() => void} removeSelected
 * @property {(mode: Layer['mode']) => void} setMode
 * @property {(px: number, py: number) => void} shiftClick a Shift+press on the map that did not move (adds a pixel)
 */

/** @param {number[]} p */
const pts = (p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`;

/** The layer's SVG content. @param {Layer} L */
export function layerMarkup(L) {
  const out = L.regions.map((r) => {
    const on = L.selected.has(r.id);
    const shift = on && L.offset ? L.offset : [0, 0];
    const points = corners(r.shape).map(([X, Y]) => L.toScreen(X, Y)).map(([x, y]) => pts([x + shift[0], y + shift[1]])).join(' ');
    const label = `Region ${r.id}, a ${r.shape.kind}${on ? ', selected' : ''}: arrow keys move it, Delete removes it`;
    return `<g class="region${on ? ' selected' : ''}" data-region="${r.id}" tabindex="0" role="button" aria-pressed="${on}" aria-label="${label}">`
      + `<polygon points="${points}" fill="${r.color}" fill-opacity="${on ? 0.22 : 0.12}" stroke="${r.color}" stroke-width="${on ? 3 : 1.8}"/></g>`;
  });
  const d = L.draft;
  if (d?.kind === 'box') out.push(`<polygon class="region-draft" points="${[d.a, [d.b[0], d.a[1]], d.b, [d.a[0], d.b[1]]].map(pts).join(' ')}"/>`);
  if (d?.kind === 'polygon' && d.points.length) {
    const line = d.cursor ? [...d.points, d.cursor] : d.points;
    out.push(`<polyline class="region-draft" points="${line.map(pts).join(' ')}"/>`);
    d.points.forEach((p, i) => out.push(`<circle class="region-corner${i === 0 ? ' first' : ''}" cx="${p[0]}" cy="${p[1]}" r="${i === 0 ? 5 : 3}"/>`));
  }
  return out.join('');
}

/** A pointer event's point in the canvas's CSS pixels. @param {HTMLCanvasElement} canvas @param {PointerEvent | MouseEvent} e @returns {[number, number]} */
const local = (canvas, e) => {
  const box = canvas.getBoundingClientRect();
  return [e.clientX - box.left, e.clientY - box.top];
};

/**
 * Follow one pointer until it is released (listening on the window, where its events arrive
 * whatever element is under it, or holds it).
 * @param {PointerEvent} down @param {(e: PointerEvent) => void} onMove @param {(e: PointerEvent, cancelled: boolean) => void} onUp
 */
function track(down, onMove, onUp) {
  const id = down.pointerId;
  const move = (/** @type {PointerEvent} */ e) => e.pointerId === id && onMove(e);
  const up = (/** @type {PointerEvent} */ e) => {
    if (e.pointerId !== id) return;
    for (const [type, fn] of /** @type {const} */ ([['pointermove', move], ['pointerup', up], ['pointercancel', up]])) window.removeEventListener(type, fn);
    onUp(e, e.type === 'pointercancel');
  };
  window.addEventListener('pointermove', move);
  window.addEventListener('pointerup', up);
  window.addEventListener('pointercancel', up);
}

/**
 * A press that draws a box from where it started (the Box tool, or Shift on the map); one that
 * does not move is a Shift+click on the map, or nothing with the tool.
 * @param {Layer} L @param {LayerActions} act @param {PointerEvent} down @param {boolean} shifted
 */
function boxGesture(L, act, down, shifted) {
  const a = local(L.canvas, down);
  track(down, (e) => {
    L.draft = { kind: 'box', a, b: local(L.canvas, e) };
    act.render();
  }, (e, cancelled) => {
    const b = local(L.canvas, e);
    L.draft = null;
    if (!cancelled && Math.hypot(b[0] - a[0], b[1] - a[1]) > CLICK_PX) {
      act.setMode('none');
      act.add([a, b], 'box');
    } else if (!cancelled && shifted) act.shiftClick(a[0], a[1]);
    act.render();
  });
}

/** The polygon under way closed: a region when it has three corners. @param {Layer} L @param {LayerActions} act */
export function closePolygon(L, act) {
  const d = L.draft;
  L.draft = null;
  act.setMode('none');
  if (d?.kind === 'polygon' && d.points.length >= 3) act.add(d.points, 'polygon');
  act.render();
}

/** A press of the Polygon tool: a click places a corner, or closes on the first. @param {Layer} L @param {LayerActions} act @param {PointerEvent} down */
function polygonGesture(L, act, down) {
  const a = local(L.canvas, down);
  track(down, () => {}, (e, cancelled) => {
    const b = local(L.canvas, e);
    if (cancelled || Math.hypot(b[0] - a[0], b[1] - a[1]) > CLICK_PX) return;
    const d = L.draft?.kind === 'polygon' ? L.draft : (L.draft = { kind: 'polygon', points: [], cursor: null });
    const [first, last] = [d.points[0], d.points[d.points.length - 1]];
    if (d.points.length >= 3 && Math.hypot(b[0] - first[0], b[1] - first[1]) <= CLOSE_PX) return closePolygon(L, act);
    if (!last || Math.hypot(b[0] - last[0], b[1] - last[1]) > 3) d.points.push(b); // a double click's clicks add one corner
    act.render();
  });
}

/** A press on a region: select it (Shift: toggle it in the selection), a drag moves the selection. @param {Layer} L @param {LayerActions} act @param {PointerEvent} down @param {number} id */
function regionGesture(L, act, down, id) {
  const a = local(L.canvas, down);
  const was = L.selected.has(id);
  if (!down.shiftKey && !was) L.selected.clear();
  L.selected.add(id);
  act.render();
  track(down, (e) => {
    const b = local(L.canvas, e);
    L.offset = [b[0] - a[0], b[1] - a[1]];
    act.render();
  }, (e, cancelled) => {
    const b = local(L.canvas, e);
    const moved = !cancelled && Math.hypot(b[0] - a[0], b[1] - a[1]) > CLICK_PX / 2;
    L.offset = null;
    if (moved) act.move(b[0] - a[0], b[1] - a[1]);
    else if (down.shiftKey && was) L.selected.delete(id);
    act.render();
  });
}

/**
 * The layer's pointer and key handling, on the stage (caught before the map's own input, so a
 * drawing gesture neither pans nor clicks the map).
 * @param {Layer} L @param {LayerActions} act @param {HTMLElement} stage
 */
export function attachLayer(L, act, stage) {
  stage.addEventListener('pointerdown', (e) => {
    const target = /** @type {Element} */ (e.target);
    const onMap = target === L.canvas || L.svg.contains(target);
    const region = /** @type {SVGElement | null} */ (target.closest('[data-region]'));
    if (!onMap || !e.isPrimary || e.button > 0) return;
    if (L.mode === 'box' || (L.mode === 'none' && e.shiftKey && !region)) boxGesture(L, act, e, L.mode === 'none');
    else if (L.mode === 'polygon') polygonGesture(L, act, e);
    else if (region) {
      regionGesture(L, act, e, Number(region.dataset.region));
      /** @type {SVGElement | null} */ (L.svg.querySelector(`[data-region="${region.dataset.region}"]`))?.focus({ preventScroll: true }); // the arrows and Delete act on it
    }
    else return L.selected.size && (L.selected.clear(), act.render()); // a press elsewhere on the map lets go of the selection
    e.preventDefault();
    e.stopPropagation();
  }, { capture: true });
  L.svg.addEventListener('pointermove', (e) => {
    if (L.draft?.kind !== 'polygon') return;
    L.draft.cursor = local(L.canvas, e);
    act.render();
  });
  L.svg.addEventListener('dblclick', () => L.mode === 'polygon' && closePolygon(L, act));
  // The map's wheel zoom goes on while a tool is in use.
  L.svg.addEventListener('wheel', (e) => L.canvas.dispatchEvent(new WheelEvent('wheel', e)), { passive: true });
  L.svg.addEventListener('keydown', (e) => regionKey(L, act, e));
  L.svg.addEventListener('focusin', (e) => {
    const id = Number(/** @type {SVGElement} */ (e.target).dataset?.region);
    if (id && !L.selected.has(id)) {
      L.selected.clear();
      L.selected.add(id);
      act.render();
    }
  });
}

const STEPS = /** @type {Record<string, [number, number]>} */ ({ ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] });

/** A key on a focused region: arrows move the selection, Delete removes it. @param {Layer} L @param {LayerActions} act @param {KeyboardEvent} e */
function regionKey(L, act, e) {
  if (!(/** @type {Element} */ (e.target).closest('[data-region]')) || e.ctrlKey || e.metaKey || e.altKey) return;
  const step = STEPS[e.key];
  if (step) act.move(step[0] * (e.shiftKey ? 1 : 10), step[1] * (e.shiftKey ? 1 : 10));
  else if (e.key === 'Delete' || e.key === 'Backspace') act.removeSelected();
  else return;
  e.preventDefault();
  e.stopPropagation();
}

/** The layer's SVG element, over the canvas. */
export function layerElement() {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'regions-layer');
  svg.setAttribute('aria-label', 'Regions');
  svg.setAttribute('role', 'group');
  return svg;
}
