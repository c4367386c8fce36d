/**
 * The order in which timesteps are visited around the current one, and what a timestep costs to
 * hold: the reader's prefetch walks them so, and the load plan (lib/load-plan.js) applies the same
 * order to the viewer's and the layer's read-ahead. Kept in the reader because the reader, which
 * runs without the page, must not import the page's modules (js/test/layers.test.js).
 * @module
 */

/**
 * Timesteps to prefetch around `t`. Idle: `t` (after its anchor, for a delta), then the anchors
 * within `horizonSteps` either side, nearest first, then the other timesteps there, nearest first
 * (forward before backward at equal distance): once the anchors are resident every timestep costs
 * one read. Playing: the whole loop in play order from `t`, each delta's anchor just before it.
 * @param {number} t
 * @param {number} nTime
 * @param {{ horizonSteps?: number, playing?: boolean, reference?: (t: number) => number | null }} [options]
 *   reference: the anchor a timestep decodes through, or null for true values (none, anchors).
 * @returns {number[]}
 */
export function windowOrder(t, nTime, { horizonSteps = 12, playing = false, reference = () => null } = {}) {
  if (!(nTime > 0)) return [];
  t = Math.min(Math.max(0, Math.trunc(t)), nTime - 1);
  /** @type {number[]} */
  const out = [];
  /** @type {Set<number>} */
  const seen = new Set();
  /** @param {number} step */
  const push = (step) => {
    if (!seen.has(step)) {
      seen.add(step);
      out.push(step);
    }
  };
  /** @param {number} step */
  const withAnchor = (step) => {
    const anchor = reference(step);
    if (anchor != null) push(anchor);
    push(step);
  };
  if (playing) {
    for (let d = 0; d < nTime; d++) withAnchor((t + d) % nTime);
    return out;
  }
  const around = [t];
  for (let d = 1; d <= horizonSteps; d++) {
    if (t + d < nTime) around.push(t + d);
    if (t - d >= 0) around.push(t - d);
  }
  withAnchor(t);
  const anchors = new Set(around.map((s) => reference(s)).filter((a) => a != null));
  for (const step of around) if (reference(step) == null && anchors.has(step)) push(step);
  for (const step of around) {
    const anchor = reference(step);
    if (anchor != null && anchors.has(anchor)) push(anchor);
  }
  for (const step of around) push(step);
  return out;
}

/**
 * What it costs to hold or fetch the timestep `dt` steps from the one on screen while scrubbing in
 * `direction` (+1 forward, -1 back): its distance, times `behindFactor` when it lies behind (the
 * scrub moves away from it). With `period` (a looping play of that many timesteps) time is a
 * circle: a step behind is also the rest of the loop ahead, whichever is cheaper.
 * @param {number} dt signed distance in timesteps
 * @param {number} [direction]
 * @param {number} [behindFactor]
 * @param {number | null} [period]
 */
export function scrubCost(dt, direction = 1, behindFactor = 2, period = null) {
  const ahead = Math.sign(direction) * dt;
  if (period == null) return ahead >= 0 ? ahead : -ahead * behindFactor;
  const forward = ahead - period * Math.floor(ahead / period); // 0 .. period - 1 steps ahead round the loop
  return Math.min(forward, (period - forward) * behindFactor);
}
