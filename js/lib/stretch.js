/**
 * The linear stretch of a single band or of non-reflectance bands: 2nd to 98th percentile of the
 * valid values on screen, and their extent (for the legend's bar).
 * @module
 */

/**
 * @param {Float64Array} values
 * @param {number} [lo] fraction, 0.02
 * @param {number} [hi] fraction, 0.98
 * @returns {[number, number] | null} null when there is no valid value
 */
export function percentileRange(values, lo = 0.02, hi = 0.98) {
  if (!values.length) return null;
  const sorted = Float64Array.from(values).sort();
  const at = (/** @type {number} */ f) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(f * (sorted.length - 1))))];
  let a = at(lo);
  let b = at(hi);
  if (b <= a) {
    // A flat view: widen around the value so it draws mid-grey rather than a step.
    const pad = Math.abs(a) > 0 ? Math.abs(a) * 0.5 : 1;
    a -= pad;
    b += pad;
  }
  return [a, b];
}

/**
 * The automatic stretch and the extent of the values (null when there is none).
 * @param {Float64Array} values
 * @returns {{ range: [number, number], extent: [number, number] } | null}
 */
export function stretchStats(values) {
  const range = percentileRange(values);
  if (!range) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return { range, extent: [lo, hi] };
}
