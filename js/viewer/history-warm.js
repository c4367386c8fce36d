/**
 * The first click made cheaper: a click on a pixel whose history shard index is held reads its
 * whole history in one range per time block instead of an index read and then a range (a round
 * trip less on a slow link). What is read and when is the load plan's (lib/load-plan.js
 * historyPlan: the centre shard's index on the first frame painted, a few kB beside the frame's
 * megabytes, at the frame's rank; the other shards under the view once a complete frame is on
 * screen, at the lowest); this runs its reads through the reader's `prefetchHistory` on every frame
 * painted, reports them, and lets a newer warm-up of the view replace an older one.
 * @module
 */
import { screenToPixel } from '../lib/camera.js';
import { historyPlan } from '../lib/load-plan.js';

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

  /** A frame was painted: ask for what the plan lists for it. @param {{ complete: boolean }} f */
  function frame(f) {
    const { cam, w, h } = view();
    const box = viewBox(cam, w, h);
    const needs = historyPlan({ hasHistory: store.hasHistory, playing: playing(), complete: f.complete, box, level0, centreAsked: centre != null, asked });
    for (const need of needs) {
      if (need.centre) {
        centre = new AbortController();
        store.prefetchHistory(need.box, { maxShards: need.maxShards, signal: centre.signal, priority: need.priority }).catch(() => {});
      } else warmView(need);
    }
  }

  /** Warm the indexes under the view. @param {Extract<import('../lib/load-plan.js').HistoryNeed, { centre: false }>} need */
  function warmView(need) {
    asked = need.key;
    const previous = running;
    const ctrl = new AbortController();
    running = ctrl;
    const startedAt = performance.now();
    onReport({ state: 'warming', startedAt });
    store.prefetchHistory(need.box, { signal: ctrl.signal, priority: need.priority }).then(
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
