/**
 * The regions panel: a chip per region (its colour, ×), the statistic picked, the chart of every
 * region's series of the product or band on screen (region-chart.js) with its hover readout, and
 * the CSV and PNG exports. Each region's series is one `readRegionSeries` call of the reader, so
 * its reads go through the reader's cache and limiter (the `ahead` rank, as the map's read-ahead of
 * the next dates, for a level with a history array; the per-date fallback runs in the `background`
 * rank). From a history array a series arrives whole; from the per-date chunks the chart fills in
 * as each batch of dates arrives (the reader's `onProgress`), the caption counting them. Only a
 * complete series goes to the host as `chronozarr:region` and into the CSV.
 * @module
 */
import { findElement } from '../lib/dom.js';
import { escapeHtml as esc } from '../lib/html.js';
import { productBands } from '../lib/products.js';
import { chartPng } from './chart-png.js';
import { saveBlob } from './download.js';
import { createRegionChart, readoutText } from './region-chart.js';
import { encodeShape, readerGeometry, regionCsv } from './region-shapes.js';

const INDEXES = ['ndvi', 'ndwi', 'water'];
/**
 * The limiter's rank of a region's reads: asked for by the user, so ahead of the map's read-ahead
 * of far dates, but behind the frame on screen (a series without the history array is a read per
 * date and cell, which must not hold the connections a frame waits for).
 */
const PRIORITY = 'ahead';

/**
 * What a region's series reads for the product on screen: the index for NDVI, NDWI and water,
 * else the product's bands by name.
 * @param {Pick<import('../lib/typedefs.js').Store, 'attrs'>} store @param {{ product: string, band: number }} look
 */
export function regionQuantities(store, { product, band }) {
  if (INDEXES.includes(product)) return [product];
  return productBands(product, store.attrs.bands, band).filter((i) => i >= 0).map((i) => store.attrs.bands[i].name);
}

/**
 * One region's read: its complete series, or the part read so far, or why it failed.
 * @typedef {{ key: string, ctrl: AbortController, series: (import('./region-shapes.js').RegionSeries & Record<string, unknown>) | null,
 *   partial: import('./region-shapes.js').RegionSeries | null, error: string | null }} Load
 */

/** What the chart shows of a read: the complete series, else the dates read so far. @param {Load | null} load */
export const shown = (load) => load?.series ?? load?.partial ?? null;

/**
 * The series of the regions held, one read per region and quantity (a region moved, or another
 * product, is read again; the one before is aborted).
 * @param {Pick<import('../lib/typedefs.js').Store, 'readRegionSeries'>} store
 * @param {(r: import('./region-layer.js').Region, load: Load) => void} done a read ended (series or error)
 * @param {() => void} progress more dates of a read arrived
 */
export function createLoads(store, done, progress) {
  /** @type {Map<number, Load>} */
  const loads = new Map();
  /** @param {import('./region-layer.js').Region[]} regions @param {string[]} bands */
  function sync(regions, bands) {
    const ids = new Set(regions.map((r) => r.id));
    for (const [id, l] of loads) if (!ids.has(id)) (l.ctrl.abort(), loads.delete(id));
    for (const r of regions) {
      const key = `${encodeShape(r.shape)}|${bands.join(',')}`;
      if (loads.get(r.id)?.key === key) continue;
      loads.get(r.id)?.ctrl.abort();
      /** @type {Load} */
      const load = { key, ctrl: new AbortController(), series: null, partial: null, error: null };
      loads.set(r.id, load);
      const onProgress = (/** @type {unknown} */ partial) => {
        if (load.ctrl.signal.aborted || load.series) return;
        load.partial = /** @type {Load['partial']} */ (partial);
        progress();
      };
      store.readRegionSeries(readerGeometry(r.shape), { bands, signal: load.ctrl.signal, priority: PRIORITY, onProgress }).then(
        (s) => (load.series = /** @type {Load['series']} */ (s)),
        (err) => (load.error = err instanceof Error ? err.message : String(err)),
      ).then(() => !load.ctrl.signal.aborted && done(r, load));
    }
  }
  return { sync, get: (/** @type {number} */ id) => loads.get(id) ?? null, stop: () => sync([], []) };
}

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {HTMLElement} o.host the panel
 * @param {() => { product: string, band: number, t: number }} o.look
 * @param {(t: number) => void} o.setT a date picked on the chart
 * @param {(id: number) => void} o.remove a region's ×
 * @param {Pick<ReturnType<typeof import('./embed.js').createEmbed>, 'send'>} o.embed
 * @param {string} o.fileStem
 */
export function createRegionPanel({ store, host, look, setT, remove, embed, fileStem }) {
  host.innerHTML = `<h2 class="regions-title">Regions <button type="button" class="region-fold" aria-expanded="true" aria-label="Fold the regions panel" title="Fold or unfold the panel, to see the map under it">–</button></h2><ul class="region-list" aria-label="Regions"></ul>
    <label class="region-stat-field">Statistic <select class="region-stat"><option value="mean">mean</option><option value="min">min</option><option value="max">max</option></select></label>
    <div class="region-chart-host"></div><p class="region-readout" aria-live="polite"></p><p class="chart-caption region-caption"></p>
    <div class="hist-tools"><button type="button" class="region-csv">CSV</button><button type="button" class="region-png">PNG</button></div>`;
  const q = (/** @type {string} */ s) => findElement(host, s, HTMLElement);
  const stat = findElement(host, '.region-stat', HTMLSelectElement);
  /** @type {import('./region-layer.js').Region[]} */
  let held = [];
  const loads = createLoads(store, (r, load) => {
    draw();
    if (load.series) embed.send('chronozarr:region', { id: r.id, color: r.color, region: encodeShape(r.shape), geometry: readerGeometry(r.shape), times: store.times, ...load.series });
  }, () => draw());
  const chart = createRegionChart(q('.region-chart-host'), {
    onPick: (t) => setT(t),
    onHover: (t) => (q('.region-readout').textContent = t == null ? '' : readoutText(data(), t)),
  });
  const data = () => {
    const l = look();
    const what = regionQuantities(store, l).join(', ');
    return { title: `${stat.value} of ${what} per date`, times: store.times, t: l.t, stat: /** @type {import('./region-chart.js').Stat} */ (stat.value), regions: held.map((r) => ({ id: r.id, color: r.color, series: shown(loads.get(r.id)) })) };
  };

  /** A read under way: how many of the dates have arrived, when it reads them date by date. @param {Load | null | undefined} l */
  const reading = (l) => (l?.partial?.dates != null ? `reading… ${l.partial.dates} of ${store.times.length} dates` : 'reading…');

  function draw() {
    host.hidden = held.length === 0;
    if (!held.length) return;
    const d = data();
    chart.render(d);
    const states = held.map((r) => ({ r, l: loads.get(r.id) }));
    q('.region-caption').textContent = states.map(({ r, l }) => `#${r.id}: ${l?.error ? `could not be read: ${l.error}` : l?.series ? `level ${l.series.level} (${l.series.pixelSize} per pixel), ${l.series.regionPixels} pixels` : reading(l)}`).join(' · ')
      + '. Points fade with the share of valid pixels (dotted line, right axis). Click the chart to jump to a date.';
    host.dataset.complete = String(states.every(({ l }) => l?.series || l?.error));
  }

  /** Hold these regions: their chips, and their series read for the product on screen. @param {import('./region-layer.js').Region[]} regions */
  function sync(regions) {
    held = [...regions];
    q('.region-list').innerHTML = held.map((r) => `<li data-id="${r.id}" class="${r.shape.kind}"><span class="hist-swatch" style="background:${r.color}"></span>#${r.id} ${esc(r.shape.kind)}<button type="button" class="hist-remove region-remove" data-id="${r.id}" aria-label="Delete region ${r.id}">×</button></li>`).join('');
    loads.sync(held, regionQuantities(store, look()));
    draw();
  }

  host.addEventListener('click', (e) => {
    const el = /** @type {HTMLElement} */ (e.target);
    if (el.classList.contains('region-remove')) remove(Number(el.dataset.id));
    else if (el.classList.contains('region-csv')) exportCsv();
    else if (el.classList.contains('region-fold')) el.setAttribute('aria-expanded', String(!host.classList.toggle('folded')));
    else if (el.classList.contains('region-png')) chartPng(/** @type {SVGSVGElement} */ (chart.element)).then((blob) => saveBlob(blob, `${fileStem}_regions_chart.png`));
  });
  stat.addEventListener('change', draw);

  function exportCsv() {
    const done = held.flatMap((r) => {
      const s = loads.get(r.id)?.series;
      return s ? [{ id: r.id, series: s }] : [];
    });
    saveBlob(new Blob([regionCsv(store.times, done)], { type: 'text/csv' }), `${fileStem}_regions.csv`);
  }

  return { sync, draw, series: (/** @type {number} */ id) => loads.get(id)?.series ?? null, stop: loads.stop };
}
