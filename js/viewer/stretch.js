/**
 * The linear stretch of non-reflectance bands: 2nd to 98th percentile of the valid values on screen.
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
  const at = (f) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(f * (sorted.length - 1))))];
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
