/**
 * The WebGL2 texture format of each stored dtype: integer textures for integers (the shader reads
 * exact stored values with texelFetch), R32F for float32. `bits` is set for the unsigned types whose
 * star-delta residuals the shader can add (spec 4.2); `empty` makes a typed array of the type.
 * @module
 */
export const FORMATS = /** @type {const} */ ({
  uint8: { internal: 'R8UI', format: 'RED_INTEGER', type: 'UNSIGNED_BYTE', sampler: 'usampler2DArray', bits: 8, empty: Uint8Array },
  uint16: { internal: 'R16UI', format: 'RED_INTEGER', type: 'UNSIGNED_SHORT', sampler: 'usampler2DArray', bits: 16, empty: Uint16Array },
  int16: { internal: 'R16I', format: 'RED_INTEGER', type: 'SHORT', sampler: 'isampler2DArray', bits: 0, empty: Int16Array },
  float32: { internal: 'R32F', format: 'RED', type: 'FLOAT', sampler: 'sampler2DArray', bits: 0, empty: Float32Array },
});

/** @typedef {typeof FORMATS[keyof typeof FORMATS]} Format */

/** The texture format of a data type, or null for one no texture holds. @param {string} dtype @returns {Format | null} */
export const formatOf = (dtype) => (Object.hasOwn(FORMATS, dtype) ? FORMATS[/** @type {keyof typeof FORMATS} */ (dtype)] : null);

/** The texture format of a data type the GPU side is asked to draw. @param {string} dtype @returns {Format} */
export function textureFormat(dtype) {
  const fmt = formatOf(dtype);
  if (!fmt) throw new Error(`no texture format for data_type ${dtype}`);
  return fmt;
}
