/**
 * From a fragment's window position back to the map plane, for the fragment shader: the GPU snaps
 * vertices to its sub-pixel grid (1/16 px on SwiftShader, 1/256 on most GPUs) and interpolates the
 * texel position from the snapped triangle, which moves texel boundaries by up to that much. The
 * shader corrects the interpolated position by where the fragment's centre truly lies, through
 * this 3 x 3 homography of window pixels to mesh-local mercator, made in float64 from the same
 * matrix the vertices go through.
 * @module
 */

/**
 * The homography of GL window pixels (gl_FragCoord.xy, origin bottom-left) to mercator offsets
 * from `centre` on the plane z = 0: (x, y, w) = H (px, py, 1), the point (x / w, y / w). Column-major
 * into `out`, for uniformMatrix3fv.
 * @param {ArrayLike<number>} matrix MapLibre's mercator (0..1) to clip matrix, column-major 4 x 4
 * @param {{ x: number, y: number }} centre the mesh centre its vertices are offsets from
 * @param {ArrayLike<number>} viewport gl.VIEWPORT: x, y, width, height
 * @param {Float32Array} out 9 values
 */
export function screenToMesh(matrix, centre, viewport, out) {
  const [vx, vy, vw, vh] = Array.from(viewport);
  // Clip coordinates of (mx, my, 0, 1) from the centre: rows x, y, w of the translated matrix.
  const row = (/** @type {number} */ i) => [matrix[i], matrix[4 + i], matrix[i] * centre.x + matrix[4 + i] * centre.y + matrix[12 + i]];
  const cx = row(0);
  const cy = row(1);
  const cw = row(3);
  // Window pixels, homogeneous: (vw / 2 (x + w) + vx w, vh / 2 (y + w) + vy w, w).
  const g = [
    cx.map((v, j) => (vw / 2) * (v + cw[j]) + vx * cw[j]),
    cy.map((v, j) => (vh / 2) * (v + cw[j]) + vy * cw[j]),
    cw,
  ];
  const inv = invert3(g);
  for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) out[c * 3 + r] = inv[r][c];
  return out;
}

/** The inverse of a 3 x 3 matrix given as rows (adjugate over determinant). @param {number[][]} m */
function invert3(m) {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const A = e * i - f * h;
  const B = f * g - d * i;
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    [A / det, (c * h - b * i) / det, (b * f - c * e) / det],
    [B / det, (a * i - c * g) / det, (c * d - a * f) / det],
    [C / det, (b * g - a * h) / det, (a * e - b * d) / det],
  ];
}
