/**
 * A small SVG line chart of one pixel over the time axis: x by date (so gaps in the series show as
 * wider spacing), invalid dates as breaks in the line, a marker on the current step, and a click
 * that reports the nearest date.
 * @module
 */
import { escapeHtml as escape } from './html.js';

const NS = 'http://www.w3.org/2000/svg';

/**
 * @param {HTMLElement} host
 * @param {{ onPick: (t: number) => void }} o
 */
export function createChart(host, { onPick }) {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('class', 'chart');
  svg.setAttribute('role', 'img');
  svg.setAttribute('viewBox', '0 0 300 140');
  svg.setAttribute('preserveAspectRatio', 'none');
  host.append(svg);
  /** @type {number[]} */
  let ms = [];
  let pad = { l: 38, r: 6, t: 8, b: 18 };
  let xs = [];

  svg.addEventListener('click', (event) => {
    if (!xs.length) return;
    const box = svg.getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * 300;
    let best = 0;
    for (let i = 1; i < xs.length; i++) if (Math.abs(xs[i] - x) < Math.abs(xs[best] - x)) best = i;
    onPick(best);
  });

  /**
   * @param {{ title: string, times: string[], series: { label: string, color: string, values: (number | null | undefined)[] }[], t: number }} d
   */
  function render({ title, times, series, t }) {
    ms = times.map((s) => Date.parse(s));
    const t0 = ms[0];
    const t1 = ms[ms.length - 1];
    const w = 300 - pad.l - pad.r;
    const h = 140 - pad.t - pad.b;
    xs = ms.map((m) => pad.l + (t1 > t0 ? ((m - t0) / (t1 - t0)) * w : w / 2));
    const all = series.flatMap((s) => s.values.filter((v) => v != null && Number.isFinite(v)));
    let lo = all.length ? Math.min(...all) : 0;
    let hi = all.length ? Math.max(...all) : 1;
    if (hi === lo) {
      hi += Math.abs(hi) * 0.1 || 1;
      lo -= Math.abs(lo) * 0.1 || 1;
    }
    const y = (v) => pad.t + (1 - (v - lo) / (hi - lo)) * h;
    const parts = [`<title>${escape(title)}</title>`];
    parts.push(`<rect x="${pad.l}" y="${pad.t}" width="${w}" height="${h}" class="chart-bg"/>`);
    for (const v of [lo, (lo + hi) / 2, hi]) {
      parts.push(`<text x="${pad.l - 3}" y="${y(v) + 3}" class="chart-label" text-anchor="end">${fmt(v)}</text>`);
    }
    const y0 = new Date(t0).getUTCFullYear();
    const y1 = new Date(t1).getUTCFullYear();
    const every = Math.max(1, Math.ceil((y1 - y0 + 1) / 6));
    for (let yr = y0; yr <= y1; yr += every) {
      const m = Date.UTC(yr, 0, 1);
      if (m < t0 || m > t1) continue;
      const x = pad.l + ((m - t0) / (t1 - t0)) * w;
      parts.push(`<line x1="${x}" x2="${x}" y1="${pad.t}" y2="${pad.t + h}" class="chart-grid"/><text x="${x}" y="${136}" class="chart-label" text-anchor="middle">${yr}</text>`);
    }
    if (times[t] != null) parts.push(`<line x1="${xs[t]}" x2="${xs[t]}" y1="${pad.t}" y2="${pad.t + h}" class="chart-now"/>`);
    for (const s of series) {
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
      parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.4" vector-effect="non-scaling-stroke" data-label="${escape(s.label)}"/>`);
      s.values.forEach((v, i) => {
        if (v != null && Number.isFinite(v)) parts.push(`<circle cx="${xs[i].toFixed(2)}" cy="${y(v).toFixed(2)}" r="1.3" fill="${s.color}"/>`);
      });
    }
    svg.innerHTML = parts.join('');
    svg.setAttribute('aria-label', title);
  }

  return { render, element: svg };
}

function fmt(v) {
  const a = Math.abs(v);
  return a >= 1000 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
}
