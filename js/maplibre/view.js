/**
 * The part of a store a MapLibre map shows, in the terms the viewer's scene works in: a box of
 * level-0 pixels (as a camera centred on it at zoom 1, with the box as canvas size) and the
 * pyramid level its zoom asks for.
 * @module
 */
/** Screen points sampled per canvas side: the box is the hull of their store positions. */
const SAMPLES = 5;

/**
 * The level for a level-0 texel `p` CSS pixels wide: floor(log2(1 / p) + lodBias), within the
 * pyramid. Bias 0.5 takes the level whose texels are nearest one CSS pixel, 0 the coarsest whose
 * texels are no larger than one (the spec's reader rule); below 0, finer levels.
 * @param {number} p @param {number} nLevels @param {number} lodBias
 */
export function levelForTexel(p, nLevels, lodBias) {
  const k = Math.floor(Math.log2(1 / p) + lodBias);
  return Math.max(0, Math.min(nLevels - 1, Number.isFinite(k) ? k : 0));
}

/**
 * @param {{ unproject: (p: [number, number]) => { lng: number, lat: number }, getCanvas: () => HTMLCanvasElement, getZoom: () => number }} map
 * @param {{ toPixel: (lon: number, lat: number) => { x: number, y: number }, texelSize: () => number }} place
 * @param {number} nLevels
 * @param {number} texel0 side of a level-0 texel in mercator units (place.texelSize())
 * @param {number} lodBias see levelForTexel
 */
export function mapView(map, place, nLevels, texel0, lodBias) {
  const canvas = map.getCanvas();
  const w = Math.max(1, canvas.clientWidth);
  const h = Math.max(1, canvas.clientHeight);
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  // A rotated or pitched map, or a UTM grid turned against the meridians, makes the box larger
  // than the canvas: cells in its corners load too, which costs data, never a missing pixel.
  for (let i = 0; i < SAMPLES; i++) {
    for (let j = 0; j < SAMPLES; j++) {
      const ll = map.unproject([(w * i) / (SAMPLES - 1), (h * j) / (SAMPLES - 1)]);
      const p = place.toPixel(ll.lng, ll.lat);
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) continue;
      x0 = Math.min(x0, p.x);
      y0 = Math.min(y0, p.y);
      x1 = Math.max(x1, p.x);
      y1 = Math.max(y1, p.y);
    }
  }
  // One level-0 pixel of margin: the curved edges between samples bulge by less than that.
  x0 -= 1;
  y0 -= 1;
  x1 += 1;
  y1 += 1;
  const cssPerTexel = texel0 * 512 * 2 ** map.getZoom();
  return {
    cam: { cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, zoom: 1 },
    size: { w: x1 - x0, h: y1 - y0, dpr: 1 },
    lod: levelForTexel(cssPerTexel, nLevels, lodBias),
    /** CSS px a level-0 texel spans (the camera's zoom is 1 by convention). */
    texelPx: cssPerTexel,
  };
}
