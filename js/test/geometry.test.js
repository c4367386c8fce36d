// @ts-check
// The reader's geometry (src/reader/geometry.js) against stores the Python writer made: the objects
// it wrote on disk, the shard lengths it listed, the cell windows and level shapes the Python reader
// reports, and the level transforms the writer stored.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cellExtent, cellGrid, cellRange, cellRect, chunkKey, levelPixel, pixelCell, shardBytesId } from '../src/reader/geometry.js';
import { fixtures } from './helpers.js';

const fx = fixtures();
const names = Object.keys(fx.index).filter((name) => !name.startsWith('v01'));

/** Every chunk or shard object the writer put under `dir/c/`, as keys relative to the store. @param {string} store @param {string} dir */
function objectsUnder(store, dir) {
  /** @type {string[]} */
  const found = [];
  const walk = (/** @type {string} */ d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(d, entry.name));
      else found.push(relative(store, join(d, entry.name)).split('\\').join('/'));
    }
  };
  walk(join(store, dir, 'c'));
  return new Set(found);
}

/** The JS level of a store from the Python reader's report: shape [n_time, n_band, H, W] and cs. */
const levelOf = (/** @type {{ shape: number[], chunkSize: number }} */ info) => ({ width: info.shape[3], height: info.shape[2], chunkSize: info.chunkSize, ...cellGrid(info.shape[3], info.shape[2], info.chunkSize) });

/** Store coordinates of a (fractional) pixel position through a GDAL transform. */
const place = (/** @type {number[]} */ [a, b, c, d, e, f], /** @type {number} */ x, /** @type {number} */ y) => [c + a * x + b * y, f + d * x + e * y];

describe('geometry against Python-written stores', () => {
  for (const name of names) {
    const info = fx.index[name];
    const store = join(fx.stores, name);
    const root = JSON.parse(readFileSync(join(store, 'zarr.json'), 'utf8')).attributes.chronozarr;
    const nTime = info.times.length;

    test(`${name}: cell grids are the Python reader's`, () => {
      for (const level of info.levels) {
        const { gridRows, gridCols } = levelOf(level);
        assert.deepEqual([gridRows, gridCols], level.grid);
      }
    });

    test(`${name}: chunk and shard keys are exactly the objects the writer wrote`, () => {
      for (const [lod, level] of info.levels.entries()) {
        const { gridRows, gridCols } = levelOf(level);
        const doc = JSON.parse(readFileSync(join(store, String(lod), 'data', 'zarr.json'), 'utf8'));
        const shardTime = level.sharded ? doc.chunk_grid.configuration.chunk_shape[0] : 0;
        /** @type {[string, boolean][]} */
        const planes = [['data', true]];
        if (info.hasMask) planes.push(['mask', false]);
        if (info.hasCoverage) planes.push(['coverage', false]);
        for (const [plane, banded] of planes) {
          const planeDoc = JSON.parse(readFileSync(join(store, String(lod), plane, 'zarr.json'), 'utf8'));
          const planeShardTime = level.sharded ? planeDoc.chunk_grid.configuration.chunk_shape[0] : 0;
          const keys = new Set();
          for (let t = 0; t < nTime; t++) for (let row = 0; row < gridRows; row++) for (let col = 0; col < gridCols; col++) keys.add(chunkKey(`${lod}/${plane}`, t, row, col, { banded, shardTime: planeShardTime }));
          assert.deepEqual([...keys].sort(), [...objectsUnder(store, `${lod}/${plane}`)].sort(), `${lod}/${plane}`);
        }
        if (!level.sharded) continue;
        // The shard lengths the writer listed: one per shard, under the id the JS reader looks up.
        const listed = root.shard_bytes[String(lod)];
        const ids = new Map();
        for (let t = 0; t < nTime; t++) for (let row = 0; row < gridRows; row++) for (let col = 0; col < gridCols; col++) ids.set(shardBytesId(t, row, col, shardTime), chunkKey(`${lod}/data`, t, row, col, { shardTime }));
        assert.deepEqual([...ids.keys()].sort(), Object.keys(listed).sort());
        for (const [id, key] of ids) assert.equal(listed[id], statSync(join(store, key)).size, `${lod} ${id}`);
      }
    });

    test(`${name}: cell extents and pixel cells match the Python reader's cell windows`, () => {
      const extents = new Map(info.entries.filter((e) => e[0] === 'data' && e[2] === 0).map(([, lod, , row, col, , shape]) => [`${lod}/${row}/${col}`, shape.slice(-2)]));
      for (const [lod, level] of info.levels.entries()) {
        const lvl = levelOf(level);
        // Each cell's origin is the sum of the Python extents of the cells before it in its row and column.
        const colStart = [0];
        const rowStart = [0];
        for (let col = 0; col < lvl.gridCols; col++) {
          const [h, w] = /** @type {number[]} */ (extents.get(`${lod}/0/${col}`));
          assert.deepEqual(cellExtent(lvl, 0, col), { width: w, height: h });
          colStart.push(colStart[col] + w);
        }
        for (let row = 0; row < lvl.gridRows; row++) {
          for (let col = 0; col < lvl.gridCols; col++) {
            const [h, w] = /** @type {number[]} */ (extents.get(`${lod}/${row}/${col}`));
            assert.deepEqual(cellExtent(lvl, row, col), { width: w, height: h }, `${lod}/${row}/${col}`);
          }
          rowStart.push(rowStart[row] + /** @type {number[]} */ (extents.get(`${lod}/${row}/0`))[0]);
        }
        assert.equal(colStart.at(-1), lvl.width);
        assert.equal(rowStart.at(-1), lvl.height);
        for (let y = 0; y < lvl.height; y++) {
          for (let x = 0; x < lvl.width; x++) {
            const row = rowStart.findLastIndex((s) => s <= y);
            const col = colStart.findLastIndex((s) => s <= x);
            assert.deepEqual(pixelCell(lvl, x, y), { row, col, x: x - colStart[col], y: y - rowStart[row] });
          }
        }
      }
    });

    test(`${name}: level-0 pixels and cell rectangles land where the stored level transforms put them`, () => {
      const level0 = levelOf(info.levels[0]);
      const t0 = info.levels[0].transform;
      for (const [k, level] of info.levels.entries()) {
        const lvl = levelOf(level);
        const tk = level.transform;
        for (let y = 0; y < level0.height; y++) {
          for (let x = 0; x < level0.width; x++) {
            // The level-0 pixel's centre, in store coordinates, lies in the level-k pixel levelPixel names.
            const [X, Y] = place(t0, x + 0.5, y + 0.5);
            const p = levelPixel(x, y, k);
            assert.ok(p.x < lvl.width && p.y < lvl.height);
            const fx0 = (X - tk[2]) / tk[0];
            const fy0 = (Y - tk[5]) / tk[4];
            assert.ok(fx0 >= p.x && fx0 < p.x + 1 && fy0 >= p.y && fy0 < p.y + 1, `${k}: (${x}, ${y})`);
          }
        }
        for (let row = 0; row < lvl.gridRows; row++) {
          for (let col = 0; col < lvl.gridCols; col++) {
            const rect = cellRect(lvl, k, row, col, level0);
            const { width, height } = cellExtent(lvl, row, col);
            const cs = lvl.chunkSize;
            // The cell's top-left corner is the same place on level k and on level 0.
            assert.deepEqual(place(t0, rect.x0, rect.y0), place(tk, col * cs, row * cs));
            // Its far corner too, unless level 0 ends first (a coarser pixel past level 0's edge).
            const far = place(tk, col * cs + width, row * cs + height);
            const [X1, Y1] = place(t0, rect.x1, rect.y1);
            assert.ok(X1 <= far[0] && Y1 >= far[1]);
            if (rect.x1 < level0.width) assert.equal(X1, far[0]);
            if (rect.y1 < level0.height) assert.equal(Y1, far[1]);
            assert.deepEqual([rect.width, rect.height], [width, height]);
          }
        }
      }
    });

    test(`${name}: cellRange is every cell whose rectangle meets a level-0 window`, () => {
      const level0 = levelOf(info.levels[0]);
      const windows = [[0, 0, level0.width, level0.height], [3.5, 7.25, 17, 16], [15.99, 0, 16.01, 1], [31, 31, 45, 37], [0, 20, 1, 21]];
      for (const [k, level] of info.levels.entries()) {
        const lvl = levelOf(level);
        for (const [x0, y0, x1, y1] of windows) {
          const { r0, r1, c0, c1 } = cellRange(lvl, k, x0, y0, x1, y1);
          const got = [];
          for (let row = r0; row <= r1; row++) for (let col = c0; col <= c1; col++) got.push(`${row}/${col}`);
          const want = [];
          for (let row = 0; row < lvl.gridRows; row++) {
            for (let col = 0; col < lvl.gridCols; col++) {
              const r = cellRect(lvl, k, row, col, level0);
              if (r.x0 < x1 && r.x1 > x0 && r.y0 < y1 && r.y1 > y0) want.push(`${row}/${col}`);
            }
          }
          assert.deepEqual(got, want, `${k}: ${[x0, y0, x1, y1]}`);
        }
      }
    });
  }
});
