/**
 * The pixel inspector: what a click reads (physical and stored values, validity, coverage, level)
 * and the history of the pixels held (history.js) for the product or band on screen.
 * @module
 */
import { escapeHtml as esc } from '../lib/html.js';
import { createHistory } from './history.js';
import { MAX_PIXELS } from './history-series.js';
import { formatValue, pixelValues } from '../lib/pixel.js';
import { isReflectance } from '../lib/products.js';
import { pixelCell } from '../src/reader/geometry.js';

export { formatValue, pixelValues };

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {HTMLElement} o.panel
 * @param {HTMLElement} o.body
 * @param {HTMLElement} o.chartHost
 * @param {HTMLElement} o.markers where the held pixels' markers on the map go
 * @param {(x: number, y: number) => { px: number, py: number }} o.screenOf
 * @param {(t: number) => void} o.onJump
 * @param {() => { product: string, band: number, t: number }} o.look
 * @param {string} o.fileStem
 */
export function createInspector({ store, panel, body, chartHost, markers, screenOf, onJump, look, fileStem }) {
  const history = createHistory({ store, host: chartHost, markers, screenOf, onJump, look, fileStem });
  /** @typedef {{ lod: number, x: number, y: number, x0: number, y0: number, t: number, cell: import('../lib/typedefs.js').Cell }} Hit */
  /** @type {Hit | null} the pixel shown */
  let current = null;

  /**
   * @param {Hit} hit
   *   x, y: pixel of the drawn level; x0, y0: level-0 pixel clicked
   * @param {{ add?: boolean }} [how] add: chart it beside the pixels held (Shift+click, Add pixel)
   */
  async function show(hit, { add = false } = {}) {
    const keep = (add || history.adding) && history.pixels.length > 0;
    if (keep && history.pixels.length >= MAX_PIXELS) return null;
    current = hit;
    panel.hidden = false;
    const at = pixelCell(store.levels[hit.lod], hit.x, hit.y);
    const px = pixelValues(store, hit.cell, at.x, at.y);
    body.innerHTML = valuesMarkup(store, hit, px);
    history.add(hit, { add: keep });
    if (store.hasCoverage) {
      const cov = await store.getCoverage(hit.lod, at.row, at.col, hit.t).catch(() => null);
      if (current !== hit) return px;
      const el = body.querySelector('.insp-coverage');
      if (cov && el) {
        const n = cov.data[at.y * cov.chunkWidth + at.x];
        el.textContent = n === 0 ? 'No valid observation (gap-filled)' : `Observed by ${n} scene${n === 1 ? '' : 's'}`;
        el.setAttribute('data-coverage', String(n));
      }
    }
    return px;
  }

  return {
    show,
    refresh: () => history.refresh(),
    place: () => history.place(),
    close: () => {
      panel.hidden = true;
      history.clear();
      current = null;
    },
    get open() {
      return !panel.hidden;
    },
    history,
  };
}

/**
 * The values table of a clicked pixel, with its date, place, level, validity and coverage line.
 * @param {import('../lib/typedefs.js').Store} store
 * @param {{ lod: number, x: number, y: number, x0: number, y0: number, t: number }} hit
 * @param {ReturnType<typeof pixelValues>} px
 */
function valuesMarkup(store, hit, px) {
  const rows = px.bands
    .map((b, i) => {
      const band = store.attrs.bands[i];
      const units = b.units ? ` <span class="units">${esc(b.units)}</span>` : isReflectance(band) ? ' <span class="units">reflectance</span>' : '';
      return `<tr><th scope="row">${esc(b.name)}${band.common_name ? ` <span class="muted">${esc(band.common_name)}</span>` : ''}</th><td class="num">${formatValue(band, b.value)}${units}</td><td class="num muted">${b.stored}</td></tr>`;
    })
    .join('');
  const coarse = hit.lod === 0 ? 'Level 0 (full resolution)' : `Level ${hit.lod} (${2 ** hit.lod}× coarser)`;
  return `
      <h2 class="insp-title">${esc(store.times[hit.t].slice(0, 10))}</h2>
      <p class="insp-where">Pixel ${hit.x0}, ${hit.y0}${hit.lod ? ` · level-${hit.lod} pixel ${hit.x}, ${hit.y}` : ''}</p>
      <p class="insp-level" data-level="${hit.lod}">${coarse}</p>
      <p class="insp-valid" data-valid="${px.valid}">${px.valid ? 'Valid' : store.hasMask && px.maskValue === 0 ? 'Invalid: masked out' : 'Invalid: nodata'}</p>
      <p class="insp-coverage" data-coverage="">${store.hasCoverage ? 'Coverage: reading…' : ''}</p>
      <table class="insp-values"><thead><tr><th scope="col">Band</th><th scope="col">Value</th><th scope="col">Stored</th></tr></thead><tbody>${rows}</tbody></table>`;
}
