/**
 * The pixel history panel: up to four pixels held at once (each its colour, on the chart and as a
 * marker on the map, each removable), their values at every date read through the reader (from
 * the store's history array when it has one: the whole series in a request or two, and its
 * validity from the history's mask copy in as many more, side by side), the chart
 * with its time window, and the CSV and PNG exports.
 * @module
 */
import { findElement } from '../lib/dom.js';
import { createChart } from './chart.js';
import { chartPng } from './chart-png.js';
import { saveBlob } from './download.js';
import { MAX_PIXELS, PIXEL_COLORS, historyCsv, historySeries } from './history-series.js';
import { pixelValues } from '../lib/pixel.js';
import { pixelCell } from '../src/reader/geometry.js';

/** Reads in flight per pixel while its history loads. */
const READERS = 6;

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {HTMLElement} o.host the panel part the history fills
 * @param {HTMLElement} o.markers where the pixels' markers on the map go
 * @param {(x: number, y: number) => { px: number, py: number }} o.screenOf CSS point of a level-0 position
 * @param {(t: number) => void} o.onJump
 * @param {() => { product: string, band: number, t: number }} o.look
 * @param {string} o.fileStem start of exported file names
 */
export function createHistory({ store, host, markers, screenOf, onJump, look, fileStem }) {
  host.innerHTML = `<div class="hist-pixels"><ul class="hist-list" aria-label="Charted pixels"></ul>
      <button type="button" class="hist-add" aria-pressed="false" title="The next click on the map adds a pixel (or Shift+click)">Add pixel</button></div>
    <div class="hist-chart"></div><p class="chart-caption"></p>
    <div class="hist-tools">
      <label>From <input type="date" class="hist-from"></label><label>to <input type="date" class="hist-to"></label>
      <button type="button" class="hist-all">All dates</button>
      <button type="button" class="hist-csv">CSV</button><button type="button" class="hist-png">PNG</button>
    </div>`;
  const q = (/** @type {string} */ s) => findElement(host, s, HTMLElement);
  const [from, to] = [findElement(host, '.hist-from', HTMLInputElement), findElement(host, '.hist-to', HTMLInputElement)];
  const day = (/** @type {number} */ t) => store.times[t].slice(0, 10);
  for (const input of [from, to]) Object.assign(input, { min: day(0), max: day(store.times.length - 1) });
  const chart = createChart(q('.hist-chart'), {
    onPick: onJump,
    onWindow: (win) => {
      from.value = win ? new Date(win[0]).toISOString().slice(0, 10) : '';
      to.value = win ? new Date(win[1]).toISOString().slice(0, 10) : '';
    },
  });
  /** @typedef {import('./history-series.js').HeldPixel & { ctrl: AbortController, loaded: Promise<void> }} Held */
  /** @type {Held[]} */
  let pixels = [];
  let nextId = 1;
  /** @type {ReturnType<typeof setTimeout> | 0} */ let timer = 0;

  /**
   * Hold a picked pixel: alone (`add` false) or beside those held. False when four are held already.
   * @param {{ lod: number, x: number, y: number, x0: number, y0: number }} hit the level and pixel drawn there, the level-0 pixel picked
   * @param {{ add?: boolean }} [how]
   */
  function add(hit, { add: keep = false } = {}) {
    if (!keep) clear();
    if (pixels.length >= MAX_PIXELS) return false;
    const used = new Set(pixels.map((p) => p.color));
    const color = PIXEL_COLORS.find((c) => !used.has(c)) ?? PIXEL_COLORS[0];
    const ctrl = new AbortController();
    // With a history array the level-0 pixel is read, whatever level is drawn: a request or two.
    const at = store.hasHistory ? { lod: 0, x: hit.x0, y: hit.y0 } : { lod: hit.lod, x: hit.x, y: hit.y };
    /** @type {Held} */
    const p = { id: nextId++, color, ...at, x0: hit.x0, y0: hit.y0, got: new Array(store.times.length).fill(undefined), ctrl, loaded: Promise.resolve() };
    p.loaded = load(p);
    pixels.push(p);
    q('.hist-add').setAttribute('aria-pressed', 'false');
    list();
    draw();
    return true;
  }

  /**
   * Read the pixel's history: all of it at once from the store's history array (readPoint) and,
   * on a masked store, its mask copy (readPointMask) side by side; else (or for the mask of each
   * date when the history has no copy) date by date, charting as values come in (the reader caches).
   * @param {Held} p
   */
  async function load(p) {
    const { signal } = p.ctrl;
    const whole = p.lod === 0 && store.hasHistory;
    const [bands, masks] = await Promise.all([
      whole ? store.readPoint(p.y, p.x, { signal }).catch(() => null) : null,
      whole && store.hasMask && store.hasHistoryMask ? store.readPointMask(p.y, p.x, { signal }).catch(() => null) : null,
    ]);
    if (signal.aborted) return;
    /** @param {import('../src/reader/arrays.js').DataValues} v @param {number} [mask] */
    const one = (v, mask) => pixelValues(store, { data: v, mask: mask == null ? undefined : Uint8Array.of(mask), chunkWidth: 1, chunkHeight: 1 }, 0, 0);
    if (bands && (!store.hasMask || masks)) {
      bands.forEach((v, t) => (p.got[t] = one(v, masks ? masks[t] : undefined)));
      draw();
      return;
    }
    const at = pixelCell(store.levels[p.lod], p.x, p.y);
    let next = 0;
    const reader = async () => {
      while (next < p.got.length && !signal.aborted) {
        const t = next++;
        try {
          if (bands) {
            const mask = await store.getMask(p.lod, at.row, at.col, t, { signal });
            p.got[t] = one(bands[t], mask ? mask.data[at.y * mask.chunkWidth + at.x] : undefined);
          } else p.got[t] = pixelValues(store, await store.getCell(p.lod, at.row, at.col, t, { signal }), at.x, at.y);
        } catch {
          if (signal.aborted) return;
          p.got[t] = null;
        }
        if (!timer) timer = setTimeout(draw, 60);
      }
    };
    await Promise.all(Array.from({ length: READERS }, reader));
    draw();
  }

  /** @param {number} id */
  function remove(id) {
    const p = pixels.find((x) => x.id === id);
    p?.ctrl.abort();
    pixels = pixels.filter((x) => x.id !== id);
    list();
    draw();
  }

  function clear() {
    for (const p of pixels) p.ctrl.abort();
    pixels = [];
    list();
  }

  /** The chips above the chart and the markers on the map. */
  function list() {
    q('.hist-list').innerHTML = pixels
      .map((p) => `<li data-id="${p.id}"><span class="hist-swatch" style="background:${p.color}"></span>#${p.id} ${p.x0}, ${p.y0}${p.lod ? ` (level ${p.lod})` : ''}<button type="button" class="hist-remove" data-id="${p.id}" aria-label="Remove pixel ${p.id} (${p.x0}, ${p.y0}) from the chart">×</button></li>`)
      .join('');
    markers.innerHTML = pixels.map((p) => `<span class="pixel-marker" data-id="${p.id}" style="border-color:${p.color}" aria-hidden="true"></span>`).join('');
    place();
    q('.hist-add').toggleAttribute('disabled', pixels.length >= MAX_PIXELS);
  }

  /** Move the markers to their pixels (after a camera change). */
  function place() {
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (markers.querySelectorAll('.pixel-marker'))) {
      const p = pixels.find((x) => x.id === Number(el.dataset.id));
      if (!p) continue;
      const s = 2 ** p.lod;
      const c = screenOf((p.x + 0.5) * s, (p.y + 0.5) * s);
      el.style.transform = `translate(${c.px.toFixed(1)}px, ${c.py.toFixed(1)}px)`;
    }
  }

  function draw() {
    clearTimeout(timer);
    timer = 0;
    if (!pixels.length) return;
    const { title, series } = historySeries(store, pixels, look());
    chart.render({ title, times: store.times, series, t: look().t });
    const gaps = series.map((s) => s.values.filter((v) => v === null).length);
    // Dates still being read are no gaps: until the last arrives the caption counts what is in.
    const read = pixels[0].got.filter((v) => v !== undefined).length;
    const count = read < store.times.length ? `${read} of ${store.times.length} dates read` : `${gaps[0]} gap${gaps[0] === 1 ? '' : 's'}`;
    const where = pixels.length === 1 ? `${pixels[0].lod ? `level ${pixels[0].lod}` : 'level 0'} · ${count}` : `${pixels.length} pixels`;
    q('.chart-caption').textContent = `${title} · ${where}. Click the chart to jump to a date, drag across it to zoom in time.`;
  }

  async function exportCsv() {
    const held = [...pixels];
    await Promise.all(held.map((p) => p.loaded));
    const coverage = await Promise.all(held.map((p) => (store.hasCoverage ? readCoverage(p) : null)));
    saveBlob(new Blob([historyCsv(store, held, coverage)], { type: 'text/csv' }), `${fileStem}_pixels.csv`);
  }

  /** The pixel's coverage count at every timestep (null where it could not be read). @param {Held} p */
  async function readCoverage(p) {
    const at = pixelCell(store.levels[p.lod], p.x, p.y);
    return Promise.all(store.times.map((_, t) => store.getCoverage(p.lod, at.row, at.col, t).then(
      (cov) => (cov ? cov.data[at.y * cov.chunkWidth + at.x] : null),
      () => null,
    )));
  }

  host.addEventListener('click', (e) => {
    const el = /** @type {HTMLElement} */ (e.target);
    if (el.classList.contains('hist-remove')) remove(Number(el.dataset.id));
    else if (el.classList.contains('hist-add')) el.setAttribute('aria-pressed', String(el.getAttribute('aria-pressed') !== 'true'));
    else if (el.classList.contains('hist-all')) chart.setWindow(null);
    else if (el.classList.contains('hist-csv')) exportCsv();
    else if (el.classList.contains('hist-png')) chartPng(chart.element).then((blob) => saveBlob(blob, `${fileStem}_chart.png`));
  });
  for (const input of [from, to]) input.addEventListener('change', () => {
    const a = Date.parse(from.value || day(0));
    const b = Date.parse(to.value || day(store.times.length - 1)) + 864e5 - 1;
    if (a < b) chart.setWindow([a, b]);
  });

  return {
    add,
    clear,
    refresh: draw,
    place,
    /** The next click adds a pixel rather than replacing them (the Add pixel button is pressed). */
    get adding() {
      return q('.hist-add').getAttribute('aria-pressed') === 'true';
    },
    get pixels() {
      return pixels;
    },
    chart,
  };
}
