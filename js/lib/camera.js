/**
 * The camera: a centre in level-0 pixel coordinates (x right, y down, pixel (i, j) spans [i, i+1))
 * and a zoom in CSS pixels per level-0 pixel. Pure functions over plain objects.
 * @module
 */
import { cellRange } from '../src/reader/geometry.js';

/** @typedef {{ cx: number, cy: number, zoom: number }} Camera */
/** @typedef {{ width: number, height: number, gridRows: number, gridCols: number, chunkSize: number, transform: readonly number[] }} LevelInfo */

/** Largest zoom, in device pixels per data pixel (divided by devicePixelRatio for CSS pixels). */
export const MAX_DEVICE_ZOOM = 16;

/**
 * The view that shows the whole level-0 raster in the canvas.
 * @param {{ width: number, height: number }} level0
 * @param {number} w canvas CSS width
 * @param {number} h canvas CSS height
 * @returns {Camera}
 */
export function fitCamera(level0, w, h) {
  const zoom = Math.min(w / level0.width, h / level0.height) * 0.98;
  return { cx: level0.width / 2, cy: level0.height / 2, zoom: zoom > 0 ? zoom : 1 };
}

/**
 * Zoom limits: out to half of the fitted view, in to MAX_DEVICE_ZOOM device pixels per data pixel.
 * @param {{ width: number, height: number }} level0
 * @param {number} w
 * @param {number} h
 * @param {number} dpr
 */
export function zoomLimits(level0, w, h, dpr) {
  const fit = fitCamera(level0, w, h).zoom;
  return { min: fit / 2, max: Math.max(MAX_DEVICE_ZOOM / dpr, fit) };
}

/** @param {Camera} cam @param {{ min: number, max: number }} limits @param {{ width: number, height: number }} level0 */
export function clampCamera(cam, limits, level0) {
  const zoom = Math.min(limits.max, Math.max(limits.min, cam.zoom));
  return {
    zoom,
    cx: Math.min(level0.width, Math.max(0, cam.cx)),
    cy: Math.min(level0.height, Math.max(0, cam.cy)),
  };
}

/**
 * The level whose texels are closest to one CSS pixel (in log scale).
 * @param {number} zoom
 * @param {number} nLevels
 */
export function levelFor(zoom, nLevels) {
  let best = 0;
  let bestErr = Infinity;
  for (let k = 0; k < nLevels; k++) {
    const err = Math.abs(Math.log2(zoom * 2 ** k));
    if (err < bestErr - 1e-9) {
      best = k;
      bestErr = err;
    }
  }
  return best;
}

/**
 * Cells of level `k` that intersect the canvas.
 * @param {Camera} cam
 * @param {number} w
 * @param {number} h
 * @param {LevelInfo} level
 * @param {number} k
 * @param {{ width: number, height: number }} level0
 * @returns {{ row: number, col: number }[]}
 */
export function visibleCells(cam, w, h, level, k, level0) {
  const s = 2 ** k;
  const cs = level.chunkSize;
  const x0 = Math.max(0, cam.cx - w / 2 / cam.zoom);
  const x1 = Math.min(level0.width, cam.cx + w / 2 / cam.zoom);
  const y0 = Math.max(0, cam.cy - h / 2 / cam.zoom);
  const y1 = Math.min(level0.height, cam.cy + h / 2 / cam.zoom);
  if (x1 <= x0 || y1 <= y0) return [];
  const { c0, c1, r0, r1 } = cellRange(level, k, x0, y0, x1, y1);
  const out = [];
  for (let row = r0; row <= r1; row++) for (let col = c0; col <= c1; col++) out.push({ row, col });
  // Nearest the centre first: that is what the eye looks at while the rest loads.
  const ccol = cam.cx / s / cs;
  const crow = cam.cy / s / cs;
  out.sort((a, b) => (a.col + 0.5 - ccol) ** 2 + (a.row + 0.5 - crow) ** 2 - ((b.col + 0.5 - ccol) ** 2 + (b.row + 0.5 - crow) ** 2));
  return out;
}

/**
 * Level-0 pixel coordinates under a CSS point of the canvas.
 * @param {Camera} cam @param {number} w @param {number} h @param {number} px @param {number} py
 */
export function screenToPixel(cam, w, h, px, py) {
  return { x: cam.cx + (px - w / 2) / cam.zoom, y: cam.cy + (py - h / 2) / cam.zoom };
}

/** @param {Camera} cam @param {number} w @param {number} h @param {number} x @param {number} y */
export function pixelToScreen(cam, w, h, x, y) {
  return { px: (x - cam.cx) * cam.zoom + w / 2, py: (y - cam.cy) * cam.zoom + h / 2 };
}

/**
 * Store coordinates of a level-0 pixel position (no georeferencing: the position itself).
 * @param {readonly number[] | null} transform GDAL order [a, b, c, d, e, f]
 * @param {number} x @param {number} y
 */
export function pixelToStore(transform, x, y) {
  if (!transform) return { x, y };
  const [a, b, c, d, e, f] = transform;
  return { x: c + a * x + b * y, y: f + d * x + e * y };
}

/** @param {readonly number[] | null} transform @param {number} X @param {number} Y */
export function storeToPixel(transform, X, Y) {
  if (!transform) return { x: X, y: Y };
  const [a, b, c, d, e, f] = transform;
  const det = a * e - b * d;
  const dx = X - c;
  const dy = Y - f;
  return { x: (e * dx - b * dy) / det, y: (a * dy - d * dx) / det };
}

/** A coarse picture's pixels span at most this many device pixels: a quarter of the screen's resolution. */
export const PICTURE_PX = 4;

/**
 * The level of the coarse picture that stands in while a view's level loads: the coarsest at or
 * above `lod` whose pixels are at most PICTURE_PX device pixels on screen (`lod` itself when it
 * is already that coarse).
 * @param {number} zoom CSS px per level-0 pixel
 * @param {number} dpr device px per CSS px
 * @param {number} lod the level the view asks for
 * @param {number} coarsest index of the coarsest level
 */
export function pictureLevel(zoom, dpr, lod, coarsest) {
  let k = lod;
  while (k < coarsest && zoom * 2 ** (k + 1) * dpr <= PICTURE_PX) k++;
  return k;
}
