/**
 * A small SVG line chart of pixels over the time axis: x by date (so gaps in the series show as
 * wider spacing), invalid dates as breaks in the line and as ticks under the plot, a marker on the
 * current step, a key when there is more than one series, and a time window: drag across the chart
 * to zoom to a range of dates (`setWindow` sets it from elsewhere), a click reports the nearest date.
 * @module
 */
import { escapeHtml as escape } from '../lib/html.js';
import { formatTick } from '../lib/ticks.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 300;
const H = 150;
/** CSS pixels a press must move to be a zoom drag rather than a click. */
const DRAG_PX = 6;
let charts = 0;

/**
 * @typedef {object} Series
 * @property {string} label
 * @property {string} color
 * @property {string} [dash] SVG stroke-dasharray
 * @property {(number | null | undefined)[]} values one per timestep: null invalid, undefined not read yet
 */

/** @typedef {{ title: string, times: readonly string[], series: Series[], t: number }} ChartData a chart's title, dates, series and current step */

/** The chart's SVG element, in `host`. @param {HTMLElement} host */
function chartElement(host) {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('class', 'chart');
  svg.setAttribute('role', 'img');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  host.append(svg);
  return svg;
}

/** A client x as an x of the chart's viewBox. @param {SVGSVGElement} svg @param {number} clientX */
function svgX(svg, clientX) {
  const box = svg.getBoundingClientRect();
  return ((clientX - box.left) / Math.max(1, box.width)) * W;
}

/** The zoom drag's selection from x0 to x1 (viewBox x). @param {SVGSVGElement} svg @param {number} x0 @param {number} x1 */
function showSelection(svg, x0, x1) {
  const sel = svg.querySelector('.chart-sel');
  if (!sel) return;
  sel.setAttribute('x', String(Math.min(x0, x1)));
  sel.setAttribute('width', String(Math.abs(x1 - x0)));
}

/**
 * The index of the x nearest `x` (the first of equals), skipping nulls; -1 when all are null.
 * @param {(number | null)[]} xs @param {number} x
 */
export function nearest(xs, x) {
  let best = -1;
  xs.forEach((xi, i) => {
    if (xi != null && (best < 0 || Math.abs(xi - x) < Math.abs(/** @type {number} */ (xs[best]) - x))) best = i;
  });
  return best;
}

/**
 * The values' axis: lowest and highest valid value of the dates shown, widened by a tenth (or by 1)
 * when they are equal; 0 to 1 when there is none.
 * @param {Series[]} series @param {(i: number) => boolean} shown
 * @returns {[number, number]}
 */
function valueRange(series, shown) {
  const all = series.flatMap((s) => s.values.filter((v, i) => v != null && Number.isFinite(v) && shown(i)));
  let lo = all.length ? Math.min(.../** @type {number[]} */ (all)) : 0;
  let hi = all.length ? Math.max(.../** @type {number[]} */ (all)) : 1;
  if (hi === lo) {
    hi += Math.abs(hi) * 0.1 || 1;
    lo -= Math.abs(lo) * 0.1 || 1;
  }
  return [lo, hi];
}

/**
 * @param {HTMLElement} host
 * @param {{ onPick: (t: number) => void, onWindow?: (win: [number, number] | null) => void }} o
 */
export function createChart(host, { onPick, onWindow = () => {} }) {
  const svg = chartElement(host);
  const clipId = `cz-chart-clip-${++charts}`;
  /** @type {number[]} */
  let ms = [];
  /** @type {[number, number] | null} the dates shown (ms), null: all */
  let win = null;
  /** @type {ChartData | null} what was drawn last, drawn again when the window changes */
  let last = null;
  let pad = { l: 38, r: 6, t: 8, b: 24 };

  const span = () => /** @type {[number, number]} */ (win ? win : [ms[0], ms[ms.length - 1]]);
  const xOf = (/** @type {number} */ m) => {
    const [a, b] = span();
    return pad.l + (b > a ? ((m - a) / (b - a)) * (W - pad.l - pad.r) : (W - pad.l - pad.r) / 2);
  };
  const msAt = (/** @type {number} */ x) => {
    const [a, b] = span();
    return a + ((x - pad.l) / (W - pad.l - pad.r)) * (b - a);
  };

  attachBrush(svg, {
    toX: (clientX) => svgX(svg, clientX),
    pick: (x) => {
      const best = nearest(ms.map((m) => (inWindow(m) ? xOf(m) : null)), x);
      if (best >= 0) onPick(best);
    },
    zoom: (x0, x1) => setWindow([msAt(Math.min(x0, x1)), msAt(Math.max(x0, x1))]),
    show: (x0, x1) => showSelection(svg, x0, x1),
  });

  const inWindow = (/** @type {number} */ m) => !win || (m >= win[0] && m <= win[1]);

  /** @param {[number, number] | null} next dates in ms, or null for the whole series */
  function setWindow(next) {
    win = next && next[1] > next[0] ? next : null;
    if (last) render(last);
    onWindow(win);
  }

  /**
   * @param {ChartData} d
   */
  function render(d) {
    last = d;
    ms = d.times.map((s) => Date.parse(s));
    pad = { l: 38, r: 6, t: d.series.length > 1 ? 20 : 8, b: 24 };
    const h = H - pad.t - pad.b;
    const shown = (/** @type {number} */ i) => inWindow(ms[i]);
    const [lo, hi] = valueRange(d.series, shown);
    const y = (/** @type {number} */ v) => pad.t + (1 - (v - lo) / (hi - lo)) * h;
    const parts = [`<title>${escape(d.title)}</title>`, `<defs><clipPath id="${clipId}"><rect x="${pad.l}" y="0" width="${W - pad.l - pad.r}" height="${H}"/></clipPath></defs>`];
    parts.push(`<rect x="${pad.l}" y="${pad.t}" width="${W - pad.l - pad.r}" height="${h}" class="chart-bg"/>`);
    for (const v of [lo, (lo + hi) / 2, hi]) parts.push(`<text x="${pad.l - 3}" y="${y(v) + 3}" class="chart-label" text-anchor="end">${fmt(v)}</text>`);
    parts.push(...timeAxis(span(), xOf, pad.t, pad.t + h));
    const body = [];
    if (d.times[d.t] != null && shown(d.t)) body.push(`<line x1="${xOf(ms[d.t])}" x2="${xOf(ms[d.t])}" y1="${pad.t}" y2="${pad.t + h}" class="chart-now"/>`);
    const xs = ms.map(xOf);
    d.series.forEach((s, k) => body.push(...seriesMarkup(s, k, xs, y, pad.t + h, shown)));
    parts.push(`<g clip-path="url(#${clipId})">${body.join('')}</g>`);
    if (d.series.length > 1) parts.push(keyMarkup(d.series));
    parts.push(`<rect class="chart-sel" x="0" y="${pad.t}" width="0" height="${h}"/>`);
    svg.innerHTML = parts.join('');
    svg.setAttribute('aria-label', d.title);
    svg.dataset.window = win ? win.map((m) => new Date(m).toISOString()).join('/') : '';
  }

  return {
    render,
    setWindow,
    get window() {
      return win;
    },
    element: svg,
  };
}

/**
 * Year (or month) labels and grid lines across the shown dates (the region chart's too).
 * @param {[number, number]} span
 * @param {(m: number) => number} xOf
 * @param {number} top @param {number} bottom
 */
export function timeAxis([a, b], xOf, top, bottom) {
  const out = [];
  const years = (b - a) / (365.25 * 864e5);
  const d0 = new Date(a);
  const monthly = years < 2;
  const step = monthly ? Math.max(1, Math.ceil((years * 12) / 6)) : Math.max(1, Math.ceil(years / 6));
  let m = monthly ? Date.UTC(d0.getUTCFullYear(), d0.getUTCMonth(), 1) : Date.UTC(d0.getUTCFullYear(), 0, 1);
  for (let i = 0; i < 400 && m <= b; i++) {
    if (m >= a) {
      const x = xOf(m);
      const d = new Date(m);
      const label = monthly ? `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}` : String(d.getUTCFullYear());
      out.push(`<line x1="${x}" x2="${x}" y1="${top}" y2="${bottom}" class="chart-grid"/><text x="${x}" y="${H - 3}" class="chart-label" text-anchor="middle">${label}</text>`);
    }
    const d = new Date(m);
    m = monthly ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + step, 1) : Date.UTC(d.getUTCFullYear() + step, 0, 1);
  }
  return out;
}

/**
 * A series' line (broken at invalid dates), its points, and a tick under the plot at each invalid date.
 * @param {Series} s @param {number} k
 * @param {number[]} xs x of each timestep @param {(v: number) => number} y
 * @param {number} bottom @param {(i: number) => boolean} shown
 */
function seriesMarkup(s, k, xs, y, bottom, shown) {
  const out = [];
  let d = '';
  let open = false;
  s.values.forEach((v, i) => {
    if (v == null || !Number.isFinite(v)) {
      open = false;
      return;
    }
    d += `${open ? 'L' : 'M'}${xs[i].toFixed(2)},${y(v).toFixed(2)}`;
    open = true;
  });
  const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
  out.push(`<path d="${d}" fill="none" stroke="${s.color}"${dash} stroke-width="1.4" vector-effect="non-scaling-stroke" data-label="${escape(s.label)}"/>`);
  s.values.forEach((v, i) => {
    if (!shown(i)) return;
    const x = xs[i].toFixed(2);
    if (v != null && Number.isFinite(v)) out.push(`<circle cx="${x}" cy="${y(v).toFixed(2)}" r="1.3" fill="${s.color}"/>`);
    // An invalid date: a tick under the plot in the series' colour, one row per series.
    else if (v === null) out.push(`<line class="chart-gap" data-t="${i}" x1="${x}" x2="${x}" y1="${bottom + 1 + k * 2}" y2="${bottom + 3 + k * 2}" stroke="${s.color}"/>`);
  });
  return out;
}

/** The key above the plot: one label per series in its colour. @param {Series[]} series */
function keyMarkup(series) {
  let x = 38;
  return series
    .map((s) => {
      const label = `<line x1="${x}" x2="${x + 10}" y1="8" y2="8" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/><text x="${x + 13}" y="11" class="chart-label">${escape(s.label)}</text>`;
      x += 20 + s.label.length * 5.2;
      return label;
    })
    .join('');
}

/**
 * Pointer handling: a press that moves more than DRAG_PX selects a range to zoom to, else it is a click.
 * @param {SVGSVGElement} svg
 * @param {{ toX: (clientX: number) => number, pick: (x: number) => void, zoom: (x0: number, x1: number) => void, show: (x0: number, x1: number) => void }} o
 */
function attachBrush(svg, { toX, pick, zoom, show }) {
  /** @type {{ x: number, cx: number, id: number } | null} */
  let press = null;
  svg.addEventListener('pointerdown', (e) => {
    press = { x: toX(e.clientX), cx: e.clientX, id: e.pointerId };
    svg.setPointerCapture(e.pointerId);
  });
  svg.addEventListener('pointermove', (e) => {
    if (press && Math.abs(e.clientX - press.cx) > DRAG_PX) show(press.x, toX(e.clientX));
  });
  svg.addEventListener('pointerup', (e) => {
    if (!press) return;
    const p = press;
    press = null;
    show(0, 0);
    if (Math.abs(e.clientX - p.cx) > DRAG_PX) zoom(p.x, toX(e.clientX));
    else pick(p.x);
  });
  svg.addEventListener('pointercancel', () => {
    press = null;
    show(0, 0);
  });
}

const fmt = (/** @type {number} */ v) => formatTick(v, 3);
