/**
 * The first click made cheaper: a click on a pixel whose history shard index is held reads its
 * whole history in one range per time block instead of an index read and then a range (a round
 * trip less on a slow link). On the first frame painted (the coarse picture, say: the frame's
 * chunks are asked for by then), the index of the one shard nearest the view's centre is asked for
 * at the frame's rank, behind those chunks, so that a click as soon as the view is complete finds
 * it; it is a few kB beside the frame's megabytes. Once a complete frame is on screen, the indexes
 * of the other shards under the view follow at the reader's lowest priority (`prefetchHistory`),
 * asked again when a pan or zoom brings other level-0 cells into view; neither while playing,
 * where the read-ahead of the loop goes first. Nothing happens on a store without the array.
 * @module
 */
import { screenToPixel } from '../lib/camera.js';

/**
 * What the last warm-up did (for tests and benchmarks, on the hook): `warming` from `startedAt`,
 * then `done` at `doneAt` with the reader's counts.
 * @typedef {{ state: 'warming' | 'done', startedAt: number, doneAt?: number, shards?: number, indexes?: number, read?: number, bytes?: number, failed?: number }} WarmReport
 */

/**
 * The level-0 box a camera shows on a canvas of w x h CSS px, ends exclusive.
 * @param {import('../lib/camera.js').Camera} cam @param {number} w @param {number} h
 */
export function viewBox(cam, w, h) {
  const a = screenToPixel(cam, w, h, 0, 0);
  const b = screenToPixel(cam, w, h, w, h);
  return { x0: a.x, y0: a.y, x1: b.x, y1: b.y };
}

/**
 * The level-0 cells a box covers, as a key (the same key: the same history shards), or null when
 * the box misses level 0.
 * @param {{ x0: number, y0: number, x1: number, y1: number }} box
 * @param {{ width: number, height: number, chunkSize: number }} level0
 */
export function cellsKey(box, { width, height, chunkSize }) {
  const x0 = Math.max(0, box.x0);
  const y0 = Math.max(0, box.y0);
  const x1 = Math.min(width, box.x1);
  const y1 = Math.min(height, box.y1);
  if (x1 <= x0 || y1 <= y0) return null;
  return [y0, x0, y1 - 1, x1 - 1].map((v) => Math.floor(v / chunkSize)).join(',');
}

/**
 * @param {object} o
 * @param {Pick<import('../lib/typedefs.js').Store, 'hasHistory' | 'levels' | 'prefetchHistory'>} o.store
 * @param {() => { cam: import('../lib/camera.js').Camera, w: number, h: number }} o.view the camera and canvas size now
 * @param {() => boolean} o.playing playback is on (or buffering the loop)
 * @param {(report: WarmReport) => void} [o.onReport]
 */
export function createHistoryWarm({ store, view, playing, onReport = () => {} }) {
  const level0 = store.levels[0];
  /** The cells last warmed (or being warmed). */
  let asked = '';
  /** @type {AbortController | null} */
  let running = null;
  /** The centre shard's index, asked for on the first frame painted. @type {AbortController | null} */
  let centre = null;

  /** A frame was painted: on a complete one, warm the indexes under the view if not done yet. @param {{ complete: boolean }} f */
  function frame(f) {
    if (!store.hasHistory || playing()) return;
    const { cam, w, h } = view();
    const box = viewBox(cam, w, h);
    if (!centre && cellsKey(box, level0) != null) {
      centre = new AbortController();
      store.prefetchHistory(box, { maxShards: 1, signal: centre.signal, priority: 'frame' }).catch(() => {});
    }
    if (!f.complete) return;
    const key = cellsKey(box, level0);
    if (key == null || key === asked) return;
    asked = key;
    const previous = running;
    const ctrl = new AbortController();
    running = ctrl;
    const startedAt = performance.now();
    onReport({ state: 'warming', startedAt });
    store.prefetchHistory(box, { signal: ctrl.signal }).then(
      (did) => running === ctrl && onReport({ state: 'done', startedAt, doneAt: performance.now(), ...did }),
      () => {},
    );
    // After the new run has joined the indexes both want, so those go on.
    previous?.abort();
  }

  return {
    frame,
    /** Stop the warm-up in progress (the viewer is destroyed). */
    stop() {
      running?.abort();
      centre?.abort();
      running = null;
    },
  };
}
