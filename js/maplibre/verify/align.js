/**
 * The page side of the placement check: where the map shows a boundary between two drawn texels
 * (or between the layer and the map around it), measured on the canvas, against where MapLibre's
 * own `project` puts the pyproj position of that boundary (verify/truth.py).
 *
 * The GPU colours a CSS pixel by the texel under its centre, so a boundary that is where it should
 * be shows as a colour change between the two pixel centres either side of it: measured as the
 * edge between those pixels, it is within 0.5 px of the true line, and that is the limit checked.
 * Each boundary is scanned across at its middle, along a pixel column when it runs mostly
 * left-right on screen, else along a row, over the pixel centres within 2 px of the true line.
 * @module
 */

/** Pixel centres looked at on each side of a boundary, in CSS px. */
const REACH = 2;

/**
 * @typedef {{ width: number, height: number, data: Uint8ClampedArray }} Grab the canvas's pixels (RGBA)
 * @typedef {(lngLat: [number, number]) => { x: number, y: number }} Project lon/lat to CSS px (map.project)
 * @typedef {(x: number, y: number) => number} Classify a key for the pixel at column x, row y: equal keys, same texel
 * @typedef {{ a: [number, number], b: [number, number], left?: [number, number], right?: [number, number] }} Edge
 *   a boundary from lon/lat a to b, with the lon/lat of the centres of the texels either side (none on the outline)
 * @typedef {{ checked: number, maxError: number, meanError: number, meanAbsError: number, missing: number, worst: { error: number, a: [number, number], b: [number, number] } | null }} Measured
 */

/**
 * The map canvas's pixels, read through a 2D canvas (the map needs `preserveDrawingBuffer`).
 * Throws unless a CSS pixel is one canvas pixel: the check compares CSS positions.
 * @param {HTMLCanvasElement} canvas
 * @returns {Grab}
 */
export function grab(canvas) {
  if (canvas.width !== canvas.clientWidth || canvas.height !== canvas.clientHeight) {
    throw new Error(`the placement check needs devicePixelRatio 1, the canvas is ${canvas.width} x ${canvas.height} for ${canvas.clientWidth} x ${canvas.clientHeight} CSS px`);
  }
  const copy = document.createElement('canvas');
  copy.width = canvas.width;
  copy.height = canvas.height;
  const ctx = /** @type {CanvasRenderingContext2D} */ (copy.getContext('2d', { willReadFrequently: true }));
  ctx.drawImage(canvas, 0, 0);
  return { width: copy.width, height: copy.height, data: ctx.getImageData(0, 0, copy.width, copy.height).data };
}

/** Pixels keyed by their RGB colour. @param {Grab} g @returns {Classify} */
export const byColour = (g) => (x, y) => {
  const i = (y * g.width + x) * 4;
  return (g.data[i] << 16) | (g.data[i + 1] << 8) | g.data[i + 2];
};

/**
 * Pixels keyed by whether the layer drew there: 1 where the canvas with the layer at opacity 1
 * differs from the one at opacity 0 (only the map), else 0.
 * @param {Grab} shown @param {Grab} hidden @returns {Classify}
 */
export const byCoverage = (shown, hidden) => (x, y) => {
  const i = (y * shown.width + x) * 4;
  for (let k = 0; k < 3; k++) if (shown.data[i + k] !== hidden.data[i + k]) return 1;
  return 0;
};

/**
 * Whether the texels either side of the boundary A-B (centres on screen) are wide enough for a scan
 * to see no other boundary: a centre 1.5 px or more from the line puts the texel's far side 3 px
 * or more away along any scan within 45 degrees of the normal, beyond the REACH scanned.
 * @param {{ x: number, y: number }} A @param {{ x: number, y: number }} B @param {{ x: number, y: number }[]} centres
 */
function wideEnough(A, B, centres) {
  const len = Math.hypot(B.x - A.x, B.y - A.y);
  return centres.every((c) => Math.abs((B.x - A.x) * (c.y - A.y) - (B.y - A.y) * (c.x - A.x)) / len >= (REACH + 1) / 2);
}

/**
 * Measure one boundary: its signed offset in CSS px from where it shows (measured minus true, across
 * the scan), 'missing' when the scan sees no change between the colours either side, or null
 * when the boundary is shorter than `minPx` on screen, its texels too narrow, or its scan leaves
 * the canvas.
 * @param {{ x: number, y: number }} A @param {{ x: number, y: number }} B screen ends
 * @param {{ x: number, y: number }[]} centres screen centres of the texels either side (may be none)
 * @param {Classify} key @param {number} width @param {number} height @param {number} minPx
 * @returns {number | 'missing' | null}
 */
export function offsetOf(A, B, centres, key, width, height, minPx) {
  const dx = B.x - A.x;
  const dy = B.y - A.y;
  if (Math.hypot(dx, dy) < minPx || !wideEnough(A, B, centres)) return null;
  const across = Math.abs(dx) >= Math.abs(dy) ? 'column' : 'row';
  // The pixel centre line through the middle of the boundary, and where the boundary crosses it.
  const line = Math.floor(across === 'column' ? (A.x + B.x) / 2 : (A.y + B.y) / 2);
  const u = across === 'column' ? (line + 0.5 - A.x) / dx : (line + 0.5 - A.y) / dy;
  const at = across === 'column' ? A.y + u * dy : A.x + u * dx;
  const first = Math.ceil(at - REACH - 0.5);
  const last = Math.floor(at + REACH - 0.5);
  const size = across === 'column' ? height : width;
  const outside = (/** @type {{ x: number, y: number }} */ c) => c.x < 0 || c.y < 0 || c.x >= width || c.y >= height;
  if (line < 0 || line >= (across === 'column' ? width : height) || first < 0 || last >= size || centres.some(outside)) return null;
  const k = (/** @type {number} */ i) => (across === 'column' ? key(line, i) : key(i, line));
  // The pixels at the texels' centres give the colours expected before and after the crossing;
  // the boundary measured is the change from the one to the other nearest the true crossing (a
  // texel meeting these at a corner nearby may show in the scan, and may repeat one's colour).
  const sides = centres.map((c) => key(Math.floor(c.x), Math.floor(c.y)));
  if (sides.length === 2 && sides[0] === sides[1]) return 'missing';
  let before = -1;
  if (sides.length === 2) {
    const c = centres[0];
    const first0 = across === 'column' ? c.y < A.y + ((c.x - A.x) / dx) * dy : c.x < A.x + ((c.y - A.y) / dy) * dx;
    before = first0 ? 0 : 1;
  }
  let best = Infinity;
  for (let i = first; i < last; i++) {
    const change = before < 0 ? k(i) !== k(i + 1) : k(i) === sides[before] && k(i + 1) === sides[1 - before];
    if (change && Math.abs(i + 1 - at) < Math.abs(best)) best = i + 1 - at;
  }
  return best === Infinity ? 'missing' : best;
}

/**
 * Measure every boundary of `edges` that is on screen (see offsetOf).
 * @param {Edge[]} edges @param {Project} project @param {Classify} key
 * @param {{ width: number, height: number, minPx?: number }} o minPx: shorter boundaries are skipped (default 4)
 * @returns {Measured}
 */
export function measure(edges, project, key, { width, height, minPx = 4 }) {
  let checked = 0;
  let missing = 0;
  let sum = 0;
  let sumAbs = 0;
  let maxError = 0;
  /** @type {Measured['worst']} */
  let worst = null;
  for (const e of edges) {
    const centres = [e.left, e.right].flatMap((c) => (c ? [project(c)] : []));
    const r = offsetOf(project(e.a), project(e.b), centres, key, width, height, minPx);
    if (r === null) continue;
    if (r === 'missing') missing++;
    else {
      checked++;
      sum += r;
      sumAbs += Math.abs(r);
      if (Math.abs(r) >= maxError) {
        maxError = Math.abs(r);
        worst = { error: r, a: e.a, b: e.b };
      }
    }
  }
  return { checked, maxError, meanError: checked ? sum / checked : 0, meanAbsError: checked ? sumAbs / checked : 0, missing, worst };
}

/**
 * Pixels the layer left undrawn with all four neighbours drawn: a hole (at a seam between cells,
 * say), which no store's mask makes at the check's store. As [x, y], at most `max` of them.
 * @param {Classify} covered byCoverage @param {number} width @param {number} height @param {number} [max]
 */
export function holes(covered, width, height, max = 20) {
  /** @type {[number, number][]} */
  const out = [];
  for (let y = 1; y < height - 1 && out.length < max; y++) {
    for (let x = 1; x < width - 1 && out.length < max; x++) {
      if (!covered(x, y) && covered(x - 1, y) && covered(x + 1, y) && covered(x, y - 1) && covered(x, y + 1)) out.push([x, y]);
    }
  }
  return out;
}

/**
 * Colour changes between neighbouring drawn pixels that no boundary explains: a pair of pixels of
 * different colours within `box` (a convex quadrilateral of lon/lat, 2 px in from its sides) where
 * neither pixel's centre is within 1.5 px of one of `edges` (a boundary drawn within 0.5 px of
 * its place lies between the centres of the pair it separates): `at` as [x, y, 'x' | 'y'], at most
 * `max` of them, and `changes`, how many changes between drawn pixels the box holds.
 * @param {Edge[]} edges all the boundaries inside the box
 * @param {[number, number][]} box @param {Project} project
 * @param {Classify} key @param {Classify} covered
 * @param {{ width: number, height: number, max?: number }} o
 */
export function strays(edges, box, project, key, covered, { width, height, max = 20 }) {
  const near = new Uint8Array(width * height);
  const R = 1.5;
  for (const e of edges) {
    const A = project(e.a);
    const B = project(e.b);
    const dx = B.x - A.x;
    const dy = B.y - A.y;
    const len2 = dx * dx + dy * dy || 1;
    for (let y = Math.max(0, Math.floor(Math.min(A.y, B.y) - R)); y <= Math.min(height - 1, Math.ceil(Math.max(A.y, B.y) + R)); y++) {
      for (let x = Math.max(0, Math.floor(Math.min(A.x, B.x) - R)); x <= Math.min(width - 1, Math.ceil(Math.max(A.x, B.x) + R)); x++) {
        const u = Math.max(0, Math.min(1, ((x + 0.5 - A.x) * dx + (y + 0.5 - A.y) * dy) / len2));
        if (Math.hypot(x + 0.5 - A.x - u * dx, y + 0.5 - A.y - u * dy) <= R) near[y * width + x] = 1;
      }
    }
  }
  const corners = box.map(project);
  const turn = Math.sign((corners[1].x - corners[0].x) * (corners[2].y - corners[0].y) - (corners[1].y - corners[0].y) * (corners[2].x - corners[0].x));
  const inside = (/** @type {number} */ x, /** @type {number} */ y) => corners.every((a, i) => {
    const b = corners[(i + 1) % corners.length];
    return (turn * ((b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x))) / Math.hypot(b.x - a.x, b.y - a.y) >= 2;
  });
  /** @type {[number, number, 'x' | 'y'][]} */
  const at = [];
  let changes = 0;
  for (let y = 0; y < height - 1; y++) {
    for (let x = 0; x < width - 1; x++) {
      if (!covered(x, y) || !inside(x + 0.5, y + 0.5)) continue;
      const here = near[y * width + x];
      for (const [nx, ny, axis] of /** @type {const} */ ([[x + 1, y, 'x'], [x, y + 1, 'y']])) {
        if (!covered(nx, ny) || key(x, y) === key(nx, ny)) continue;
        changes++;
        if (!here && !near[ny * width + nx] && at.length < max) at.push([x, y, axis]);
      }
    }
  }
  return { changes, at };
}

/**
 * The outline as boundaries: points `step` apart along a closed ring of lon/lat.
 * @param {[number, number][]} ring @param {number} [step] @returns {Edge[]}
 */
export function ringEdges(ring, step = 1) {
  /** @type {Edge[]} */
  const out = [];
  for (let i = step; i < ring.length; i += step) out.push({ a: ring[i - step], b: ring[i] });
  return out;
}
