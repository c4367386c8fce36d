// @ts-check
// The scene under a GPU budget, as the MapLibre layer runs it: a view needing more cells than it may
// draw gets the ones nearest its centre and one report, and texture uploads are paced per animation
// frame. A fixture store the Python writer made (3 x 3 cells of 16 px at level 0), a renderer that
// counts what it is given, and animation frames the test advances by hand.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from '../src/index.js';
import { lookFor } from '../lib/products.js';
import { createScene } from '../lib/scene.js';
import { fixtures } from './helpers.js';

const fx = fixtures();
const NAME = 'i16-none-plain-blosc'; // 2 bands of int16: 1024 bytes a chunk
const CHUNK_BYTES = 2 * 16 * 16 * 2;

/** @type {(() => void)[]} */
let frameQueue = [];
globalThis.requestAnimationFrame = (/** @type {FrameRequestCallback} */ run) => frameQueue.push(() => run(0));
globalThis.cancelAnimationFrame = () => {};
const tick = () => {
  const runs = frameQueue;
  frameQueue = [];
  for (const run of runs) run();
};
const settle = () => new Promise((r) => setTimeout(r, 15));

/** A renderer that uploads nothing and logs the bytes it was handed since the last frame. */
function countingRenderer() {
  /** @type {number[]} */
  const perFrame = [0];
  /** @param {ArrayBufferView | null} data @param {Uint8Array | null} mask */
  const upload = (data, mask) => {
    const bytes = (data?.byteLength ?? 0) + (mask?.byteLength ?? 0);
    perFrame[perFrame.length - 1] += bytes;
    return { tex: {}, maskTex: null, anchorTex: null, bytes };
  };
  const renderer = {
    shaderDelta: false,
    ready: () => true,
    resize: () => ({}),
    upload,
    dataTexture: () => ({}),
    deleteTexture: () => {},
    release: () => {},
    begin: () => {},
    draw: () => {},
  };
  return { renderer, perFrame, nextFrame: () => perFrame.push(0) };
}

/** @param {import('../lib/scene.js').Store} store */
const look = (store) => lookFor(store, { product: 'band', band: 0, range: [0, 1000], auto: null });
const WHOLE = { w: 400, h: 400, dpr: 1 };

test('a view needing more cells than maxCells draws the nearest to its centre and reports it once', async () => {
  const store = await openStore(join(fx.stores, NAME), { workers: 0 });
  /** @type {Error[]} */
  const reports = [];
  const { renderer } = countingRenderer();
  const scene = createScene({ store, renderer, maxCells: 4, onOverBudget: (e) => reports.push(e), readAhead: false });
  try {
    scene.setLook(look(store));
    scene.setTime(0);
    scene.setView({ cx: 8, cy: 8, zoom: 1 }, WHOLE, 0); // centred on cell (0, 0); all 9 cells in view
    const key = (/** @type {{ row: number, col: number }[]} */ cells) => cells.map((c) => `${c.row},${c.col}`).sort();
    assert.deepEqual(key(scene.visibleAt(0)), ['0,0', '0,1', '1,0', '1,1']);
    assert.equal(reports.length, 1);
    assert.match(reports[0].message, /needs 9 cells of level 0, more than the 4/);
    scene.setView({ cx: 9, cy: 8, zoom: 1 }, WHOLE, 0); // still over: no second report
    assert.equal(reports.length, 1);
    for (let i = 0; i < 100 && !scene.settled; i++) {
      await settle();
      tick();
    }
    assert.ok(scene.settled);
    const drawn = scene.frames.at(-1);
    assert.ok(drawn?.complete);
    assert.deepEqual(key(drawn.cells.filter((c) => c.lod === 0)), ['0,0', '0,1', '1,0', '1,1']);
    scene.setView({ cx: 40, cy: 32, zoom: 1 }, { w: 8, h: 8, dpr: 1 }, 0); // one cell: within the budget
    scene.setView({ cx: 40, cy: 32, zoom: 1 }, WHOLE, 0); // over again: reported again
    assert.equal(reports.length, 2);
    assert.deepEqual(key(scene.visibleAt(0)), ['1,1', '1,2', '2,1', '2,2']);
  } finally {
    scene.destroy();
    store.close();
  }
});

test('uploads go at most uploadBytesPerFrame between two animation frames', async () => {
  const store = await openStore(join(fx.stores, NAME), { workers: 0 });
  const { renderer, perFrame, nextFrame } = countingRenderer();
  const scene = createScene({ store, renderer, uploadBytesPerFrame: CHUNK_BYTES, readAhead: false });
  try {
    scene.setLook(look(store));
    scene.setTime(0);
    scene.setView({ cx: 22, cy: 18, zoom: 1 }, WHOLE, 0);
    await settle(); // every chunk of the view is read by now: only the frames hold the uploads back
    for (let i = 0; i < 100 && !scene.settled; i++) {
      nextFrame();
      tick();
      await settle();
    }
    assert.ok(scene.settled);
    const uploaded = perFrame.reduce((a, b) => a + b, 0);
    assert.ok(uploaded >= 9 * CHUNK_BYTES, `${uploaded} bytes uploaded`);
    assert.ok(perFrame.every((bytes) => bytes <= CHUNK_BYTES), `bytes per frame: ${perFrame.join(', ')}`);
  } finally {
    scene.destroy();
    store.close();
  }
});
