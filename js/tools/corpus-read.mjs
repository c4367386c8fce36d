// @ts-check
// The JS reader's part of the hostile corpus (tests/fuzz/corpus.py): node corpus-read.mjs STORE TRUTH
// opens STORE, reads every cell of every timestep of the levels TRUTH has (within its extent) and
// prints one JSON line: correct, silent_wrong (values or times that are not TRUTH's), clear_error
// (our StoreError or FetchError) or crash (any other exception). TRUTH is a directory of
// meta.json ({times, shapes}) and one little-endian uint16 file per level (time, band, y, x).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../src/index.js';

const [location, truthDir] = process.argv.slice(2);
const meta = JSON.parse(readFileSync(join(truthDir, 'meta.json'), 'utf8'));
/** @type {Uint16Array[]} */
const truth = meta.shapes.map((/** @type {number[]} */ _, /** @type {number} */ i) => {
  const raw = readFileSync(join(truthDir, `${i}.bin`));
  return new Uint16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2);
});

/** The cell's values that disagree with the truth of its level, where both have values. */
function differs(/** @type {Readonly<import('../src/reader/dataset.js').Cell>} */ cell, /** @type {number} */ lod, /** @type {number} */ t, /** @type {number} */ row, /** @type {number} */ col, /** @type {number} */ nBand, /** @type {number} */ cs) {
  const [, tb, th, tw] = meta.shapes[lod];
  const plane = cell.chunkWidth * cell.chunkHeight;
  for (let b = 0; b < Math.min(nBand, tb); b++) {
    for (let y = 0; y < cell.height && row * cs + y < th; y++) {
      for (let x = 0; x < cell.width && col * cs + x < tw; x++) {
        const want = truth[lod][((t * tb + b) * th + row * cs + y) * tw + col * cs + x];
        if (Number(cell.data[b * plane + y * cell.chunkWidth + x]) !== want) return true;
      }
    }
  }
  return false;
}

/** @type {string[]} */
const wrong = [];
let store = null;
try {
  store = await openStore(location, { workers: 0 });
  if (JSON.stringify(store.times) !== JSON.stringify(meta.times)) wrong.push('times');
  const nTime = Math.min(store.times.length, meta.times.length);
  for (const level of store.levels.slice(0, meta.shapes.length)) {
    const [, , th, tw] = meta.shapes[level.index];
    const cs = level.chunkSize;
    const rows = Math.min(level.gridRows, Math.ceil(th / cs));
    const cols = Math.min(level.gridCols, Math.ceil(tw / cs));
    for (let t = 0; t < nTime; t++) {
      for (let row = 0; row < rows; row++) {
        for (let col = 0; col < cols; col++) {
          const cell = await store.getCell(level.index, row, col, t, { mask: false });
          if (differs(cell, level.index, t, row, col, store.bands.length, cs)) wrong.push(`cell ${level.index}/${t}/${row}/${col}`);
        }
      }
    }
  }
  process.stdout.write(`${JSON.stringify({ outcome: wrong.length ? 'silent_wrong' : 'correct', wrong: wrong.slice(0, 5) })}\n`);
} catch (err) {
  const name = err instanceof Error ? err.name : typeof err;
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
  const ours = name === 'StoreError' || name === 'FetchError';
  const where = err instanceof Error && !ours ? String(err.stack).slice(0, 1500) : undefined;
  process.stdout.write(`${JSON.stringify({ outcome: ours ? 'clear_error' : 'crash', type: name, message, where })}\n`);
} finally {
  store?.close();
}
