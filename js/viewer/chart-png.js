/**
 * The chart as a PNG: the SVG with its page styles written into it (an SVG drawn as an image sees
 * no page CSS), on the panel's background, rasterised at three times its CSS size.
 * @module
 */
import { context2d } from '../lib/dom.js';
import { canvasPng } from './download.js';

/** The chart's classes and the style properties they take from the page. */
const STYLED = /** @type {const} */ ({ 'chart-bg': ['stroke', 'fill'], 'chart-grid': ['stroke', 'stroke-dasharray'], 'chart-now': ['stroke'], 'chart-label': ['fill', 'font-size', 'font-family'], 'chart-gap': [], 'chart-sel': ['fill', 'fill-opacity'] });

/**
 * @param {SVGSVGElement} svg the chart on the page
 * @param {number} [scale]
 * @returns {Promise<Blob>}
 */
export async function chartPng(svg, scale = 3) {
  const box = svg.getBoundingClientRect();
  const w = Math.max(1, Math.round(box.width));
  const h = Math.max(1, Math.round(box.height));
  const copy = /** @type {SVGSVGElement} */ (svg.cloneNode(true));
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(w));
  copy.setAttribute('height', String(h));
  const rules = Object.entries(STYLED).map(([cls, props]) => {
    const el = svg.querySelector(`.${cls}`);
    if (!el) return '';
    const cs = getComputedStyle(el);
    return `.${cls}{${props.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(';')}}`;
  });
  const style = document.createElementNS('http://www.w3.org/2000/svg', 'style');
  style.textContent = rules.join('');
  copy.prepend(style);
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(copy)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = w * scale;
    canvas.height = h * scale;
    const ctx = context2d(canvas);
    ctx.fillStyle = getComputedStyle(svg).getPropertyValue('--panel').trim() || '#121824';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await canvasPng(canvas);
  } finally {
    URL.revokeObjectURL(url);
  }
}
