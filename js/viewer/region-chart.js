/**
 * The region chart: per region (its colour) and band (its dash), the statistic picked (mean, min
 * or max) at every date, x by date like the pixel chart; each point as opaque as the share of the
 * region's pixels valid that date, and that share as a thin line on the right axis (0 to 100 %), so
 * a date with few valid pixels is visibly weak. Hovering (or the arrow keys on the focused chart)
 * reads out a date, a click (or Enter) jumps to it.
 * @module
 */
import { escapeHtml as esc } from '../lib/html.js';
import { formatTick } from '../lib/ticks.js';
import { nearest, timeAxis } from './chart.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 300;
const H = 150; // chart.js's timeAxis puts its labels at the bottom of this height
const DASHES = ['', '5 2', '1.5 1.5'];
/** CSS pixels a press may move and still be a click. */
const CLICK_PX = 6;

/** @typedef {'mean' | 'min' | 'max'} Stat */
/**
 * @typedef {object} RegionChartData
 * @property {string} title
 * @property {readonly string[]} times
 * @property {number} t the date on the map
 * @property {Stat} stat
 * @property {{ id: number, color: string, series: import('./region-shapes.js').RegionSeries | null }[]} regions
 */

/** @param {RegionChartData} d @returns {[number, number]} */
function valueRange(d) {
  const all = d.regions.flatMap((r) => (r.series ? r.series[d.stat].flat().filter((v) => v != null) : []));
  let [lo, hi] = all.length ? [Math.min(.../** @type {number[]} */ (all)), Math.max(.../** @type {number[]} */ (all))] : [0, 1];
  if (hi === lo) [lo, hi] = [lo - (Math.abs(lo) * 0.1 || 1), hi + (Math.abs(hi) * 0.1 || 1)];
  return [lo, hi];
}

/**
 * The chart's SVG content, and the x of each date (for hover and clicks).
 * @param {RegionChartData} d
 * @returns {{ html: string, xs: number[] }}
 */
export function regionChartMarkup(d) {
  const ms = d.times.map((s) => Date.parse(s));
  const pad = { l: 38, r: 24, t: d.regions.length > 1 ? 18 : 8, b: 24 };
  const [a, b] = [ms[0], ms[ms.length - 1]];
  const xOf = (/** @type {number} */ m) => pad.l + (b > a ? ((m - a) / (b - a)) * (W - pad.l - pad.r) : (W - pad.l - pad.r) / 2);
  const xs = ms.map(xOf);
  const h = H - pad.t - pad.b;
  const [lo, hi] = valueRange(d);
  const y = (/** @type {number} */ v) => pad.t + (1 - (v - lo) / (hi - lo)) * h;
  const share = (/** @type {number} */ f) => pad.t + (1 - f) * h;
  const out = [`<title>${esc(d.title)}</title>`, `<rect x="${pad.l}" y="${pad.t}" width="${W - pad.l - pad.r}" height="${h}" class="chart-bg"/>`];
  for (const v of [lo, (lo + hi) / 2, hi]) out.push(`<text x="${pad.l - 3}" y="${y(v) + 3}" class="chart-label" text-anchor="end">${formatTick(v, 3)}</text>`);
  for (const f of [0, 1]) out.push(`<text x="${W - 1}" y="${share(f) + 3}" class="chart-label" text-anchor="end">${f * 100}%</text>`);
  out.push(...timeAxis([a, b], xOf, pad.t, pad.t + h));
  if (d.times[d.t] != null) out.push(`<line x1="${xs[d.t]}" x2="${xs[d.t]}" y1="${pad.t}" y2="${pad.t + h}" class="chart-now"/>`);
  for (const r of d.regions) {
    if (!r.series) continue;
    const s = r.series;
    const arrived = (/** @type {number} */ t) => s.dates == null || t < s.dates; // a series filling in: later dates not read yet
    s.bands.forEach((band, k) => {
      const dash = DASHES[k % DASHES.length] ? ` stroke-dasharray="${DASHES[k % DASHES.length]}"` : '';
      out.push(`<path class="region-line" data-region="${r.id}" data-band="${esc(band)}" d="${path(s[d.stat].map((v) => v?.[k] ?? null), xs, y)}" fill="none" stroke="${r.color}"${dash} stroke-width="1.4" vector-effect="non-scaling-stroke"/>`);
      if (k === 0) out.push(`<path class="region-valid" d="${path(s.validPixels.map((v, t) => (arrived(t) ? v[0] / Math.max(1, s.regionPixels) : null)), xs, share)}" fill="none" stroke="${r.color}" stroke-opacity="0.5" stroke-width="0.8" stroke-dasharray="1 2" vector-effect="non-scaling-stroke"/>`);
      s[d.stat].forEach((v, t) => {
        const value = v[k];
        const f = s.validPixels[t][k] / Math.max(1, s.regionPixels);
        if (value != null) out.push(`<circle class="region-point" data-t="${t}" cx="${xs[t].toFixed(2)}" cy="${y(value).toFixed(2)}" r="1.5" fill="${r.color}" fill-opacity="${Math.max(0.12, f).toFixed(3)}"/>`);
      });
    });
  }
  if (d.regions.length > 1) out.push(keyMarkup(d.regions));
  out.push(`<line class="region-hover" x1="0" x2="0" y1="${pad.t}" y2="${pad.t + h}" visibility="hidden"/>`);
  return { html: out.join(''), xs };
}

/** An SVG path through the values, broken where one is null. @param {(number | null)[]} values @param {number[]} xs @param {(v: number) => number} y */
function path(values, xs, y) {
  let d = '';
  let open = false;
  values.forEach((v, i) => {
    if (v == null || !Number.isFinite(v)) return void (open = false);
    d += `${open ? 'L' : 'M'}${xs[i].toFixed(2)},${y(v).toFixed(2)}`;
    open = true;
  });
  return d;
}

/** @param {RegionChartData['regions']} regions */
function keyMarkup(regions) {
  return regions.map((r, i) => `<rect x="${38 + i * 40}" y="4" width="8" height="8" fill="${r.color}"/><text x="${49 + i * 40}" y="11" class="chart-label">#${r.id}</text>`).join('');
}

/**
 * The hover readout of date t: per region and band, the statistics and the valid pixels.
 * @param {RegionChartData} d @param {number} t
 */
export function readoutText(d, t) {
  const f = (/** @type {number | null} */ v) => (v == null ? '–' : formatTick(v, 4));
  const parts = d.regions.flatMap((r) => {
    const s = r.series;
    if (!s || (s.dates != null && t >= s.dates)) return [`#${r.id} reading…`];
    return s.bands.map((band, k) => `#${r.id} ${band}: mean ${f(s.mean[t][k])} · std ${f(s.std[t][k])} · min ${f(s.min[t][k])} · max ${f(s.max[t][k])} · ${s.validPixels[t][k]} of ${s.regionPixels} valid pixels`);
  });
  return `${d.times[t].slice(0, 10)}: ${parts.join('; ')}`;
}

/**
 * The chart's SVG in `host`, with its pointer handling: hover names the nearest date, a press that
 * does not move picks it. Works with a mouse, a pen or a finger (pointer events).
 * @param {HTMLElement} host
 * @param {{ onPick: (t: number) => void, onHover: (t: number | null) => void }} o
 */
export function createRegionChart(host, { onPick, onHover }) {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('class', 'chart region-chart');
  svg.setAttribute('role', 'img');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('tabindex', '0');
  host.append(svg);
  /** @type {number[]} */
  let xs = [];
  let shown = -1; // the date read out
  /** @type {{ x: number } | null} */
  let press = null;
  const at = (/** @type {PointerEvent} */ e) => {
    const box = svg.getBoundingClientRect();
    return nearest(xs, ((e.clientX - box.left) / Math.max(1, box.width)) * W);
  };
  const hover = (/** @type {number} */ t) => {
    const line = svg.querySelector('.region-hover');
    if (line && t >= 0) ['x1', 'x2'].forEach((k) => line.setAttribute(k, String(xs[t])));
    line?.setAttribute('visibility', t >= 0 ? 'visible' : 'hidden');
    shown = t;
    onHover(t >= 0 ? t : null);
  };
  // With the focus on the chart, the arrows read out the dates one by one and Enter jumps to it.
  svg.addEventListener('keydown', (e) => {
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowDown: -1, ArrowUp: 1 }[e.key];
    if (step) hover(Math.max(0, Math.min(xs.length - 1, (shown < 0 ? 0 : shown + step))));
    else if (e.key === 'Enter' && shown >= 0) onPick(shown);
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  svg.addEventListener('blur', () => hover(-1));
  svg.addEventListener('pointerdown', (e) => (press = { x: e.clientX }));
  svg.addEventListener('pointermove', (e) => hover(at(e)));
  svg.addEventListener('pointerleave', () => hover(-1));
  svg.addEventListener('pointerup', (e) => {
    const t = at(e);
    if (press && Math.abs(e.clientX - press.x) <= CLICK_PX && t >= 0) onPick(t);
    press = null;
  });
  return {
    element: svg,
    /** @param {RegionChartData} d */
    render(d) {
      const m = regionChartMarkup(d);
      xs = m.xs;
      svg.innerHTML = m.html;
      svg.setAttribute('aria-label', d.title);
    },
    hover,
  };
}
