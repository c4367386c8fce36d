/**
 * Every load decision of the viewer and the MapLibre layer, each with what it is for (the reader's
 * priority, src/reader/limiter.js). What a view loads, in the order it should arrive: while the
 * view shows nothing at the asked timestep, a coarse picture of it (camera.js pictureLevel); the
 * asked level's cells at the asked timestep (the frame); once the frame is complete, the same cells
 * one step either side, the direction of play first. The scene loads these onto the GPU; everything
 * past them is read ahead into the reader's cache (readAheadRequest), in the order windowOrder
 * gives (the reader's prefetch visits timesteps in it). The viewer's first reads and the MapLibre
 * layer follow the same plan, the viewer's history warm-up asks for what historyPlan lists, and a
 * picked pixel's history is read as pixelHistoryPlan says.
 * Nothing here fetches: the scene, the viewer's first view and its warm-up run what it says. The
 * order of timesteps (windowOrder, scrubCost) is the reader's, since its own prefetch visits them
 * so (src/reader/order.js); the plan applies it and re-exports it.
 * @module
 */

import { scrubCost, windowOrder } from '../src/reader/order.js';

export { scrubCost, windowOrder };

/** @typedef {{ row: number, col: number }} CellAt */
/** @typedef {import('../src/reader/limiter.js').Priority} Priority */
/** @typedef {{ priority: Priority, lod: number, cell: CellAt, t: number }} Need */

/**
 * @typedef {object} PlanInput
 * @property {number} lod the asked level
 * @property {number} picture the coarse picture's level (lod when none is needed)
 * @property {number} t the asked timestep
 * @property {1 | -1} direction of the last time change (playback goes forward)
 * @property {number} nTime timesteps in the store
 * @property {(k: number) => CellAt[]} visibleAt the cells of level k in view
 * @property {(k: number, c: CellAt, t: number) => boolean} has the cell is loaded
 * @property {boolean} showing something of this view is on screen at another timestep
 */

/** @param {PlanInput} p @returns {Need[]} */
export function loadPlan({ lod, picture, t, direction, nTime, visibleAt, has, showing }) {
  const frame = visibleAt(lod);
  const complete = frame.every((c) => has(lod, c, t));
  /** @type {Need[]} */
  const needs = [];
  // The picture first: the reader holds the frame's requests until it has arrived.
  if (!complete && !showing && picture !== lod) {
    for (const cell of visibleAt(picture)) needs.push({ priority: 'picture', lod: picture, cell, t });
  }
  for (const cell of frame) needs.push({ priority: 'frame', lod, cell, t });
  if (complete) for (const step of stepsAhead(t, direction, nTime)) for (const cell of frame) needs.push({ priority: 'ahead', lod, cell, t: step });
  return needs;
}

/**
 * The timesteps a step from t lands on: the next in the direction of play (wrapping, as playback
 * does), then the one behind (not wrapping).
 * @param {number} t @param {1 | -1} direction @param {number} nTime
 */
export function stepsAhead(t, direction, nTime) {
  const steps = [(t + direction + nTime) % nTime];
  const behind = t - direction;
  if (behind >= 0 && behind < nTime) steps.push(behind);
  return [...new Set(steps)].filter((s) => s !== t);
}

/**
 * The direction of a time change from `from` to `to`: forward when `to` is at most half the loop
 * ahead (so playback wrapping from the last timestep to the first still goes forward).
 * @param {number} from @param {number} to @param {number} nTime @returns {1 | -1}
 */
export function directionOf(from, to, nTime) {
  return (to - from + nTime) % nTime <= nTime / 2 ? 1 : -1;
}

/**
 * What is read ahead into the reader's cache once the frame is complete, behind everything else:
 * the frame's cells at the timesteps around t in windowOrder (the whole loop while playing); null
 * while the frame is not complete or nothing is in view. `key` names the request so that it is
 * asked once: while playing it leaves out the step, so a step of the loop does not start it again.
 * @param {{ lod: number, cells: CellAt[], t: number, playing: boolean, complete: boolean }} view
 * @returns {{ key: string, lod: number, cells: CellAt[], t: number, playing: boolean, priority: 'background' } | null}
 */
export function readAheadRequest({ lod, cells, t, playing, complete }) {
  if (!complete || !cells.length) return null;
  const key = `${lod}|${playing ? 'loop' : t}|${cells.map((c) => `${c.row},${c.col}`).join(';')}`;
  return { key, lod, cells, t, playing, priority: 'background' };
}

/**
 * The level-0 cells a box covers, as a key (the same key: the same history shards), or null when
 * the box misses level 0.
 * @param {Box} box
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

/** @typedef {{ x0: number, y0: number, x1: number, y1: number }} Box a box of level-0 pixels, ends exclusive */
/**
 * A read of history shard indexes under a box (the reader's prefetchHistory): `centre` the one
 * shard nearest the box's centre, else those of the view (`key`: its cells).
 * @typedef {{ centre: true, box: Box, maxShards: 1, priority: 'frame' } | { centre: false, box: Box, key: string, priority: 'background' }} HistoryNeed
 */

/**
 * The history warm-up's reads for a frame just painted (the first click made cheaper: a pixel
 * whose shard index is held reads its history in one range per time block). On the first frame
 * painted (its chunks are asked for by then), the index of the one shard nearest the view's
 * centre, at the frame's rank, behind those chunks; once a complete frame is on screen, the
 * indexes of the other shards under the view at the lowest rank, again when the view covers other
 * level-0 cells. None while playing (the read-ahead of the loop goes first) or on a store without
 * the history array.
 * @param {object} p
 * @param {boolean} p.hasHistory the store has the history array
 * @param {boolean} p.playing playback is on (or buffering the loop)
 * @param {boolean} p.complete the frame painted is complete
 * @param {Box} p.box the level-0 box in view
 * @param {{ width: number, height: number, chunkSize: number }} p.level0
 * @param {boolean} p.centreAsked the centre shard's index was asked for already
 * @param {string} p.asked the key of the view whose indexes were asked for last
 * @returns {HistoryNeed[]}
 */
export function historyPlan({ hasHistory, playing, complete, box, level0, centreAsked, asked }) {
  if (!hasHistory || playing) return [];
  const key = cellsKey(box, level0);
  if (key == null) return [];
  /** @type {HistoryNeed[]} */
  const needs = [];
  if (!centreAsked) needs.push({ centre: true, box, maxShards: 1, priority: 'frame' });
  if (complete && key !== asked) needs.push({ centre: false, box, key, priority: 'background' });
  return needs;
}

/** Reads in flight for one pixel whose history is read date by date. */
const PIXEL_READS = 6;

/**
 * How a picked pixel's history is read. With the store's history array, the level-0 pixel whatever
 * level is drawn, its whole series at once (`whole`: a request or two) and, on a masked store whose
 * history has a mask copy, the validity of every date from that copy beside it (`maskCopy`);
 * else the pixel of the level drawn, date by date, `inFlight` reads at a time (and, over a history
 * without a mask copy, each date's mask so). The reader's cache keeps what a date read brings.
 * @param {{ hasHistory: boolean, hasMask: boolean, hasHistoryMask: boolean }} store
 * @param {{ lod: number, x: number, y: number, x0: number, y0: number }} hit
 *   the level and pixel drawn, the level-0 pixel picked
 * @returns {{ lod: number, x: number, y: number, whole: boolean, maskCopy: boolean, inFlight: number }}
 */
export function pixelHistoryPlan({ hasHistory, hasMask, hasHistoryMask }, hit) {
  const at = hasHistory ? { lod: 0, x: hit.x0, y: hit.y0 } : { lod: hit.lod, x: hit.x, y: hit.y };
  return { ...at, whole: hasHistory, maskCopy: hasHistory && hasMask && hasHistoryMask, inFlight: PIXEL_READS };
}
