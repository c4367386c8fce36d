/**
 * The view as a picture to keep: the map canvas with the date (or both dates of a split view),
 * the legend, the scale bar and the store's name drawn over it, on a 2D canvas. The PNG export and
 * every frame of a time-lapse video are made here.
 * @module
 */
import { context2d } from '../lib/dom.js';

/**
 * @typedef {object} CompositeParts
 * @property {HTMLCanvasElement} map the WebGL canvas (its drawing buffer is preserved)
 * @property {string} date the date on screen (date A in a split view)
 * @property {{ date: string, splitPx: number } | null} compare date B and the divider (CSS px)
 * @property {{ draw: (ctx: CanvasRenderingContext2D, x: number, y: number, w: number, scale?: number) => number, height: (scale: number) => number }} legend
 * @property {{ draw: (ctx: CanvasRenderingContext2D, x: number, y: number, scale?: number) => number }} scale
 * @property {string} name the store's name
 */

/**
 * Draw the parts onto `out` (sized to the map canvas, rounded down to even sizes for video encoders).
 * @param {HTMLCanvasElement} out
 * @param {CompositeParts} parts
 */
export function compose(out, { map, date, compare, legend, scale, name }) {
  out.width = map.width - (map.width % 2);
  out.height = map.height - (map.height % 2);
  const k = map.width / Math.max(1, map.clientWidth);
  const ctx = context2d(out);
  ctx.drawImage(map, 0, 0);
  const pad = Math.round(8 * k);
  label(ctx, compare ? `A ${date}` : date, pad, pad, k, 'left');
  if (compare) {
    const x = Math.round(compare.splitPx * k);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(x - Math.round(k), 0, Math.max(2, Math.round(2 * k)), out.height);
    label(ctx, `B ${compare.date}`, out.width - pad, pad, k, 'right');
  }
  const lw = Math.round(250 * k);
  const lh = legend.height(k);
  const ly = out.height - pad - lh;
  legend.draw(ctx, pad, ly, lw, k);
  scale.draw(ctx, pad, ly - Math.round(36 * k), k);
  ctx.save();
  ctx.font = `${Math.round(11 * k)}px system-ui, sans-serif`;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'bottom';
  ctx.fillStyle = 'rgba(232, 236, 242, 0.85)';
  ctx.fillText(`${name} · chronozarr`, out.width - pad, out.height - pad);
  ctx.restore();
}

/**
 * A date on a dark box.
 * @param {CanvasRenderingContext2D} ctx @param {string} text @param {number} x @param {number} y
 * @param {number} k device pixels per CSS pixel @param {'left' | 'right'} align which side of the box x is
 */
function label(ctx, text, x, y, k, align) {
  ctx.save();
  ctx.font = `600 ${Math.round(16 * k)}px system-ui, sans-serif`;
  const w = ctx.measureText(text).width + 16 * k;
  const h = Math.round(26 * k);
  const x0 = align === 'right' ? x - w : x;
  ctx.fillStyle = 'rgba(10, 14, 20, 0.78)';
  ctx.fillRect(x0, y, w, h);
  ctx.fillStyle = '#ffffff';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, x0 + 8 * k, y + h / 2);
  ctx.restore();
}
