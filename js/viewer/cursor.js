/**
 * The cursor readout: under the pointer, the store-CRS coordinates, lon/lat, the level-0 row and
 * column, and the stored and physical values of the pixel in the frame on screen. The values come
 * from the chunks the frame drew (no request per mouse move).
 * @module
 */
import { pixelToStore, screenToPixel } from '../lib/camera.js';
import { toLonLat } from '../lib/geo.js';
import { escapeHtml as esc } from '../lib/html.js';
import { formatValue, pixelValues } from '../lib/pixel.js';
import { pixelCell } from '../src/reader/geometry.js';

/**
 * @typedef {object} CursorInfo
 * @property {number} col level-0 column
 * @property {number} row level-0 row
 * @property {{ x: number, y: number }} at store coordinates of the pointer (level-0 pixels without a CRS)
 * @property {{ lon: number, lat: number } | null} lonlat
 * @property {number | null} t the timestep of the frame under the pointer
 * @property {number | null} lod the level drawn there
 * @property {ReturnType<typeof pixelValues> | null} values
 */

/**
 * What the readout shows for a CSS point of the canvas; null outside the raster.
 * @param {import('../lib/typedefs.js').Store} store
 * @param {import('../lib/typedefs.js').Camera} cam
 * @param {import('../lib/typedefs.js').Size} size
 * @param {number} px @param {number} py
 * @param {(x: number, y: number, px: number) => import('../lib/typedefs.js').PickHit | null} pick the drawn chunk under a level-0 pixel (px: the screen x, for a split view)
 * @returns {CursorInfo | null}
 */
export function cursorInfo(store, cam, size, px, py, pick) {
  const level0 = store.levels[0];
  const p = screenToPixel(cam, size.w, size.h, px, py);
  const col = Math.floor(p.x);
  const row = Math.floor(p.y);
  if (col < 0 || row < 0 || col >= level0.width || row >= level0.height) return null;
  const at = pixelToStore(store.crs != null ? level0.transform : null, p.x, p.y);
  const lonlat = store.crs != null ? toLonLat(store.crs, at.x, at.y) : null;
  const hit = pick(col, row, px);
  if (!hit) return { col, row, at, lonlat, t: null, lod: null, values: null };
  const inCell = pixelCell(store.levels[hit.lod], hit.x, hit.y);
  const values = pixelValues(store, hit.entry.cell, inCell.x, inCell.y);
  return { col, row, at, lonlat, t: hit.entry.t, lod: hit.lod, values };
}

/** Degrees with a hemisphere letter. @param {number} v @param {string} pos @param {string} neg */
const hemi = (v, pos, neg) => `${Math.abs(v).toFixed(5)}° ${v < 0 ? neg : pos}`;

/**
 * @param {HTMLElement} host
 * @param {{ store: import('../lib/typedefs.js').Store, canvas: HTMLCanvasElement, locate: (px: number, py: number) => CursorInfo | null }} o
 */
export function createCursorReadout(host, { store, canvas, locate }) {
  const el = document.createElement('div');
  el.className = 'cursor';
  el.setAttribute('aria-live', 'off');
  el.hidden = true;
  host.append(el);
  const geo = store.crs != null;
  const units = (/** @type {number} */ v) => (Math.abs(v) >= 1000 ? v.toFixed(1) : String(Number(v.toPrecision(8))));
  /** @type {CursorInfo | null} */
  let last = null;

  /** @param {CursorInfo | null} info */
  function show(info) {
    last = info;
    el.hidden = !info;
    // What sits above the readout (the legend) moves up by its height.
    if (!info) {
      host.style.setProperty('--cursor-h', '0px');
      return;
    }
    const where = geo
      ? `<span>${esc(store.crs)} ${units(info.at.x)}, ${units(info.at.y)}</span>${info.lonlat ? `<span>${hemi(info.lonlat.lat, 'N', 'S')} ${hemi(info.lonlat.lon, 'E', 'W')}</span>` : ''}`
      : '';
    const when = info.t == null ? '<span>not loaded</span>' : `<span>${store.times[info.t].slice(0, 10)}${info.lod ? ` · level ${info.lod}` : ''}</span>`;
    const vals = info.values
      ? `<span class="cur-values">${info.values.bands.map((b, i) => `${esc(b.name)} ${formatValue(store.attrs.bands[i], b.value)} <span class="muted">(${b.stored})</span>`).join(' · ')}${info.values.valid ? '' : ' · <span class="cur-invalid">invalid</span>'}</span>`
      : '';
    el.innerHTML = `<span>row ${info.row}, col ${info.col}</span>${where}${when}${vals}`;
    host.style.setProperty('--cursor-h', `${el.offsetHeight}px`);
    Object.assign(el.dataset, {
      row: String(info.row),
      col: String(info.col),
      x: String(info.at.x),
      y: String(info.at.y),
      lon: info.lonlat ? String(info.lonlat.lon) : '',
      lat: info.lonlat ? String(info.lonlat.lat) : '',
      t: info.t == null ? '' : String(info.t),
      lod: info.lod == null ? '' : String(info.lod),
      stored: info.values ? info.values.bands.map((b) => b.stored).join(',') : '',
      valid: info.values ? String(info.values.valid) : '',
    });
  }

  let pending = /** @type {{ px: number, py: number } | null} */ (null);
  let raf = 0;
  /** Show the readout for a CSS point, at most once per animation frame. @param {number} px @param {number} py */
  function pointAt(px, py) {
    pending = { px, py };
    if (!raf) raf = requestAnimationFrame(() => {
      raf = 0;
      if (pending) show(locate(pending.px, pending.py));
    });
  }

  canvas.addEventListener('pointermove', (e) => {
    if (e.pointerType === 'touch') return;
    const box = canvas.getBoundingClientRect();
    pointAt(e.clientX - box.left, e.clientY - box.top);
  });
  canvas.addEventListener('pointerleave', () => {
    pending = null;
    show(null);
  });

  return {
    pointAt,
    /** The frame changed under a still pointer: read again. */
    refresh: () => pending && !el.hidden && pointAt(pending.px, pending.py),
    get info() {
      return last;
    },
  };
}
