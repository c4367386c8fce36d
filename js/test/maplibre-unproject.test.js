// @ts-check
// unproject.js: the window-pixel to mesh-plane homography the layer's fragment shader uses, checked
// by projecting mesh points forward here (matrix, perspective divide, viewport) and mapping the
// window pixels back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { screenToMesh } from '../maplibre/unproject.js';

/** A column-major perspective camera over the mercator plane: scale, rotation, pitch, translation. @param {number} pitch */
function camera(pitch) {
  const s = 2 ** 15 * 512;
  const b = (30 * Math.PI) / 180;
  const p = (pitch * Math.PI) / 180;
  // clip = P * R * (x, y, 0, 1), written out by hand: x and y rotate by b, scale by s, tilt by p.
  const rows = [
    [s * Math.cos(b) / 400, -s * Math.sin(b) / 400, 0, -0.3],
    [s * Math.sin(b) * Math.cos(p) / 300, s * Math.cos(b) * Math.cos(p) / 300, 0, 0.2],
    [0, 0, 1, 0],
    [s * Math.sin(b) * Math.sin(p) / 1000, s * Math.cos(b) * Math.sin(p) / 1000, 0, 1],
  ];
  const m = new Float64Array(16);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) m[c * 4 + r] = rows[r][c];
  // Shift the plane so the map's centre sits near mercator (0.3, 0.38), as a real view would.
  const t = [0.3, 0.38];
  for (let r = 0; r < 4; r++) m[12 + r] -= m[r] * t[0] + m[4 + r] * t[1];
  return m;
}

for (const pitch of [0, 40]) {
  test(`window pixels map back to the mesh-plane offsets they were projected from (pitch ${pitch})`, () => {
    const matrix = camera(pitch);
    const centre = { x: 0.30001, y: 0.37998 };
    const viewport = [0, 0, 800, 600];
    const h = screenToMesh(matrix, centre, viewport, new Float32Array(9));
    for (const [dx, dy] of [[0, 0], [1e-5, -2e-5], [-3e-5, 1e-5], [2e-5, 2e-5]]) {
      const x = centre.x + dx;
      const y = centre.y + dy;
      const clip = [0, 1, 3].map((r) => matrix[r] * x + matrix[4 + r] * y + matrix[12 + r]);
      const px = (clip[0] / clip[2] + 1) / 2 * viewport[2];
      const py = (clip[1] / clip[2] + 1) / 2 * viewport[3];
      // The shader's arithmetic: H (px, py, 1), divided by its third component (H column-major).
      const v = [0, 1, 2].map((r) => h[r] * px + h[3 + r] * py + h[6 + r]);
      const world = 2 ** 15 * 512; // CSS px per mercator unit at this zoom
      assert.ok(Math.abs((v[0] / v[2] - dx) * world) < 1e-3, `x off by ${(v[0] / v[2] - dx) * world} px`);
      assert.ok(Math.abs((v[1] / v[2] - dy) * world) < 1e-3, `y off by ${(v[1] / v[2] - dy) * world} px`);
    }
  });
}
