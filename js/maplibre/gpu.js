/**
 * The layer's GPU side, shaped as the renderer the viewer's scene drives: the scene uploads
 * chunks, starts a frame and lists the chunks it draws; this module keeps that list as the frame
 * to show and draws it when MapLibre calls the layer's render, with MapLibre's matrix.
 *
 * MapLibre tracks its GL state and may only be touched from inside render, while the scene uploads
 * whenever a chunk arrives. So `upload` returns texture handles that are created on the GPU the
 * first time a frame draws them, and deletions wait for the next render too.
 *
 * Each cell is drawn as a mesh of `divisions` x `divisions` quads whose vertices are the cell's
 * level-0 pixel positions projected to mercator (meshes.js): a UTM store lands where it belongs
 * without a resampling pass, and the fragment shader still fetches exact texels.
 * @module
 */
import { textureFormat } from '../lib/formats.js';
import { setLookUniforms } from '../lib/look-uniforms.js';
import { compileProgram, dataTexture as layeredTexture, maskTexture as maskTex, uniformLocations } from '../lib/webgl.js';
import { createListing } from './listing.js';
import { createMeshes } from './meshes.js';
import { A_MERC, A_PIX, VERTEX, fragmentShader } from './shaders.js';
import { screenToMesh } from './unproject.js';

/** @typedef {import('./listing.js').Handle} Handle */
/** @typedef {import('./listing.js').Textures} Textures */
/** @typedef {import('./listing.js').DrawItem} DrawItem */
/** @typedef {import('./listing.js').Listed} Listed */
/** @typedef {Record<string, WebGLUniformLocation | null>} Uniforms */

/**
 * @param {object} o
 * @param {string} o.dtype
 * @param {number} o.nBands
 * @param {(px: number, py: number) => { x: number, y: number }} o.toMercator level-0 pixel to mercator
 * @param {number} [o.divisions] quads per cell side
 */
export function createGpu({ dtype, nBands, toMercator, divisions = 8 }) {
  const fmt = textureFormat(dtype);
  /** @type {(Listed & { record: import('../lib/scene.js').FrameRecord }) | null} */ let frame = null;
  /** @type {WebGL2RenderingContext | null} the map's, from attach on */ let attached = null;
  /** @type {WebGLProgram | null} */ let program = null;
  /** @type {Uniforms | null} */ let loc = null;
  const stats = { textureUploads: 0, meshBuilds: 0 };
  const gl = () => linked().gl;
  const textures = createTextures({ gl, fmt, nBands, stats });
  const meshes = createMeshes({ gl, toMercator, divisions, stats });
  const listing = createListing(Boolean(fmt.bits), textures.doom);

  /** The map's context and the layer's program: drawing happens only once attach has made them. */
  function linked() {
    if (!attached || !program) throw new Error('the chronozarr layer draws only once it is attached to the map (onAdd)');
    return { gl: attached, program };
  }

  /**
   * Draw the committed frame. Called from MapLibre's render, which has set the viewport, blending
   * (premultiplied) and depth; MapLibre resets its state cache afterwards.
   * @param {ArrayLike<number>} matrix MapLibre's mercator (0..1) to clip matrix
   * @param {number} opacity
   * @returns {import('../lib/scene.js').FrameRecord | null} the scene's record of the frame drawn
   */
  function render(matrix, opacity) {
    if (textures.pending) textures.flush(linked().gl);
    if (!frame || !frame.look) return null;
    const { gl, program } = linked();
    loc ??= uniformLocations(gl, program, 'chronozarr layer shaders');
    const u = loc;
    meshes.nextFrame();
    prepare(gl, program);
    const stand = textures.placeholders();
    setLookUniforms(gl, u, frame.look);
    gl.uniform1f(u.uOpacity, opacity);
    drawChunks(gl, u, frame.items, matrix, textures.realise, stand, meshes);
    gl.bindVertexArray(null);
    gl.activeTexture(gl.TEXTURE0);
    meshes.trim();
    return frame.record;
  }

  return {
    renderer: listing.renderer,
    /** Make the frame the scene just listed the one render draws. @param {import('../lib/scene.js').FrameRecord} record the scene's frame record */
    commit(record) {
      const listed = listing.take();
      if (listed) frame = { ...listed, record };
    },
    /** Compile and link (no binding state is touched, so this may run outside render). @param {WebGL2RenderingContext} context */
    attach(context) {
      attached = context;
      program = compileProgram(context, VERTEX, fragmentShader(fmt.sampler, fmt.bits), { aMerc: A_MERC, aPix: A_PIX });
    },
    render,
    /** Free every GL object (the scene has released its handles before). */
    dispose() {
      frame = null;
      listing.take();
      if (!attached) return;
      textures.dispose(attached);
      meshes.dispose(attached);
      if (program) deleteProgram(attached, program);
      program = null;
      attached = null;
    },
    get frame() {
      return frame?.record ?? null;
    },
    get meshes() {
      return meshes.size;
    },
    stats,
  };
}

/** @param {WebGL2RenderingContext} gl @param {WebGLProgram} program */
function deleteProgram(gl, program) {
  for (const shader of gl.getAttachedShaders(program) ?? []) gl.deleteShader(shader);
  gl.deleteProgram(program);
}

/** The GL state a frame draws with, inside MapLibre's render. @param {WebGL2RenderingContext} gl @param {WebGLProgram} program */
function prepare(gl, program) {
  gl.useProgram(program);
  gl.disable(gl.CULL_FACE);
  gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
  gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
}

/**
 * Draw each chunk of a frame with its mesh, MapLibre's matrix moved to the mesh's centre.
 * @param {WebGL2RenderingContext} gl @param {Uniforms} u @param {DrawItem[]} items
 * @param {ArrayLike<number>} matrix @param {(h: Handle) => WebGLTexture} realise
 * @param {Parameters<typeof bindChunk>[4]} stand @param {ReturnType<typeof createMeshes>} meshes
 */
function drawChunks(gl, u, items, matrix, realise, stand, meshes) {
  const m = new Float32Array(16);
  const h = new Float32Array(9);
  const viewport = /** @type {Int32Array} */ (gl.getParameter(gl.VIEWPORT));
  for (const item of items) {
    // A texture the scene released since it listed this frame: its next frame is on the way.
    if (!bindChunk(gl, u, item, realise, stand)) continue;
    gl.uniform2f(u.uRectSize, item.rect.x1 - item.rect.x0, item.rect.y1 - item.rect.y0);
    const mesh = meshes.meshFor(item.k, item.rect);
    gl.uniformMatrix4fv(u.uMatrix, false, translated(matrix, mesh.centre, m));
    gl.uniformMatrix3fv(u.uScreenToMesh, false, screenToMesh(matrix, mesh.centre, viewport, h));
    gl.bindVertexArray(mesh.vao);
    gl.drawElements(gl.TRIANGLES, meshes.indexCount, gl.UNSIGNED_SHORT, 0);
  }
}

/**
 * Bind a chunk's textures and per-chunk uniforms; false when the scene released one of them since
 * it listed the frame (the chunk is skipped).
 * @param {WebGL2RenderingContext} gl @param {Uniforms} u @param {DrawItem} item
 * @param {(h: Handle) => WebGLTexture} realise
 * @param {{ noMask: WebGLTexture | null, noAnchor: WebGLTexture | null, delta: boolean }} stand the stand-ins, and whether the store has deltas
 */
function bindChunk(gl, u, item, realise, stand) {
  const { gpu } = item;
  if (gpu.tex?.dead || gpu.maskTex?.dead || gpu.anchorTex?.dead) return false;
  gl.activeTexture(gl.TEXTURE0);
  if (!gpu.tex) throw new Error(`a chunk of level ${item.k} was listed without its data texture`);
  gl.bindTexture(gl.TEXTURE_2D_ARRAY, realise(gpu.tex));
  gl.activeTexture(gl.TEXTURE1);
  gl.bindTexture(gl.TEXTURE_2D, gpu.maskTex ? realise(gpu.maskTex) : stand.noMask);
  if (stand.delta) {
    gl.activeTexture(gl.TEXTURE2);
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, gpu.anchorTex ? realise(gpu.anchorTex) : stand.noAnchor);
    gl.uniform1i(u.uDelta, gpu.anchorTex ? 1 : 0);
  }
  gl.uniform1f(u.uLevelScale, 2 ** item.k);
  gl.uniform2i(u.uSize, item.size[0], item.size[1]);
  return true;
}

/**
 * The layer's textures: a handle's GL texture is made on its first draw (MapLibre's GL state may
 * only be touched inside render), deletions wait for the next render, and 1 x 1 stand-ins keep a
 * texture of each sampler's type bound.
 * @param {object} o
 * @param {() => WebGL2RenderingContext} o.gl the map's context (used inside render only)
 * @param {ReturnType<typeof textureFormat>} o.fmt
 * @param {number} o.nBands
 * @param {{ textureUploads: number }} o.stats counts the textures made
 */
function createTextures({ gl, fmt, nBands, stats }) {
  /** @type {WebGLTexture[]} */
  let doomed = [];
  /** @type {WebGLTexture | null} */
  let noMask = null;
  /** @type {WebGLTexture | null} */
  let noAnchor = null;
  /** @param {ArrayBufferView} data @param {number} width @param {number} height */
  const maskTexture = (data, width, height) => maskTex(gl(), data, width, height);
  /** @param {ArrayBufferView} data @param {number} width @param {number} height */
  const dataTexture = (data, width, height) => layeredTexture(gl(), fmt, nBands, data, width, height);
  /** @param {WebGL2RenderingContext} context */
  const flush = (context) => {
    for (const tex of doomed) context.deleteTexture(tex);
    doomed = [];
  };

  return {
    /** The GL texture of a handle, created now if this is its first draw. @param {Handle} h */
    realise(h) {
      if (!h.tex) {
        if (!h.data) throw new Error('a texture handle with neither its data nor its texture (released, then drawn)');
        h.tex = h.mask ? maskTexture(h.data, h.width, h.height) : dataTexture(h.data, h.width, h.height);
        h.data = null;
        stats.textureUploads++;
      }
      return h.tex;
    },
    /** Delete this texture at the next render. @param {WebGLTexture} tex */
    doom: (/** @type {WebGLTexture} */ tex) => doomed.push(tex),
    /** Textures wait to be deleted. */
    get pending() {
      return doomed.length > 0;
    },
    flush,
    /** The stand-ins, made on first use. */
    placeholders() {
      noMask ??= maskTexture(new Uint8Array([1]), 1, 1);
      if (fmt.bits) noAnchor ??= dataTexture(new fmt.empty(nBands), 1, 1);
      return { noMask, noAnchor, delta: Boolean(fmt.bits) };
    },
    /** Delete them all. @param {WebGL2RenderingContext} context */
    dispose(context) {
      flush(context);
      for (const tex of [noMask, noAnchor]) if (tex) context.deleteTexture(tex);
      noMask = noAnchor = null;
    },
  };
}

/**
 * `matrix` times a translation to `centre`, in float64, rounded to float32 only at the end: the
 * vertices are small offsets from the centre, so nothing large is rounded on the GPU.
 * @param {ArrayLike<number>} matrix column-major 4 x 4
 * @param {{ x: number, y: number }} centre
 * @param {Float32Array} out
 */
export function translated(matrix, centre, out) {
  for (let i = 0; i < 12; i++) out[i] = matrix[i];
  for (let i = 0; i < 4; i++) out[12 + i] = matrix[i] * centre.x + matrix[4 + i] * centre.y + matrix[12 + i];
  return out;
}
