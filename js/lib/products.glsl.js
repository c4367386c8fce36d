/**
 * Product colours as one GLSL ES 3.00 source, shared by the viewer and the MapLibre layer.
 *
 * The host shader fetches the product's bands, applies validity, scale and offset, and calls
 * `czProductColor(product, display, v, range)` with the physical values `v` in the product's band
 * order (see `PRODUCT_BANDS` in products.js):
 *   true_color (red, green, blue), false_color (nir, red, green), ndvi (nir, red), ndwi (green, nir),
 *   water (green, nir), band (the band).
 * `display` chooses how values become brightness: reflectance tone mapping, a linear stretch over
 * `range` (physical units), or 8-bit values shown as stored (value / 255).
 * `CZ_RECONSTRUCT_GLSL` is the star-delta modular add for a host that uploads stored anchors and
 * residuals as integer textures (the viewer does, for uint8 and uint16 star-delta stores): the true
 * value is `czReconstruct(anchor, residual, bits)`, exact, before validity, scale and product math.
 * `valuesGlsl` is the part both hosts share before the colour: the chunk's textures and the
 * `czValues(texel, out v)` that reads the product's bands there and says whether the pixel is valid.
 * @module
 */

import { RAMPS, TONE_WHITE, glslFloat, rampGlsl, waterGlsl } from './ramps.js';

/** Product ids as the shader numbers them. */
export const PRODUCT_CODES = /** @type {const} */ ({ true_color: 0, false_color: 1, ndvi: 2, ndwi: 3, water: 4, band: 5 });

/** Display modes as the shader numbers them. */
export const DISPLAY_CODES = /** @type {const} */ ({ reflectance: 0, linear: 1, stored8: 2 });

export const PRODUCT_GLSL = /* glsl */ `
// Reflectance to display brightness: black at lo, white point TONE_WHITE, square-root response.
vec3 czToneFrom(vec3 r, float lo) {
  return sqrt(clamp((r - lo) / (${glslFloat(TONE_WHITE)} - lo), 0.0, 1.0));
}

vec3 czTone(vec3 r) {
  return czToneFrom(r, 0.0);
}

vec3 czLinear(vec3 v, vec2 range) {
  float span = range.y - range.x;
  return span > 0.0 ? clamp((v - range.x) / span, 0.0, 1.0) : vec3(step(range.x, v));
}

vec3 czBrightness(int display, vec3 v, vec2 range) {
  if (display == 0) return czToneFrom(v, range.x); // lookFor: range is [black point, TONE_WHITE]
  if (display == 2) return clamp(v / 255.0, 0.0, 1.0);
  return czLinear(v, range);
}

float czIndex(float a, float b) {
  float s = a + b;
  return s == 0.0 ? 0.0 : clamp((a - b) / s, -1.0, 1.0);
}

// Piecewise-linear ramp through four stops at positions p.
vec3 czRamp(float x, vec4 p, vec3 c0, vec3 c1, vec3 c2, vec3 c3) {
  if (x <= p.x) return c0;
  if (x <= p.y) return mix(c0, c1, (x - p.x) / (p.y - p.x));
  if (x <= p.z) return mix(c1, c2, (x - p.y) / (p.z - p.y));
  if (x <= p.w) return mix(c2, c3, (x - p.z) / (p.w - p.z));
  return c3;
}

${rampGlsl('czNdviColor', RAMPS.ndvi)}

${rampGlsl('czNdwiColor', RAMPS.ndwi)}

${waterGlsl()}

vec3 czProductColor(int product, int display, vec3 v, vec2 range) {
  if (product == 0 || product == 1) return czBrightness(display, v, range);
  if (product == 2) return czNdviColor(czIndex(v.x, v.y));
  if (product == 3) return czNdwiColor(czIndex(v.x, v.y));
  if (product == 4) return czWater(czIndex(v.x, v.y), v.y);
  return vec3(czBrightness(display, vec3(v.x), range).x);
}
`;

export const CZ_RECONSTRUCT_GLSL = /* glsl */ `
// Star-delta (spec 4.2): anchor + residual modulo 2^bits of the stored type (8 or 16), no clamp.
uint czReconstruct(uint anchor, uint residual, uint bits) {
  return (anchor + residual) & ((1u << bits) - 1u);
}
`;

/**
 * Uniforms for a chunk's data (and anchor, mask) textures and `bool czValues(ivec2 p, out vec3 v)`:
 * the physical values of the product's bands at texel p, false where the mask or nodata says invalid.
 * @param {string} sampler the data texture's sampler type
 * @param {number} [bits] bits of an unsigned stored type: residuals are reconstructed against uAnchor
 */
export const valuesGlsl = (sampler, bits) => /* glsl */ `
uniform ${sampler} uData;
uniform usampler2D uMask;
uniform bool uHasMask;
uniform bool uHasNodata;
uniform float uNodata;
uniform ivec3 uBands;       // band layers feeding the product, -1 unused
uniform vec3 uScale;
uniform vec3 uOffset;
${bits ? `${CZ_RECONSTRUCT_GLSL}
uniform ${sampler} uAnchor;
uniform bool uDelta;        // uData holds residuals against uAnchor
float czStored(ivec3 q) {
  uint r = texelFetch(uData, q, 0).r;
  return float(uDelta ? czReconstruct(texelFetch(uAnchor, q, 0).r, r, ${bits}u) : r);
}` : `float czStored(ivec3 q) {
  return float(texelFetch(uData, q, 0).r);
}`}
bool czValues(ivec2 p, out vec3 v) {
  bool valid = !uHasMask || texelFetch(uMask, p, 0).r != 0u;
  v = vec3(0.0);
  for (int i = 0; i < 3; i++) {
    int b = uBands[i];
    if (b < 0) continue;
    float raw = czStored(ivec3(p, b));
    if (!uHasMask && uHasNodata && raw == uNodata) valid = false;
    v[i] = raw * uScale[i] + uOffset[i];
  }
  return valid;
}
`;
