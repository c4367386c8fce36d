/**
 * The scale bar: a round ground length at the view's centre and its length on screen. Projected
 * stores (WGS84 UTM) read in metres of the grid; EPSG:3857 metres are scaled by the cosine of the
 * latitude (Web Mercator stretches them); an EPSG:4326 store's bar is a round number of degrees of
 * longitude, with its ground length along the parallel at the centre's latitude.
 * @module
 */
import { pixelToStore } from '../lib/camera.js';
import { findElement } from '../lib/dom.js';
import { metresPerDegreeLon, parseCrs, toLonLat } from '../lib/geo.js';
import { formatTick, niceFloor } from '../lib/ticks.js';

/**
 * @typedef {object} ScaleSpec
 * @property {number} px bar length in CSS pixels
 * @property {number} length the round length the bar stands for, in `units`
 * @property {'m' | 'deg' | 'px' | 'crs'} units
 * @property {string} label
 */

/**
 * @param {{ crs: string | null, levels: readonly { transform: readonly number[] }[] }} store
 * @param {import('../lib/typedefs.js').Camera} cam
 * @param {number} [maxPx] the longest bar wanted
 * @returns {ScaleSpec}
 */
export function scaleFor(store, cam, maxPx = 120) {
  const transform = store.crs != null ? store.levels[0].transform : null;
  const kind = parseCrs(store.crs)?.kind ?? null;
  // Store units per level-0 pixel along the screen's x axis.
  const perPixel = transform ? Math.hypot(transform[0], transform[3]) : 1;
  const c = pixelToStore(transform, cam.cx, cam.cy);
  const ll = kind ? toLonLat(store.crs, c.x, c.y) : null;
  let ground = perPixel;
  if (kind === '3857' && ll) ground = perPixel * Math.cos((ll.lat * Math.PI) / 180);
  const perCss = ground / cam.zoom;
  const length = niceFloor(maxPx * perCss);
  const px = length / perCss;
  if (kind === '4326' && ll) {
    const km = (length * metresPerDegreeLon(ll.lat)) / 1000;
    const lat = `${formatTick(Math.abs(ll.lat), 3)}° ${ll.lat < 0 ? 'S' : 'N'}`;
    return { px, length, units: 'deg', label: `${formatTick(length)}° ≈ ${formatTick(km, 3)} km east–west at ${lat}` };
  }
  if (kind) return { px, length, units: 'm', label: length >= 1000 ? `${formatTick(length / 1000)} km` : `${formatTick(length)} m` };
  if (transform) return { px, length, units: 'crs', label: `${formatTick(length)} ${store.crs ?? ''} units`.trim() };
  return { px, length, units: 'px', label: `${formatTick(length)} pixels` };
}

/**
 * @param {HTMLElement} host
 */
export function createScaleBar(host) {
  const el = document.createElement('div');
  el.className = 'scalebar';
  el.innerHTML = '<div class="sb-bar"></div><span class="sb-label"></span>';
  host.append(el);
  const bar = findElement(el, '.sb-bar', HTMLElement);
  const label = findElement(el, '.sb-label', HTMLElement);
  /** @type {ScaleSpec | null} */
  let spec = null;
  return {
    /** @param {ScaleSpec} s */
    update(s) {
      spec = s;
      bar.style.width = `${s.px.toFixed(2)}px`;
      label.textContent = s.label;
      el.setAttribute('aria-label', `Scale: ${s.px.toFixed(0)} pixels are ${s.label}`);
      Object.assign(el.dataset, { px: String(s.px), length: String(s.length), units: s.units });
    },
    /** The bar on a 2D canvas, its left end at (x, y + height); returns its height. */
    draw(/** @type {CanvasRenderingContext2D} */ ctx, /** @type {number} */ x, /** @type {number} */ y, scale = 1) {
      if (!spec) return 0;
      const h = Math.round(30 * scale);
      const w = Math.round(spec.px * scale);
      ctx.save();
      ctx.font = `${Math.round(11 * scale)}px system-ui, sans-serif`;
      const tw = ctx.measureText(spec.label).width;
      ctx.fillStyle = 'rgba(10, 14, 20, 0.78)';
      ctx.fillRect(x, y, Math.max(w, tw) + 12 * scale, h);
      ctx.fillStyle = '#e8ecf2';
      ctx.textBaseline = 'top';
      ctx.fillText(spec.label, x + 6 * scale, y + 4 * scale);
      ctx.fillRect(x + 6 * scale, y + h - 8 * scale, w, 3 * scale);
      ctx.restore();
      return h;
    },
    get spec() {
      return spec;
    },
  };
}
