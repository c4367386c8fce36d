/**
 * Round numbers for axes, legends and the scale bar: steps of 1, 2 or 5 times a power of ten.
 * @module
 */

/**
 * The largest 1, 2 or 5 x 10^k not above `v` (v > 0).
 * @param {number} v
 */
export function niceFloor(v) {
  const p = 10 ** Math.floor(Math.log10(v));
  const m = v / p;
  // A tiny tolerance: 0.3 / 0.1 is 2.9999999999999996 and must count as 3 (then 2).
  const f = m >= 5 - 1e-9 ? 5 : m >= 2 - 1e-9 ? 2 : 1;
  return Number((f * p).toPrecision(12));
}

/** The smallest 1, 2 or 5 x 10^k not below `v` (v > 0). @param {number} v */
export function niceCeil(v) {
  const f = niceFloor(v);
  if (f >= v * (1 - 1e-9)) return f;
  const m = Math.round(f / 10 ** Math.floor(Math.log10(f)));
  return Number((f * (m === 2 ? 2.5 : 2)).toPrecision(12));
}

/**
 * Evenly spaced round values inside [lo, hi]: about `count` of them, at least three where a round
 * step allows.
 * @param {number} lo
 * @param {number} hi
 * @param {number} [count]
 * @returns {number[]}
 */
export function ticks(lo, hi, count = 5) {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return Number.isFinite(lo) ? [lo] : [];
  const raw = (hi - lo) / Math.max(1, count - 1);
  // The round step above the even spacing, unless that leaves fewer than three ticks.
  const within = (/** @type {number} */ s) => Math.floor(hi / s + 1e-9) - Math.ceil(lo / s - 1e-9) + 1;
  const step = within(niceCeil(raw)) >= Math.min(3, count) ? niceCeil(raw) : niceFloor(raw);
  const first = Math.ceil(lo / step - 1e-9);
  const last = Math.floor(hi / step + 1e-9);
  const out = [];
  // Rounded to the step's decimals, so 0.1 * 3 is written 0.3.
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  for (let i = first; i <= last; i++) out.push(Number((i * step).toFixed(Math.min(20, decimals))));
  return out;
}

/**
 * A number for a label: at most `digits` significant digits, no trailing zeros, -0 as 0.
 * @param {number} v
 * @param {number} [digits]
 */
export function formatTick(v, digits = 4) {
  if (!Number.isFinite(v)) return String(v);
  const s = String(Number(v.toPrecision(digits)));
  return s === '-0' ? '0' : s;
}
