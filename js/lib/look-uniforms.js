/**
 * Setting the uniforms of the shared product GLSL (products.glsl.js `valuesGlsl` and
 * `czProductColor`) from a look (products.js `lookFor`): one place for the viewer and the MapLibre layer.
 * @module
 */

/**
 * Texture units 0 (data), 1 (mask), 2 (anchor), validity, band selection, scale, offset, product,
 * display and range. The program must be in use.
 * @param {WebGL2RenderingContext} gl
 * @param {Record<string, WebGLUniformLocation | null>} loc the program's uniform locations by name
 * @param {import('./typedefs.js').Look} look
 */
export function setLookUniforms(gl, loc, look) {
  gl.uniform1i(loc.uData, 0);
  gl.uniform1i(loc.uMask, 1);
  if (loc.uAnchor) gl.uniform1i(loc.uAnchor, 2);
  gl.uniform1i(loc.uHasMask, look.hasMask ? 1 : 0);
  gl.uniform1i(loc.uHasNodata, look.nodata == null ? 0 : 1);
  gl.uniform1f(loc.uNodata, look.nodata ?? 0);
  gl.uniform3i(loc.uBands, look.bands[0], look.bands[1], look.bands[2]);
  gl.uniform3f(loc.uScale, look.scale[0], look.scale[1], look.scale[2]);
  gl.uniform3f(loc.uOffset, look.offset[0], look.offset[1], look.offset[2]);
  gl.uniform1i(loc.uProduct, look.product);
  gl.uniform1i(loc.uDisplay, look.display);
  gl.uniform2f(loc.uRange, look.range[0], look.range[1]);
}
