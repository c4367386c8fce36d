/**
 * Drawing a legend (legend-spec.js) on a 2D canvas: the bar on screen and the legend burned into
 * PNG and video exports use these, so both show the same colours and ticks.
 * @module
 */
import { positionOf, toBytes } from './legend-spec.js';
import { formatTick } from './ticks.js';

/**
 * Fill a bar of a ramp legend column by column with the colour the map draws there.
 * @param {CanvasRenderingContext2D} ctx
 * @param {import('./legend-spec.js').RampLegend} spec
 * @param {number} x @param {number} y @param {number} w @param {number} h device pixels
 */
export function paintBar(ctx, spec, x, y, w, h) {
  const [a, b] = spec.domain;
  for (let i = 0; i < w; i++) {
    const v = a + ((i + 0.5) / w) * (b - a);
    ctx.fillStyle = rgb(toBytes(spec.color(v)));
    ctx.fillRect(x + i, y, 1, h);
  }
}

/**
 * A class legend's swatch (one colour) or small ramp.
 * @param {CanvasRenderingContext2D} ctx
 * @param {{ color: import('./ramps.js').Rgb | null, ramp?: (f: number) => import('./ramps.js').Rgb }} item
 * @param {number} x @param {number} y @param {number} w @param {number} h
 */
export function paintSwatch(ctx, item, x, y, w, h) {
  if (item.color) {
    ctx.fillStyle = rgb(toBytes(item.color));
    ctx.fillRect(x, y, w, h);
    return;
  }
  const ramp = /** @type {(f: number) => import('./ramps.js').Rgb} */ (item.ramp);
  for (let i = 0; i < w; i++) {
    ctx.fillStyle = rgb(toBytes(ramp((i + 0.5) / w)));
    ctx.fillRect(x + i, y, 1, h);
  }
}

/**
 * The height drawLegend takes.
 * @param {import('./legend-spec.js').LegendSpec} spec
 * @param {number} [scale]
 */
export function legendHeight(spec, scale = 1) {
  const s = (/** @type {number} */ v) => Math.round(v * scale);
  return spec.kind === 'ramp' ? s(54) : s(22) + spec.items.length * s(18);
}

/**
 * The whole legend in a box whose top-left corner is (x, y), `w` wide; returns its height.
 * @param {CanvasRenderingContext2D} ctx
 * @param {import('./legend-spec.js').LegendSpec} spec
 * @param {number} x @param {number} y @param {number} w
 * @param {number} [scale] device pixels per CSS pixel
 */
export function drawLegend(ctx, spec, x, y, w, scale = 1) {
  const s = (/** @type {number} */ v) => Math.round(v * scale);
  const pad = s(6);
  const height = legendHeight(spec, scale);
  ctx.save();
  ctx.fillStyle = 'rgba(10, 14, 20, 0.78)';
  ctx.fillRect(x, y, w, height);
  ctx.fillStyle = '#e8ecf2';
  ctx.font = `${s(12)}px system-ui, sans-serif`;
  ctx.textBaseline = 'top';
  ctx.fillText(`${spec.title}${spec.units ? ` (${spec.units})` : ''}`, x + pad, y + pad);
  if (spec.kind === 'ramp') {
    const bx = x + pad;
    const bw = w - 2 * pad;
    const by = y + s(24);
    paintBar(ctx, spec, bx, by, bw, s(10));
    ctx.fillStyle = '#e8ecf2';
    ctx.font = `${s(10)}px system-ui, sans-serif`;
    ctx.textAlign = 'center';
    for (const v of spec.ticks) {
      const tx = bx + positionOf(spec, v) * bw;
      ctx.fillRect(Math.round(tx), by + s(10), Math.max(1, s(1)), s(3));
      ctx.fillText(formatTick(v), Math.min(x + w - s(12), Math.max(x + s(12), tx)), by + s(15));
    }
  } else {
    spec.items.forEach((item, i) => {
      const iy = y + s(24) + i * s(18);
      paintSwatch(ctx, item, x + pad, iy, s(22), s(12));
      ctx.fillStyle = '#e8ecf2';
      ctx.fillText(item.label, x + pad + s(28), iy);
    });
  }
  ctx.restore();
  return height;
}

const rgb = (/** @type {number[]} */ c) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
