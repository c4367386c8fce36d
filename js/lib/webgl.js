/**
 * The WebGL2 pieces the viewer's renderer and the MapLibre layer's GPU side both need: chunk
 * textures in the stored type (read with texelFetch, never filtered), mask textures, and a program
 * compiled without waiting for the driver, whose link status is checked only when first used.
 * @module
 */

/** @typedef {import('./formats.js').Format} Format */

/**
 * Nearest texels, clamped at the edges: the shader fetches exact values.
 * @param {WebGL2RenderingContext} gl @param {number} target
 */
export function textureParams(gl, target) {
  gl.texParameteri(target, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(target, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texParameteri(target, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(target, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
}

/**
 * A mask ([y][x], 1 = valid) as an R8UI texture.
 * @param {WebGL2RenderingContext} gl @param {ArrayBufferView} mask @param {number} width @param {number} height
 */
export function maskTexture(gl, mask, width, height) {
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  textureParams(gl, gl.TEXTURE_2D);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.R8UI, width, height, 0, gl.RED_INTEGER, gl.UNSIGNED_BYTE, mask);
  return tex;
}

/**
 * A chunk's bands ([band][y][x]) as one 2D array texture in the stored type, one layer per band.
 * @param {WebGL2RenderingContext} gl @param {Format} fmt @param {number} layers
 * @param {ArrayBufferView} data @param {number} width @param {number} height
 */
export function dataTexture(gl, fmt, layers, data, width, height) {
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D_ARRAY, tex);
  textureParams(gl, gl.TEXTURE_2D_ARRAY);
  gl.texImage3D(gl.TEXTURE_2D_ARRAY, 0, gl[fmt.internal], width, height, layers, 0, gl[fmt.format], gl[fmt.type], data);
  return tex;
}

/**
 * Compile and link without waiting for the result (see `uniformLocations`), with the attribute
 * locations bound before linking so that no query is needed.
 * @param {WebGL2RenderingContext} gl @param {string} vertex @param {string} fragment
 * @param {Record<string, number>} attributes location of each attribute by name
 */
export function compileProgram(gl, vertex, fragment, attributes) {
  const program = /** @type {WebGLProgram} */ (gl.createProgram());
  for (const [type, src] of /** @type {const} */ ([[gl.VERTEX_SHADER, vertex], [gl.FRAGMENT_SHADER, fragment]])) {
    const shader = /** @type {WebGLShader} */ (gl.createShader(type));
    gl.shaderSource(shader, src);
    gl.compileShader(shader);
    gl.attachShader(program, shader);
  }
  for (const [name, at] of Object.entries(attributes)) gl.bindAttribLocation(program, at, name);
  gl.linkProgram(program);
  return program;
}

/**
 * The program's uniform locations by name, once it is known to have linked (this waits for the
 * driver); throws the compiler's or linker's message, after `label`, when it did not.
 * @param {WebGL2RenderingContext} gl @param {WebGLProgram} program @param {string} label
 * @returns {Record<string, WebGLUniformLocation | null>}
 */
export function uniformLocations(gl, program, label) {
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
    const logs = (gl.getAttachedShaders(program) ?? []).map((shader) => gl.getShaderInfoLog(shader)).filter(Boolean);
    throw new Error(`${label}: ${[gl.getProgramInfoLog(program), ...logs].filter(Boolean).join('; ')}`);
  }
  /** @type {Record<string, WebGLUniformLocation | null>} */
  const loc = {};
  const count = gl.getProgramParameter(program, gl.ACTIVE_UNIFORMS);
  for (let i = 0; i < count; i++) {
    const name = /** @type {WebGLActiveInfo} */ (gl.getActiveUniform(program, i)).name.replace(/\[0\]$/, '');
    loc[name] = gl.getUniformLocation(program, name);
  }
  return loc;
}
