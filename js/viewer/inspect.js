/**
 * The pixel inspector: what a click reads (physical and stored values, validity, coverage, level)
 * and the chart of that pixel over every date for the product or band on screen.
 * @module
 */
import { escapeHtml as esc } from './html.js';
import { createChart } from './chart.js';
import { isReflectance, productBands } from './products.js';

const COLORS = ['#e0605a', '#6cc070', '#5a9ee6'];

/**
 * The values of one pixel of a reader cell, by band: stored, physical (null when invalid), valid.
 * @param {any} store
 * @param {{ data: ArrayLike<number>, mask?: Uint8Array, chunkWidth: number, chunkHeight: number }} cell
 * @param {number} ix column inside the chunk
 * @param {number} iy row inside the chunk
 */
export function pixelValues(store, cell, ix, iy) {
  const { data, mask, chunkWidth: cw, chunkHeight: ch } = cell;
  const i = iy * cw + ix;
  const masked = mask ? mask[i] === 0 : false;
  const bands = store.bands.map((band, b) => {
    const stored = data[b * cw * ch + i];
    const valid = mask ? !masked : store.nodata == null || stored !== store.nodata;
    return { name: band.name, stored, valid, value: valid ? stored * band.scale + band.offset : null, units: band.units ?? null };
  });
  return { bands, valid: bands.every((b) => b.valid), maskValue: mask ? mask[i] : null };
}

/** A physical value for display: reflectance with four decimals, else up to six significant digits. */
export function formatValue(band, v) {
  if (v == null) return '–';
  if (isReflectance(band)) return v.toFixed(4);
  if (band.scale === 1 && band.offset === 0) return String(v);
  return String(Number(v.toPrecision(6)));
}

/**
 * @param {object} o
 * @param {any} o.store
 * @param {HTMLElement} o.panel
 * @param {HTMLElement} o.body
 * @param {HTMLElement} o.chartHost
 * @param {(t: number) => void} o.onJump
 * @param {() => { product: string, band: number, t: number }} o.look
 */
export function createInspector({ store, panel, body, chartHost, onJump, look }) {
  const chart = createChart(chartHost, { onPick: onJump });
  /** @type {AbortController | null} */
  let history = null;
  /** @type {any} */
  let current = null;

  /**
   * @param {{ lod: number, x: number, y: number, x0: number, y0: number, t: number, cell: any }} hit
   *   x, y: pixel of the drawn level; x0, y0: level-0 pixel clicked
   */
  async function show(hit) {
    current = hit;
    panel.hidden = false;
    const lvl = store.levels[hit.lod];
    const cs = lvl.chunkSize;
    const px = pixelValues(store, hit.cell, hit.x % cs, hit.y % cs);
    const rows = px.bands
      .map((b, i) => {
        const band = store.bands[i];
        const units = b.units ? ` <span class="units">${esc(b.units)}</span>` : isReflectance(band) ? ' <span class="units">reflectance</span>' : '';
        return `<tr><th scope="row">${esc(b.name)}${band.common_name ? ` <span class="muted">${esc(band.common_name)}</span>` : ''}</th><td class="num">${formatValue(band, b.value)}${units}</td><td class="num muted">${b.stored}</td></tr>`;
      })
      .join('');
    const coarse = hit.lod === 0 ? 'Level 0 (full resolution)' : `Level ${hit.lod} (${2 ** hit.lod}× coarser)`;
    body.innerHTML = `
      <h2 class="insp-title">${esc(store.times[hit.t].slice(0, 10))}</h2>
      <p class="insp-where">Pixel ${hit.x0}, ${hit.y0}${hit.lod ? ` · level-${hit.lod} pixel ${hit.x}, ${hit.y}` : ''}</p>
      <p class="insp-level" data-level="${hit.lod}">${coarse}</p>
      <p class="insp-valid" data-valid="${px.valid}">${px.valid ? 'Valid' : store.hasMask && px.maskValue === 0 ? 'Invalid: masked out' : 'Invalid: nodata'}</p>
      <p class="insp-coverage" data-coverage="">${store.hasCoverage ? 'Coverage: reading…' : ''}</p>
      <table class="insp-values"><thead><tr><th scope="col">Band</th><th scope="col">Value</th><th scope="col">Stored</th></tr></thead><tbody>${rows}</tbody></table>`;
    if (store.hasCoverage) {
      const cov = await store.getCoverage(hit.lod, Math.floor(hit.y / cs), Math.floor(hit.x / cs), hit.t).catch(() => null);
      if (current !== hit) return;
      const el = body.querySelector('.insp-coverage');
      if (cov && el) {
        const n = cov.data[(hit.y % cs) * cov.chunkWidth + (hit.x % cs)];
        el.textContent = n === 0 ? 'No valid observation (gap-filled)' : `Observed by ${n} scene${n === 1 ? '' : 's'}`;
        el.setAttribute('data-coverage', String(n));
      }
    }
    loadHistory(hit);
    return px;
  }

  /** Read the pixel at every timestep (the reader caches), charting as values come in. */
  function loadHistory(hit) {
    history?.abort();
    const ctrl = new AbortController();
    history = ctrl;
    const n = store.times.length;
    const lvl = store.levels[hit.lod];
    const cs = lvl.chunkSize;
    const row = Math.floor(hit.y / cs);
    const col = Math.floor(hit.x / cs);
    /** @type {(ReturnType<typeof pixelValues> | undefined)[]} */
    const got = new Array(n);
    let next = 0;
    let timer = 0;
    const draw = () => {
      timer = 0;
      if (history === ctrl) renderChart(hit, got);
    };
    const worker = async () => {
      while (next < n && !ctrl.signal.aborted) {
        const t = next++;
        try {
          const cell = await store.getCell(hit.lod, row, col, t, { signal: ctrl.signal });
          got[t] = pixelValues(store, cell, hit.x % cs, hit.y % cs);
        } catch {
          if (ctrl.signal.aborted) return;
        }
        if (!timer) timer = setTimeout(draw, 60);
      }
    };
    Promise.all(Array.from({ length: 6 }, worker)).then(() => {
      clearTimeout(timer);
      draw();
    });
  }

  function renderChart(hit, got) {
    const { product, band } = look();
    const bands = store.bands;
    const used = productBands(product, bands, band);
    let series;
    let title;
    if (product === 'ndvi' || product === 'ndwi' || product === 'water') {
      const [a, b] = used;
      const values = got.map((p) => {
        if (!p || !p.bands[a].valid || !p.bands[b].valid) return null;
        const va = /** @type {number} */ (p.bands[a].value);
        const vb = /** @type {number} */ (p.bands[b].value);
        return va + vb === 0 ? 0 : (va - vb) / (va + vb);
      });
      const name = product === 'ndvi' ? 'NDVI' : 'NDWI';
      series = [{ label: name, color: '#7fc4ff', values }];
      title = `${name} (index) over time`;
    } else {
      series = used
        .filter((i) => i >= 0)
        .map((i, k) => ({
          label: bands[i].name,
          color: used.filter((j) => j >= 0).length === 1 ? '#d8dee9' : COLORS[k],
          values: got.map((p) => (p && p.bands[i].valid ? p.bands[i].value : null)),
        }));
      const units = product === 'band' ? bands[band].units ?? (isReflectance(bands[band]) ? 'reflectance' : '') : '';
      title = product === 'band' ? `${bands[band].name}${units ? ` (${units})` : ''} over time` : `${series.map((s) => s.label).join(', ')} over time`;
    }
    chart.render({ title, times: store.times, series, t: look().t });
    const cap = chartHost.querySelector('.chart-caption') ?? chartHost.appendChild(Object.assign(document.createElement('p'), { className: 'chart-caption' }));
    const breaks = series[0]?.values.filter((v) => v == null).length ?? 0;
    cap.textContent = `${title} · ${hit.lod ? `level ${hit.lod}` : 'level 0'} · ${breaks} gap${breaks === 1 ? '' : 's'}. Click the chart to jump to a date.`;
  }

  return {
    show,
    refresh: () => current && loadHistory(current),
    close: () => {
      panel.hidden = true;
      history?.abort();
      current = null;
    },
    get open() {
      return !panel.hidden;
    },
  };
}
