/**
 * What a view loads, in the order it should arrive, each with what it is for (the reader's
 * priority, src/reader/limiter.js): while the view shows nothing at the asked timestep, a coarse
 * picture of it (camera.js pictureLevel); the asked level's cells at the asked timestep (the frame);
 * once the frame is complete, the same cells one step either side, the direction of play first.
 * The scene loads these onto the GPU; everything past them is read ahead into the reader's cache
 * (readAheadRequest). The viewer's first reads and the MapLibre layer follow the same plan.
 * @module
 */

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
