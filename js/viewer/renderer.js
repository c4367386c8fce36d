/**
 * WebGL2 drawing of chunks: each chunk is a 2D array texture (one layer per band) in the stored
 * dtype (R8UI, R16UI, R16I or R32F), read with texelFetch, so the shader sees exact stored values.
 * For a uint8/uint16 star-delta store the scene hands over stored chunks: a delta timestep's
 * residual texture is drawn with its cell's anchor texture bound too, and the shader reconstructs
 * (anchor + residual) mod 2^bits (products.glsl.js) before validity, scale, offset and the product
 * band math. Otherwise the chunks are true values.
 * @module
 */
import { formatOf, textureFormat } from '../lib/formats.js';
import { setLookUniforms } from '../lib/look-uniforms.js';
import { PRODUCT_GLSL, valuesGlsl } from '../lib/products.glsl.js';
import { compileProgram, dataTexture as layeredTexture, maskTexture, uniformLocations } from '../lib/webgl.js';

/** The background colour of invalid pixels and empty canvas, in 8-bit sRGB. */
export const BACKGROUND = /** @type {const} */ ([9, 12, 18]);

const VERTEX = `#version 300 es
in vec2 aPos;
uniform vec4 uRect;    // x0, y0, x1, y1 in level-0 pixels
uniform vec3 uView;    // centre x, centre y (level-0 pixels), zoom (CSS px per level-0 px)
uniform vec2 uCanvas;  // CSS pixels
out vec2 vPos;
void main() {
  vec2 p = mix(uRect.xy, uRect.zw, aPos);
  vPos = p;
  vec2 s = (p - uView.xy) * uView.z;
  gl_Position = vec4(2.0 * s.x / uCanvas.x, -2.0 * s.y / uCanvas.y, 0.0, 1.0);
}`;

/** @param {string} sampler @param {number} [bits] stored bits of an unsigned type (star-delta capable) */
const fragment = (sampler, bits) => `#version 300 es
precision highp float;
precision highp int;
precision highp ${sampler};
precision highp usampler2D;
uniform float uLevelScale;  // level-0 pixels per texel of the drawn level
uniform ivec2 uOrigin;      // texel of the chunk's top-left corner in its level
uniform ivec2 uSize;        // texels of the chunk inside the level
uniform int uProduct;
uniform int uDisplay;
uniform vec2 uRange;
uniform vec3 uBackground;
in vec2 vPos;
out vec4 outColor;
${PRODUCT_GLSL}
${valuesGlsl(sampler, bits)}
void main() {
  ivec2 p = clamp(ivec2(floor(vPos / uLevelScale)) - uOrigin, ivec2(0), uSize - 1);
  vec3 v;
  bool valid = czValues(p, v);
  outColor = valid ? vec4(czProductColor(uProduct, uDisplay, v, uRange), 1.0) : vec4(uBackground, 1.0);
}`;

/** @typedef {import('../lib/typedefs.js').Renderer<WebGLTexture>} ViewerRenderer */

/** Whether the renderer draws star-delta chunks of this dtype from stored anchors and residuals. @param {string} dtype */
export const shaderDeltaFor = (dtype) => Boolean(formatOf(dtype)?.bits);

/**
 * The canvas' CSS box and device pixel ratio (what resize returns), without touching the canvas.
 * @param {HTMLCanvasElement} canvas
 */
export function cssSize(canvas) {
  return { w: Math.max(1, canvas.clientWidth), h: Math.max(1, canvas.clientHeight), dpr: window.devicePixelRatio || 1 };
}

/**
 * The canvas' WebGL2 context (null without WebGL2), its drawing buffer sized to the canvas. Creating
 * it is the slowest step of a first frame on some machines (a new page's GPU channel; software GL),
 * and this thread waits for it: the viewer makes it once the first view's reads are on the wire,
 * and after the bar has its final content, so that the buffer is not resized (another wait) later.
 * @param {HTMLCanvasElement} canvas
 * @returns {WebGL2RenderingContext | null}
 */
function acquireContext(canvas) {
  const gl = canvas.getContext('webgl2', { antialias: false, preserveDrawingBuffer: true, premultipliedAlpha: false, alpha: false });
  fitCanvas(canvas);
  return gl;
}

/**
 * Size the drawing buffer to the canvas' CSS box in device pixels. Done before the shaders are
 * queued: a resize after them waits, on this thread, for the GPU process to get through them.
 * @param {HTMLCanvasElement} canvas
 */
function fitCanvas(canvas) {
  const size = cssSize(canvas);
  const bw = Math.round(size.w * size.dpr);
  const bh = Math.round(size.h * size.dpr);
  if (canvas.width !== bw || canvas.height !== bh) {
    canvas.width = bw;
    canvas.height = bh;
  }
  return size;
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {{ dtype: string, nBands: number }} store
 */
export function createRenderer(canvas, { dtype, nBands }) {
  const gl = acquireContext(canvas);
  if (!gl) throw new Error('this browser has no WebGL2, which the viewer needs');
  const fmt = textureFormat(dtype);
  const program = createProgram(gl, fmt);
  const vao = createQuad(gl);
  const textures = createTextures(gl, fmt, nBands);
  const { begin, draw } = createDrawing({ gl, canvas, program, vao, textures });

  /** @satisfies {ViewerRenderer} */
  const renderer = {
    ready: program.ready,
    upload: textures.upload,
    dataTexture: textures.dataTexture,
    deleteTexture: (tex) => gl.deleteTexture(tex),
    /** Size the drawing buffer to the canvas' CSS box; returns the CSS size. */
    resize: () => fitCanvas(canvas),
    begin,
    draw,
    release: textures.release,
    shaderDelta: Boolean(fmt.bits),
  };
  return { ...renderer, gl, readPixel: (/** @type {number} */ x, /** @type {number} */ y) => readPixel(gl, canvas, x, y) };
}

/**
 * The chunk program, compiled and linked in the GPU process while the first chunks load: nothing
 * here waits for it (no status or location query) until the first frame needs it.
 * @param {WebGL2RenderingContext} gl @param {import('../lib/formats.js').Format} fmt
 */
function createProgram(gl, fmt) {
  const program = compileProgram(gl, VERTEX, fragment(fmt.sampler, fmt.bits), { aPos: A_POS });
  /** @type {Record<string, WebGLUniformLocation | null> | null} */
  let loc = null;
  const parallel = gl.getExtension('KHR_parallel_shader_compile');
  return {
    program,
    /** False while the GPU still compiles the program (where the driver can say so without waiting). */
    ready: () => Boolean(loc) || !parallel || gl.getProgramParameter(program, parallel.COMPLETION_STATUS_KHR),
    /** Uniform locations, once the program is known to have linked (the first frame waits for that here). */
    uniforms() {
      loc ??= uniformLocations(gl, program, 'shader program');
      return loc;
    },
  };
}

/**
 * The unit square every chunk is drawn on (its corners at A_POS), bound as the vertex array, with
 * rows of texels unpadded for every upload after it.
 * @param {WebGL2RenderingContext} gl
 */
function createQuad(gl) {
  const quad = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, quad);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([0, 0, 1, 0, 0, 1, 1, 1]), gl.STATIC_DRAW);
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  gl.enableVertexAttribArray(A_POS);
  gl.vertexAttribPointer(A_POS, 2, gl.FLOAT, false, 0, 0);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  return vao;
}

/**
 * Chunks' textures in the stored type, and the stand-ins bound where a chunk has no mask or no
 * anchor.
 * @param {WebGL2RenderingContext} gl @param {import('../lib/formats.js').Format} fmt @param {number} nBands
 */
function createTextures(gl, fmt, nBands) {
  const noMask = maskTexture(gl, new Uint8Array([1]), 1, 1);
  // Bound to the anchor unit when a chunk holds true values, so that sampler always has a texture of its type.
  const noAnchor = fmt.bits ? layeredTexture(gl, fmt, 1, new fmt.empty(1), 1, 1) : null;
  /**
   * A chunk's bands as one integer (or float) 2D array texture in the stored type.
   * @param {ArrayBufferView} data @param {number} width @param {number} height
   */
  const dataTexture = (data, width, height) => layeredTexture(gl, fmt, nBands, data, width, height);
  return {
    noMask,
    noAnchor,
    dataTexture,
    /**
     * Upload one chunk (data [band][y][x] over the padded chunk) and its mask.
     * @param {ArrayBufferView | null} data
     * @param {Uint8Array | null} mask
     * @param {number} width chunk width (padded)
     * @param {number} height chunk height (padded)
     * @returns {import('../lib/typedefs.js').ChunkTextures<WebGLTexture>}
     */
    upload(data, mask, width, height) {
      const tex = data ? dataTexture(data, width, height) : null;
      const maskTex = mask ? maskTexture(gl, mask, width, height) : null;
      return { tex, maskTex, anchorTex: null, bytes: (data ? data.byteLength : 0) + (mask ? mask.byteLength : 0) };
    },
    /** @param {{ tex: WebGLTexture | null, maskTex: WebGLTexture | null }} gpu the textures upload made (not a shared anchor) */
    release(gpu) {
      if (gpu.tex) gl.deleteTexture(gpu.tex);
      if (gpu.maskTex) gl.deleteTexture(gpu.maskTex);
    },
  };
}

/**
 * A frame's drawing: begin clears it and sets what every chunk shares, draw draws one chunk.
 * @param {object} o
 * @param {WebGL2RenderingContext} o.gl
 * @param {HTMLCanvasElement} o.canvas
 * @param {ReturnType<typeof createProgram>} o.program
 * @param {WebGLVertexArrayObject | null} o.vao
 * @param {Pick<ReturnType<typeof createTextures>, 'noMask' | 'noAnchor'>} o.textures
 */
function createDrawing({ gl, canvas, program, vao, textures: { noMask, noAnchor } }) {
  const bg = BACKGROUND.map((c) => c / 255);
  return {
    /**
     * Start a frame: clear to the background and set the per-frame uniforms.
     * @param {import('../lib/typedefs.js').Camera} cam
     * @param {import('../lib/typedefs.js').Size} size
     * @param {import('../lib/typedefs.js').Look} look
     * @param {{ x0: number, x1: number } | null} [clip] columns to clear and draw (CSS px), else all
     */
    begin(cam, size, look, clip = null) {
      const loc = program.uniforms();
      gl.viewport(0, 0, canvas.width, canvas.height);
      scissor(gl, canvas, size, clip);
      gl.clearColor(bg[0], bg[1], bg[2], 1);
      gl.clear(gl.COLOR_BUFFER_BIT);
      gl.useProgram(program.program);
      gl.bindVertexArray(vao);
      gl.uniform3f(loc.uView, cam.cx, cam.cy, cam.zoom);
      gl.uniform2f(loc.uCanvas, size.w, size.h);
      setLookUniforms(gl, loc, look);
      gl.uniform3f(loc.uBackground, bg[0], bg[1], bg[2]);
    },
    /**
     * Draw one chunk of level k over its footprint, clipped to the level-0 raster.
     * @param {import('../lib/typedefs.js').ChunkTextures<WebGLTexture>} gpu
     *   anchorTex set: tex holds star-delta residuals against it
     * @param {number} k level
     * @param {import('../lib/typedefs.js').Rect} rect level-0 pixels
     * @param {[number, number]} origin texel of the chunk's corner in level k
     * @param {[number, number]} size texels of the chunk inside level k
     */
    draw(gpu, k, rect, origin, size) {
      const loc = program.uniforms(); // known since begin
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D_ARRAY, gpu.tex);
      gl.activeTexture(gl.TEXTURE1);
      gl.bindTexture(gl.TEXTURE_2D, gpu.maskTex ?? noMask);
      if (noAnchor) {
        gl.activeTexture(gl.TEXTURE2);
        gl.bindTexture(gl.TEXTURE_2D_ARRAY, gpu.anchorTex ?? noAnchor);
        gl.uniform1i(loc.uDelta, gpu.anchorTex ? 1 : 0);
      }
      gl.uniform1f(loc.uLevelScale, 2 ** k);
      gl.uniform2i(loc.uOrigin, origin[0], origin[1]);
      gl.uniform2i(loc.uSize, size[0], size[1]);
      gl.uniform4f(loc.uRect, rect.x0, rect.y0, rect.x1, rect.y1);
      gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
    },
  };
}

/**
 * Clear and draw only the columns `clip` names (CSS px; the split view's side), or everywhere.
 * @param {WebGL2RenderingContext} gl @param {HTMLCanvasElement} canvas
 * @param {import('../lib/typedefs.js').Size} size @param {{ x0: number, x1: number } | null} clip
 */
function scissor(gl, canvas, size, clip) {
  if (!clip) {
    gl.disable(gl.SCISSOR_TEST);
    return;
  }
  const dpr = canvas.width / Math.max(1, size.w);
  const x0 = Math.max(0, Math.round(clip.x0 * dpr));
  gl.enable(gl.SCISSOR_TEST);
  gl.scissor(x0, 0, Math.max(0, Math.min(canvas.width, Math.round(clip.x1 * dpr)) - x0), canvas.height);
}

/**
 * RGBA of the drawing buffer at a CSS point (top-left origin).
 * @param {WebGL2RenderingContext} gl @param {HTMLCanvasElement} canvas @param {number} x @param {number} y
 */
function readPixel(gl, canvas, x, y) {
  const dpr = canvas.width / Math.max(1, canvas.clientWidth);
  const out = new Uint8Array(4);
  gl.readPixels(Math.floor(x * dpr), canvas.height - 1 - Math.floor(y * dpr), 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, out);
  return Array.from(out);
}

/** The attribute location of the quad's corners, bound before linking (no query needed). */
const A_POS = 0;
