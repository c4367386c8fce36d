/**
 * The layer's GLSL: a vertex shader that places a cell mesh with MapLibre's mercator-to-clip
 * matrix, and a fragment shader that reads the chunk's integer (or float) texture with texelFetch,
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
void main() {
  vPix = aPix;
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
in vec2 vPix;
out vec4 outColor;
${PRODUCT_GLSL}
${valuesGlsl(sampler, bits)}
void main() {
  ivec2 p = clamp(ivec2(floor(vPix / uLevelScale)), ivec2(0), uSize - 1);
  vec3 v;
  if (!czValues(p, v)) discard;
  // MapLibre blends premultiplied colours.
  outColor = vec4(czProductColor(uProduct, uDisplay, v, uRange) * uOpacity, uOpacity);
}`;
