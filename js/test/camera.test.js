// @ts-check
// lib/camera.js: pixel and store coordinates against the coordinates the Python writer stored for a
// fixture store, visible cells against a brute-force walk over every cell, and the view rules
// (fit, limits, clamping, level choice) against what they promise.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { clampCamera, fitCamera, levelFor, pixelToScreen, pixelToStore, screenToPixel, storeToPixel, visibleCells, zoomLimits } from '../lib/camera.js';
import { fixtures, python } from './helpers.js';

const fx = fixtures();
const NAME = 'u16-sd-plain-zstd';

/**
 * The x and y coordinate arrays the writer stored for each level (pixel centres), read with zarr-python.
 * @param {string} path @param {number} nLevels
 * @returns {{ x: number[], y: number[] }[]}
 */
function storedCoordinates(path, nLevels) {
  const script = `
import json, sys, numpy as np, zarr
g = zarr.open_group(sys.argv[1], mode='r')
print(json.dumps([{'x': np.asarray(g[f'{k}/x']).tolist(), 'y': np.asarray(g[f'{k}/y']).tolist()} for k in range(int(sys.argv[2]))]))
`;
  const run = spawnSync(python, ['-c', script, path, String(nLevels)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

/** @param {import('./helpers.js').FixtureInfo} info */
const levelsOf = (info) => info.levels.map((l) => ({ width: l.shape[3], height: l.shape[2], chunkSize: l.chunkSize, gridRows: l.grid[0], gridCols: l.grid[1], transform: l.transform }));

test('pixelToStore puts each pixel centre on the coordinate the writer stored, and storeToPixel brings it back', () => {
  const info = fx.index[NAME];
  const coords = storedCoordinates(join(fx.stores, NAME), info.levels.length);
  for (const [k, level] of levelsOf(info).entries()) {
    const { x, y } = coords[k];
    assert.equal(x.length, level.width);
    assert.equal(y.length, level.height);
    for (let j = 0; j < y.length; j += 3) {
      for (let i = 0; i < x.length; i += 4) {
        const at = pixelToStore(level.transform, i + 0.5, j + 0.5);
        assert.ok(Math.abs(at.x - x[i]) < 1e-6 && Math.abs(at.y - y[j]) < 1e-6, `level ${k} pixel ${i},${j}`);
        const back = storeToPixel(level.transform, x[i], y[j]);
        assert.ok(Math.abs(back.x - (i + 0.5)) < 1e-9 && Math.abs(back.y - (j + 0.5)) < 1e-9);
      }
    }
  }
  // Without georeferencing the position is its own coordinate; a sheared transform inverts too.
  assert.deepEqual(pixelToStore(null, 3, 4), { x: 3, y: 4 });
  const sheared = [10, 2, 1000, -1.5, -10, 5000];
  const at = pixelToStore(sheared, 7.25, 3.5);
  const p = storeToPixel(sheared, at.x, at.y);
  assert.ok(Math.abs(p.x - 7.25) < 1e-9 && Math.abs(p.y - 3.5) < 1e-9);
});

test('visibleCells lists every cell whose footprint meets the canvas, nearest the centre first', () => {
  const levels = levelsOf(fx.index[NAME]);
  const level0 = levels[0];
  const cams = [
    { cx: 22, cy: 18, zoom: 4 }, { cx: 0, cy: 0, zoom: 10 }, { cx: 40, cy: 30, zoom: 2.5 },
    { cx: 16, cy: 16, zoom: 37 }, { cx: 5, cy: 36, zoom: 0.5 }, { cx: -100, cy: 10, zoom: 3 },
  ];
  for (const cam of cams) {
    for (const [w, h] of [[320, 240], [97, 301]]) {
      const box = { x0: cam.cx - w / 2 / cam.zoom, x1: cam.cx + w / 2 / cam.zoom, y0: cam.cy - h / 2 / cam.zoom, y1: cam.cy + h / 2 / cam.zoom };
      for (const [k, level] of levels.entries()) {
        const span = level.chunkSize * 2 ** k;
        const want = [];
        for (let row = 0; row < level.gridRows; row++) {
          for (let col = 0; col < level.gridCols; col++) {
            // The cell's footprint on level 0, cut at level 0's edge.
            const fx0 = col * span;
            const fy0 = row * span;
            const fx1 = Math.min(level0.width, (col + 1) * span);
            const fy1 = Math.min(level0.height, (row + 1) * span);
            if (fx0 < box.x1 && fx1 > box.x0 && fy0 < box.y1 && fy1 > box.y0) want.push(`${row}/${col}`);
          }
        }
        const got = visibleCells(cam, w, h, level, k, level0);
        assert.deepEqual(got.map((c) => `${c.row}/${c.col}`).sort(), want.sort(), `${JSON.stringify(cam)} ${w}x${h} level ${k}`);
        const distance = (/** @type {{ row: number, col: number }} */ c) => ((c.col + 0.5) * span - cam.cx) ** 2 + ((c.row + 0.5) * span - cam.cy) ** 2;
        for (let i = 1; i < got.length; i++) assert.ok(distance(got[i - 1]) <= distance(got[i]) + 1e-9);
      }
    }
  }
});

test('the fitted view shows the whole raster at its centre, and the limits and clamping keep the view on it', () => {
  const level0 = { width: 4500, height: 3700 };
  for (const [w, h] of [[800, 600], [300, 900], [1, 1]]) {
    const cam = fitCamera(level0, w, h);
    assert.deepEqual([cam.cx, cam.cy], [2250, 1850]);
    assert.ok(level0.width * cam.zoom <= w && level0.height * cam.zoom <= h);
    assert.ok(Math.abs(Math.max((level0.width * cam.zoom) / w, (level0.height * cam.zoom) / h) - 0.98) < 1e-12);
    const limits = zoomLimits(level0, w, h, 2);
    assert.equal(limits.min, cam.zoom / 2);
    assert.equal(limits.max, Math.max(8, cam.zoom));
    assert.deepEqual(clampCamera({ cx: -5, cy: 99999, zoom: 1e9 }, limits, level0), { cx: 0, cy: 3700, zoom: limits.max });
    assert.deepEqual(clampCamera({ cx: 10, cy: 20, zoom: 0 }, limits, level0), { cx: 10, cy: 20, zoom: limits.min });
  }
});

test('levelFor picks the level whose texel is nearest one CSS pixel, within the pyramid', () => {
  for (let k = 0; k < 6; k++) {
    for (const off of [-0.3, 0, 0.3]) {
      // A texel of level k covers 2^k level-0 pixels: zoom 2^-k makes it one CSS pixel.
      const zoom = 2 ** (-k + off);
      assert.equal(levelFor(zoom, 6), k, `zoom ${zoom}`);
      assert.equal(levelFor(zoom, 3), Math.min(k, 2));
    }
  }
  assert.equal(levelFor(64, 4), 0);
});

test('screen and level-0 pixel positions convert both ways about the canvas centre', () => {
  const cam = { cx: 120.5, cy: 77.25, zoom: 3 };
  assert.deepEqual(screenToPixel(cam, 400, 300, 200, 150), { x: 120.5, y: 77.25 });
  assert.deepEqual(screenToPixel(cam, 400, 300, 203, 144), { x: 121.5, y: 75.25 });
  for (const [px, py] of [[0, 0], [399, 299], [17.5, 250]]) {
    const p = screenToPixel(cam, 400, 300, px, py);
    const s = pixelToScreen(cam, 400, 300, p.x, p.y);
    assert.ok(Math.abs(s.px - px) < 1e-9 && Math.abs(s.py - py) < 1e-9);
  }
});
