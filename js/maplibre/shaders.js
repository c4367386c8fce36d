/**
 * The layer's GLSL: a vertex shader that places a cell mesh with MapLibre's mercator-to-clip
 * matrix, and a fragment shader that finds the level-0 pixel under its centre (the interpolated
 * one, corrected for the GPU's snapping of vertices: unproject.js), draws only inside the cell's
 * part of the footprint, reads the chunk's integer (or float) texture with texelFetch,
 * reconstructs star-delta residuals, applies validity, scale and offset, and colours the product
 * with the viewer's shared GLSL (products.glsl.js). Invalid pixels are discarded: the map shows
 * through them.
 * @module
 */
import { PRODUCT_GLSL, valuesGlsl } from '../lib/products.glsl.js';

/** Attribute locations, bound before linking. */
export const A_MERC = 0;
export const A_PIX = 1;

export const VERTEX = `#version 300 es
in vec2 aMerc;        // mercator offset from the mesh centre (float32 stays exact at street zooms)
in vec2 aPix;         // level-0 pixels from the chunk's top-left corner
uniform mat4 uMatrix; // MapLibre's mainMatrix times the translation to the mesh centre, made in float64
out vec2 vPix;
out vec2 vMerc;
void main() {
  vPix = aPix;
  vMerc = aMerc;
  gl_Position = uMatrix * vec4(aMerc, 0.0, 1.0);
}`;

/**
 * @param {string} sampler the data texture's sampler type
 * @param {number} [bits] bits of an unsigned stored type: the shader can add star-delta residuals
 */
export const fragmentShader = (sampler, bits) => `#version 300 es
precision highp float;
precision highp int;
precision highp ${sampler};
precision highp usampler2D;
uniform float uLevelScale;  // level-0 pixels per texel of the drawn level
uniform ivec2 uSize;        // texels of the chunk inside its level
uniform int uProduct;
uniform int uDisplay;
uniform vec2 uRange;
uniform float uOpacity;
uniform mat3 uScreenToMesh; // window pixels to mercator offsets from the mesh centre (unproject.js)
uniform vec2 uRectSize;     // level-0 pixels of the cell's part of the footprint, from its corner
in vec2 vPix;
in vec2 vMerc;
out vec4 outColor;
${PRODUCT_GLSL}
${valuesGlsl(sampler, bits)}
// The level-0 pixel under this fragment's centre. vPix and vMerc were interpolated from the
// snapped triangle, a matching pair on the triangle's affine pixel-to-mercator map; moving vPix by
// that map (dp dm^-1) from vMerc to the mercator point truly under the centre undoes the snapping.
void main() {
  vec3 h = uScreenToMesh * vec3(gl_FragCoord.xy, 1.0);
  mat2 dm = mat2(dFdx(vMerc), dFdy(vMerc));
  mat2 dp = mat2(dFdx(vPix), dFdy(vPix));
  vec2 pix = determinant(dm) == 0.0 || h.z == 0.0 ? vPix : vPix + dp * inverse(dm) * (h.xy / h.z - vMerc);
  // The mesh reaches a texel beyond the part it draws, so that a snapped edge never leaves a pixel
  // of it out; what lies beyond is the neighbour cell's, or outside the footprint. Neighbours
  // overlap by 1/1000 px, so that float rounding never leaves a pixel on a seam to neither.
  vec2 tol = 1e-3 * (abs(dp[0]) + abs(dp[1]));
  if (any(lessThan(pix, -tol)) || any(greaterThanEqual(pix, uRectSize + tol))) discard;
  ivec2 p = clamp(ivec2(floor(pix / uLevelScale)), ivec2(0), uSize - 1);
  vec3 v;
  if (!czValues(p, v)) discard;
  // MapLibre blends premultiplied colours.
  outColor = vec4(czProductColor(uProduct, uDisplay, v, uRange) * uOpacity, uOpacity);
}`;
