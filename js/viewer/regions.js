/**
 * Regions drawn on the map and charted (issue 39): the layer of shapes and its gestures
 * (region-layer.js), the toolbar's Box and Polygon tools, the panel with the chart and exports
 * (region-panel.js), and the regions as the address and the embed API give and take them
 * (region-shapes.js). Regions are held in the store's CRS, so they stay where they were drawn
 * whatever the view does.
 * @module
 */
import { pixelToScreen, pixelToStore, screenToPixel, storeToPixel } from '../lib/camera.js';
import { attachLayer, closePolygon, layerElement, layerMarkup } from './region-layer.js';
import { createRegionPanel } from './region-panel.js';
import { MAX_REGIONS, REGION_COLORS, boxShape, encodeRegions, mapShape, polygonShape } from './region-shapes.js';

/**
 * @typedef {object} RegionParts
 * @property {import('../lib/typedefs.js').Store} store
 * @property {import('./first-view.js').ViewState} state the camera, product, band and date
 * @property {ReturnType<typeof import('../lib/dom.js').idLookup>} $ the viewer's element by id
 * @property {() => import('../lib/typedefs.js').CanvasSize} size the canvas now
 * @property {(t: number) => void} setT a date picked on the chart
 * @property {(px: number, py: number) => void} shiftClick a Shift+click on the map (it adds a pixel)
 * @property {Pick<ReturnType<typeof import('./embed.js').createEmbed>, 'send'>} embed
 * @property {Document | HTMLElement} keys where the viewer's keys arrive (Enter and Escape while drawing)
 * @property {string} fileStem
 * @property {() => void} onChange the regions changed (the address follows)
 */

/** @param {RegionParts} o */
export function createRegions({ store, state, $, size, setT, shiftClick, embed, keys, fileStem, onChange }) {
  const transform = store.crs != null ? store.levels[0].transform : null;
  const canvas = $('map', HTMLCanvasElement);
  const svg = layerElement();
  $('markers').after(svg);
  const L = layerOf(svg, canvas, transform, state, size);
  const buttons = { box: $('region-box'), polygon: $('region-polygon') };
  const panel = createRegionPanel({ store, host: $('regions'), look: () => state, setT, remove: (id) => act.remove(id), embed, fileStem });

  /** Replace the regions (the address, a host's set): ids from 1 and colours in order. @param {import('./region-shapes.js').RegionShape[]} shapes */
  function set(shapes) {
    L.regions = shapes.slice(0, MAX_REGIONS).map((shape, i) => ({ id: i + 1, color: REGION_COLORS[i % REGION_COLORS.length], shape }));
    L.selected.clear();
    changed();
  }
  function changed() {
    render();
    panel.sync(L.regions);
    onChange();
  }
  const act = { ...layerActions(L, { render: () => render(), changed, setMode }), shiftClick };

  /** Draw the layer, keeping the focus on the region that had it. */
  function render() {
    const focused = /** @type {HTMLElement | null} */ (document.activeElement)?.closest?.('[data-region]');
    const id = focused && svg.contains(focused) ? /** @type {SVGElement} */ (focused).dataset.region : null;
    svg.innerHTML = layerMarkup(L);
    svg.classList.toggle('drawing', L.mode !== 'none');
    if (id) /** @type {SVGElement | null} */ (svg.querySelector(`[data-region="${id}"]`))?.focus();
  }
  /** @param {import('./region-layer.js').Layer['mode']} mode */
  function setMode(mode) {
    L.mode = mode;
    if (mode !== 'polygon') L.draft = null;
    buttons.box.setAttribute('aria-pressed', String(mode === 'box'));
    buttons.polygon.setAttribute('aria-pressed', String(mode === 'polygon'));
    render();
  }
  /** The tool on or off. @param {'box' | 'polygon'} kind */
  const draw = (kind) => setMode(L.mode === kind ? 'none' : kind);
  buttons.box.addEventListener('click', () => draw('box'));
  buttons.polygon.addEventListener('click', () => draw('polygon'));
  attachLayer(L, act, $('stage'));
  attachDrawingKeys(keys, L, act);

  return {
    set,
    draw,
    /** The regions in the address's form (null for none). */
    encoded: () => encodeRegions(L.regions.map((r) => r.shape)),
    get regions() {
      return L.regions;
    },
    /** A box a third of the view across at its centre: drawing with the keyboard (then arrows move it). */
    addCentreBox() {
      const { w, h } = size();
      const r = Math.min(w, h) / 6;
      act.add([[w / 2 - r, h / 2 - r], [w / 2 + r, h / 2 + r]], 'box');
      /** @type {SVGElement | null} */ (svg.querySelector(`[data-region="${L.regions.at(-1)?.id}"]`))?.focus();
    },
    /** Delete the selected regions; false when none is. */
    removeSelected: () => L.selected.size > 0 && (act.removeSelected(), true),
    view: render,
    look: () => panel.sync(L.regions),
    time: () => panel.draw(),
    panel,
    stop: panel.stop,
  };
}

/**
 * The layer's state, its coordinates mapped through the camera: store CRS to canvas CSS pixels and back.
 * @param {SVGSVGElement} svg @param {HTMLCanvasElement} canvas @param {readonly number[] | null} transform
 * @param {{ cam: import('../lib/typedefs.js').Camera }} state @param {() => import('../lib/typedefs.js').CanvasSize} size
 * @returns {import('./region-layer.js').Layer}
 */
function layerOf(svg, canvas, transform, state, size) {
  return {
    svg, canvas, regions: [], selected: new Set(), mode: 'none', draft: null, offset: null,
    toScreen: (X, Y) => {
      const p = storeToPixel(transform, X, Y);
      const s = pixelToScreen(state.cam, size().w, size().h, p.x, p.y);
      return [s.px, s.py];
    },
    toStore: (px, py) => {
      const p = screenToPixel(state.cam, size().w, size().h, px, py);
      const s = pixelToStore(transform, p.x, p.y);
      return [s.x, s.y];
    },
  };
}

/**
 * While a tool is in use, Enter closes the polygon and Escape puts the tool down, before the
 * viewer's shortcuts see them (inspect, close the panel).
 * @param {Document | HTMLElement} keys @param {import('./region-layer.js').Layer} L @param {import('./region-layer.js').LayerActions} act
 */
function attachDrawingKeys(keys, L, act) {
  keys.addEventListener('keydown', (/** @type {Event} */ e) => {
    const k = /** @type {KeyboardEvent} */ (e).key;
    if (L.mode === 'none' || (k !== 'Escape' && k !== 'Enter')) return;
    if (k === 'Enter' && L.mode === 'polygon') closePolygon(L, act);
    else act.setMode('none');
    e.preventDefault();
    e.stopPropagation();
  }, { capture: true });
}

/**
 * What the layer's gestures do to the regions. @param {import('./region-layer.js').Layer} L
 * @param {{ render: () => void, changed: () => void, setMode: (m: import('./region-layer.js').Layer['mode']) => void }} o
 */
function layerActions(L, { render, changed, setMode }) {
  return {
    render,
    setMode,
    /** @param {[number, number][]} px corners in CSS pixels @param {'box' | 'polygon'} kind */
    add(px, kind) {
      const corners = px.map(([x, y]) => L.toStore(x, y));
      const shape = kind === 'box' ? boxShape(corners.flat()) : polygonShape(corners);
      if (typeof shape === 'string' || L.regions.length >= MAX_REGIONS) return;
      const used = new Set(L.regions.map((r) => r.color));
      const color = REGION_COLORS.find((c) => !used.has(c)) ?? REGION_COLORS[0];
      const id = Math.max(0, ...L.regions.map((r) => r.id)) + 1;
      L.regions = [...L.regions, { id, color, shape }];
      L.selected = new Set([id]);
      changed();
    },
    /** @param {number} dx @param {number} dy CSS pixels */
    move(dx, dy) {
      L.regions = L.regions.map((r) => (L.selected.has(r.id) ? { ...r, shape: mapShape(r.shape, ([X, Y]) => {
        const [x, y] = L.toScreen(X, Y);
        return L.toStore(x + dx, y + dy);
      }) } : r));
      changed();
    },
    removeSelected() {
      L.regions = L.regions.filter((r) => !L.selected.has(r.id));
      L.selected.clear();
      changed();
    },
    /** @param {number} id */
    remove(id) {
      L.regions = L.regions.filter((r) => r.id !== id);
      L.selected.delete(id);
      changed();
    },
  };
}
