/**
 * The pixel history panel's page: its markup, the chart with its time window kept in step with
 * the From and To dates, the chips of the pixels held and their markers on the map, the caption,
 * and the buttons, which it hands to the caller. It holds no pixel and reads nothing: history.js
 * says what to show.
 * @module
 */
import { findElement } from '../lib/dom.js';
import { createChart } from './chart.js';
import { MAX_PIXELS } from './history-series.js';

const MARKUP = `<div class="hist-pixels"><ul class="hist-list" aria-label="Charted pixels"></ul>
      <button type="button" class="hist-add" aria-pressed="false" title="The next click on the map adds a pixel (or Shift+click)">Add pixel</button></div>
    <div class="hist-chart"></div><p class="chart-caption"></p>
    <div class="hist-tools">
      <label>From <input type="date" class="hist-from"></label><label>to <input type="date" class="hist-to"></label>
      <button type="button" class="hist-all">All dates</button>
      <button type="button" class="hist-csv">CSV</button><button type="button" class="hist-png">PNG</button>
    </div>`;

/**
 * What the panel shows of a held pixel.
 * @typedef {Pick<import('./history-series.js').HeldPixel, 'id' | 'color' | 'lod' | 'x' | 'y' | 'x0' | 'y0'>} Shown
 */

/**
 * @param {object} o
 * @param {HTMLElement} o.host the panel part the history fills
 * @param {HTMLElement} o.markers where the pixels' markers on the map go
 * @param {readonly string[]} o.times the store's dates (ISO 8601), which bound the date inputs
 * @param {(x: number, y: number) => { px: number, py: number }} o.screenOf CSS point of a level-0 position
 * @param {(t: number) => void} o.onJump a click on the chart at timestep t
 * @param {(id: number) => void} o.onRemove a chip's remove button
 * @param {() => void} o.onCsv
 * @param {() => void} o.onPng
 */
export function createHistoryPanel({ host, markers, times, screenOf, onJump, onRemove, onCsv, onPng }) {
  host.innerHTML = MARKUP;
  const q = (/** @type {string} */ s) => findElement(host, s, HTMLElement);
  const [from, to] = [findElement(host, '.hist-from', HTMLInputElement), findElement(host, '.hist-to', HTMLInputElement)];
  const day = (/** @type {number} */ t) => times[t].slice(0, 10);
  for (const input of [from, to]) Object.assign(input, { min: day(0), max: day(times.length - 1) });
  const chart = createChart(q('.hist-chart'), { onPick: onJump, onWindow: (win) => showWindow(from, to, win) });

  host.addEventListener('click', (e) => {
    const el = /** @type {HTMLElement} */ (e.target);
    if (el.classList.contains('hist-remove')) onRemove(Number(el.dataset.id));
    else if (el.classList.contains('hist-add')) el.setAttribute('aria-pressed', String(el.getAttribute('aria-pressed') !== 'true'));
    else if (el.classList.contains('hist-all')) chart.setWindow(null);
    else if (el.classList.contains('hist-csv')) onCsv();
    else if (el.classList.contains('hist-png')) onPng();
  });
  for (const input of [from, to]) input.addEventListener('change', () => {
    const a = Date.parse(from.value || day(0));
    const b = Date.parse(to.value || day(times.length - 1)) + 864e5 - 1;
    if (a < b) chart.setWindow([a, b]);
  });

  /** Move the markers to their pixels (after a camera change). @param {readonly Shown[]} pixels */
  function place(pixels) {
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (markers.querySelectorAll('.pixel-marker'))) {
      const p = pixels.find((x) => x.id === Number(el.dataset.id));
      if (!p) continue;
      const s = 2 ** p.lod;
      const c = screenOf((p.x + 0.5) * s, (p.y + 0.5) * s);
      el.style.transform = `translate(${c.px.toFixed(1)}px, ${c.py.toFixed(1)}px)`;
    }
  }

  return {
    chart,
    /** The chips above the chart and the markers on the map, for the pixels held. @param {readonly Shown[]} pixels */
    list(pixels) {
      q('.hist-list').innerHTML = pixels.map(chipMarkup).join('');
      markers.innerHTML = pixels.map(markerMarkup).join('');
      place(pixels);
      q('.hist-add').toggleAttribute('disabled', pixels.length >= MAX_PIXELS);
    },
    place,
    /** @param {string} text */
    caption(text) {
      q('.chart-caption').textContent = text;
    },
    /** The next click adds a pixel rather than replacing them (the Add pixel button is pressed). */
    get adding() {
      return q('.hist-add').getAttribute('aria-pressed') === 'true';
    },
    /** Release the Add pixel button (a pixel was added). */
    added() {
      q('.hist-add').setAttribute('aria-pressed', 'false');
    },
  };
}

/**
 * The chart's time window in the date inputs (empty for all dates).
 * @param {HTMLInputElement} from @param {HTMLInputElement} to @param {[number, number] | null} win
 */
function showWindow(from, to, win) {
  from.value = win ? new Date(win[0]).toISOString().slice(0, 10) : '';
  to.value = win ? new Date(win[1]).toISOString().slice(0, 10) : '';
}

/** A held pixel's chip: its colour, number, level-0 pixel (and level) and remove button. @param {Shown} p */
function chipMarkup(p) {
  const level = p.lod ? ` (level ${p.lod})` : '';
  const label = `Remove pixel ${p.id} (${p.x0}, ${p.y0}) from the chart`;
  const remove = `<button type="button" class="hist-remove" data-id="${p.id}" aria-label="${label}">×</button>`;
  const swatch = `<span class="hist-swatch" style="background:${p.color}"></span>`;
  return `<li data-id="${p.id}">${swatch}#${p.id} ${p.x0}, ${p.y0}${level}${remove}</li>`;
}

/** A held pixel's marker on the map, in its colour. @param {Shown} p */
function markerMarkup(p) {
  return `<span class="pixel-marker" data-id="${p.id}" style="border-color:${p.color}" aria-hidden="true"></span>`;
}
