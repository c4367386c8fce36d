/**
 * The colours of the products, as data: the index ramps (NDVI, NDWI), the water threshold and the
 * reflectance tone map. The shader's GLSL is generated from these (products.glsl.js) and the
 * legend evaluates the same numbers in JavaScript, so a legend can never disagree with the map.
 * @module
 */

/** @typedef {[number, number, number]} Rgb linear 0..1 components as the shader writes them */
/** @typedef {{ readonly stops: readonly [number, number, number, number], readonly colors: readonly (readonly [number, number, number])[] }} Ramp */

/** Reflectance shown at full brightness by the tone map (square-root response below it). */
export const TONE_WHITE = 0.3;

/** Piecewise-linear index ramps through four stops (flat outside them). */
export const RAMPS = /** @type {const} */ ({
  ndvi: {
    stops: [-0.2, 0.15, 0.45, 0.85],
    colors: [[0.50, 0.40, 0.32], [0.86, 0.80, 0.58], [0.42, 0.68, 0.28], [0.04, 0.33, 0.10]],
  },
  ndwi: {
    stops: [-0.6, -0.1, 0.15, 0.6],
    colors: [[0.40, 0.30, 0.22], [0.88, 0.87, 0.80], [0.45, 0.70, 0.90], [0.05, 0.25, 0.70]],
  },
});

/** The water product: NDWI above `threshold` is water, the rest grey by the NIR tone map times `landGrey`. */
export const WATER = /** @type {const} */ ({ threshold: 0, color: [0.10, 0.42, 0.86], landGrey: 0.55 });

/**
 * The colour of a ramp at x, as the shader computes it.
 * @param {Ramp} ramp
 * @param {number} x
 * @returns {Rgb}
 */
export function rampColor(ramp, x) {
  const p = ramp.stops;
  const c = ramp.colors;
  if (x <= p[0]) return [...c[0]];
  for (let i = 1; i < 4; i++) {
    if (x <= p[i]) {
      const f = (x - p[i - 1]) / (p[i] - p[i - 1]);
      return /** @type {Rgb} */ (c[i].map((v, k) => c[i - 1][k] + (v - c[i - 1][k]) * f));
    }
  }
  return [...c[3]];
}

/**
 * Tone-mapped brightness of a reflectance (0..1), black at `lo` (the shader's czTone).
 * @param {number} r @param {number} [lo]
 */
export const toneValue = (r, lo = 0) => Math.sqrt(Math.min(1, Math.max(0, (r - lo) / (TONE_WHITE - lo))));

/** A GLSL float literal. @param {number} v */
export const glslFloat = (v) => (Number.isInteger(v) ? v.toFixed(1) : String(v));

const vec3 = (/** @type {readonly number[]} */ c) => `vec3(${c.map(glslFloat).join(', ')})`;

/**
 * `vec3 <name>(float i)` colouring an index with a ramp (czRamp of PRODUCT_GLSL).
 * @param {string} name
 * @param {Ramp} ramp
 */
export function rampGlsl(name, ramp) {
  return `vec3 ${name}(float i) {
  return czRamp(i, vec4(${ramp.stops.map(glslFloat).join(', ')}),
    ${ramp.colors.map(vec3).join(', ')});
}`;
}

/** The water colour and threshold as GLSL (`czWater(index, nir)`). */
export function waterGlsl() {
  return `vec3 czWater(float i, float nir) {
  if (i > ${glslFloat(WATER.threshold)}) return ${vec3(WATER.color)};
  return vec3(${glslFloat(WATER.landGrey)}) * czTone(vec3(nir)).x;
}`;
}
