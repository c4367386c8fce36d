/**
 * The viewer's markup: the bar, the stage (canvas, status, inspector, overlays), the transport and
 * a place for dialogs. Element ids carry a prefix, so a page can hold more than one viewer (the
 * standalone page uses none: its ids are the ones its tests and links know).
 * The buttons that need a store (Compare, the region tools, PNG, Video) start disabled; the app enables them once the
 * store is open. The speed list is filled here, so it is whole even when no store opens.
 * @module
 */
import { DEFAULT_SPEED, SPEEDS } from './playback.js';

/** The ids of the bar's buttons that act on an open store. */
export const STORE_BUTTONS = /** @type {const} */ (['compare-toggle', 'region-box', 'region-polygon', 'export', 'video']);

const speedOptions = () => SPEEDS.map((s) => `<option value="${s}"${s === DEFAULT_SPEED ? ' selected' : ''}>${s}/s</option>`).join('');

/**
 * @param {string} p id prefix
 * @param {boolean} page the viewer is the page (its landmarks: header, main, footer), else a part of one
 */
export const viewerMarkup = (p, page) => {
  const [bar, stage, transport] = page ? ['header', 'main', 'footer'] : ['div', 'div', 'div'];
  const region = page ? '' : ' role="region"';
  return `
  <div class="app">
    <${bar} class="bar"${region} aria-label="Viewer controls">
      <a id="${p}wordmark" class="wordmark" href="./">chronozarr</a>
      <span id="${p}store-name" class="store-name"></span>
      <label id="${p}catalog-field" class="field catalog" hidden>Store <select id="${p}catalog-select" aria-label="Store from the catalog"></select></label>
      <div id="${p}product-buttons" class="products" role="group" aria-label="Product"></div>
      <label class="product-select"><span class="sr-only">Product</span><select id="${p}product-select" aria-label="Product"></select></label>
      <label id="${p}band-field" class="field" hidden>Band <select id="${p}band-select" aria-label="Band"></select></label>
      <span class="tools">
        <button id="${p}compare-toggle" type="button" aria-pressed="false" disabled title="Compare two dates side by side (c)">Compare</button>
        <button id="${p}region-box" type="button" aria-pressed="false" disabled aria-label="Draw a box region" title="Draw a box region: drag on the map (r; Shift+drag works without the tool; Shift+R puts one at the centre)">Box</button>
        <button id="${p}region-polygon" type="button" aria-pressed="false" disabled aria-label="Draw a polygon region" title="Draw a polygon region: click its corners, double-click, Enter or a click on the first corner closes it, Esc cancels (g)">Polygon</button>
        <button id="${p}export" class="export" type="button" disabled aria-label="Export the view as PNG with its date, legend and scale" title="PNG of the view (p)">PNG</button>
        <button id="${p}video" class="export" type="button" disabled aria-label="Record a time-lapse video" title="Time-lapse video (v)">Video</button>
        <button id="${p}help" type="button" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">?</button>
      </span>
    </${bar}>
    <${stage} id="${p}stage" class="stage"${region} aria-label="Map">
      <canvas id="${p}map" class="cz-map" tabindex="0" role="img" aria-label="Raster view. Drag to pan, wheel or plus and minus to zoom, left and right arrows to change the date, Shift with arrows to pan, click a pixel to inspect it."></canvas>
      <div id="${p}loading" class="loading" role="progressbar" aria-label="Loading the view" aria-valuemin="0" aria-valuemax="100" hidden></div>
      <div id="${p}status" class="status" role="status" aria-live="polite"></div>
      <div id="${p}toast" class="toast" role="alert" hidden></div>
      <div id="${p}readout" class="readout" aria-live="off"></div>
      <div id="${p}markers" class="markers"></div>
      <div id="${p}overlays" class="overlays"></div>
      <aside id="${p}regions" class="regions-panel" aria-label="Regions and their chart" hidden></aside>
      <aside id="${p}inspector" class="inspector" aria-label="Pixel inspector" hidden>
        <button id="${p}inspector-close" class="close" type="button" aria-label="Close the inspector">×</button>
        <div id="${p}inspect-body"></div>
        <div id="${p}chart-host" class="chart-host"></div>
      </aside>
    </${stage}>
    <${transport} class="transport"${region} aria-label="Time">
      <button id="${p}play" type="button" aria-label="Play" aria-pressed="false">▶</button>
      <label class="speed">Speed <select id="${p}speed" aria-label="Playback speed, steps per second">${speedOptions()}</select></label>
      <div id="${p}timeline" class="timeline"></div>
      <output id="${p}date" class="date" aria-live="polite"></output>
    </${transport}>
  </div>
  <div id="${p}dialogs"></div>`;
};
