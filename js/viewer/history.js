/**
 * The pixel history: up to four pixels held at once (each its colour, on the chart and as a marker
 * on the map, each removable), their values at every date read as the load plan says
 * (history-reads.js: from the store's history array when it has one, the whole series in a request
 * or two and its validity from the history's mask copy beside it), drawn on the panel's chart
 * (history-panel.js) with the series and caption of history-series.js, and the CSV and PNG exports.
 * @module
 */
import { pixelHistoryPlan } from '../lib/load-plan.js';
import { chartPng } from './chart-png.js';
import { saveBlob } from './download.js';
import { createHistoryPanel } from './history-panel.js';
import { readCoverage, readHistory } from './history-reads.js';
import { MAX_PIXELS, PIXEL_COLORS, historyCaption, historyCsv, historySeries } from './history-series.js';

/**
 * A pixel held, with what stops its reads and what says they are done.
 * @typedef {import('./history-series.js').HeldPixel & { ctrl: AbortController, loaded: Promise<void> }} Held
 */

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
  const onCsv = () => saveCsv(store, [...pixels], fileStem);
  const onPng = () => chartPng(chart.element).then((blob) => saveBlob(blob, `${fileStem}_chart.png`));
  const actions = { onJump, onRemove: remove, onCsv, onPng };
  const panel = createHistoryPanel({ host, markers, times: store.times, screenOf, ...actions });
  const { chart } = panel;
  /** @type {Held[]} */
  let pixels = [];
  let nextId = 1;
  /** @type {ReturnType<typeof setTimeout> | 0} */ let timer = 0;

  /**
   * Hold a picked pixel: alone (`add` false) or beside those held. False when four are held already.
   * @param {{ lod: number, x: number, y: number, x0: number, y0: number }} hit
   *   the level and pixel drawn there, the level-0 pixel picked
   * @param {{ add?: boolean }} [how]
   */
  function add(hit, { add: keep = false } = {}) {
    if (!keep) clear();
    if (pixels.length >= MAX_PIXELS) return false;
    const plan = pixelHistoryPlan(store, hit);
    const p = heldPixel(nextId++, nextColor(pixels), plan, hit, store.times.length);
    p.loaded = readHistory(store, p, plan, p.ctrl.signal, drawSoon).then((read) => {
      if (read) draw();
    });
    pixels.push(p);
    panel.added();
    panel.list(pixels);
    draw();
    return true;
  }

  /** @param {number} id */
  function remove(id) {
    const p = pixels.find((x) => x.id === id);
    p?.ctrl.abort();
    pixels = pixels.filter((x) => x.id !== id);
    panel.list(pixels);
    draw();
  }

  function clear() {
    for (const p of pixels) p.ctrl.abort();
    pixels = [];
    panel.list(pixels);
  }

  /** Draw within 60 ms, once for all the values that come in meanwhile. */
  function drawSoon() {
    if (!timer) timer = setTimeout(draw, 60);
  }

  function draw() {
    clearTimeout(timer);
    timer = 0;
    if (!pixels.length) return;
    const charted = historySeries(store, pixels, look());
    chart.render({ title: charted.title, times: store.times, series: charted.series, t: look().t });
    panel.caption(historyCaption(store.times.length, pixels, charted));
  }

  return {
    add,
    clear,
    refresh: draw,
    /** Move the markers to their pixels (after a camera change). */
    place: () => panel.place(pixels),
    /** The next click adds a pixel rather than replacing them (the Add pixel button is pressed). */
    get adding() {
      return panel.adding;
    },
    get pixels() {
      return pixels;
    },
    chart,
  };
}

/** The first colour no held pixel has. @param {readonly Held[]} pixels */
function nextColor(pixels) {
  const used = new Set(pixels.map((p) => p.color));
  return PIXEL_COLORS.find((c) => !used.has(c)) ?? PIXEL_COLORS[0];
}

/**
 * A pixel held, read where the plan says, no date read yet.
 * @param {number} id @param {string} color @param {{ lod: number, x: number, y: number }} at the pixel read
 * @param {{ x0: number, y0: number }} hit the level-0 pixel picked @param {number} nTime
 * @returns {Held}
 */
function heldPixel(id, color, { lod, x, y }, { x0, y0 }, nTime) {
  const got = new Array(nTime).fill(undefined);
  return { id, color, lod, x, y, x0, y0, got, ctrl: new AbortController(), loaded: Promise.resolve() };
}

/**
 * Save the held pixels' values as CSV once their reads are done, with their coverage when the
 * store has it.
 * @param {import('../lib/typedefs.js').Store} store @param {Held[]} held @param {string} fileStem
 */
async function saveCsv(store, held, fileStem) {
  await Promise.all(held.map((p) => p.loaded));
  const coverage = await Promise.all(held.map((p) => (store.hasCoverage ? readCoverage(store, p) : null)));
  saveBlob(new Blob([historyCsv(store, held, coverage)], { type: 'text/csv' }), `${fileStem}_pixels.csv`);
}
