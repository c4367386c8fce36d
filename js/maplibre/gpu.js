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
 * level-0 pixel positions projected to mercator: a UTM store lands where it belongs without a
 * resampling pass, and the fragment shader still fetches exact texels.
 * @module
 */
import { textureFormat } from '../lib/formats.js';
import { setLookUniforms } from '../lib/look-uniforms.js';
import { compileProgram, dataTexture as layeredTexture, maskTexture as maskTex, uniformLocations } from '../lib/webgl.js';
import { createListing } from './listing.js';
import { A_MERC, A_PIX, VERTEX, fragmentShader } from './shaders.js';
import { screenToMesh } from './unproject.js';

/** Meshes kept for cells out of view, beyond which the least recently drawn are deleted. */
const MESH_CACHE = 1024;

/** @typedef {import('./listing.js').Handle} Handle */
/** @typedef {import('./listing.js').Textures} Textures */
/** @typedef {import('./listing.js').DrawItem} DrawItem */
/** @typedef {import('./listing.js').Listed} Listed */

/**
 * @param {object} o
 * @param {string} o.dtype
 * @param {number} o.nBands
 * @param {(px: number, py: number) => { x: number, y: number }} o.toMercator level-0 pixel to mercator
 * @param {number} [o.divisions] quads per cell side
 */
export function createGpu({ dtype, nBands, toMercator, divisions = 8 }) {
  const fmt = textureFormat(dtype);
  /** @type {WebGLTexture[]} */
  let doomed = [];
  /** @type {(Listed & { record: import('../lib/scene.js').FrameRecord }) | null} */
  let frame = null;
  /** @type {WebGL2RenderingContext | null} the map's, from attach on */
  let attached = null;
  /** @type {WebGLProgram | null} */
  let program = null;
  /** @type {Record<string, WebGLUniformLocation | null> | null} */
  let loc = null;
  /** @type {WebGLBuffer | null} */
  let indices = null;
  /** @type {WebGLTexture | null} */
  let noMask = null;
  /** @type {WebGLTexture | null} */
  let noAnchor = null;
  /** @type {Map<string, { vao: WebGLVertexArrayObject, buffer: WebGLBuffer, centre: { x: number, y: number }, used: number }>} */
  const meshes = new Map();
  let drawNo = 0;
  const stats = { textureUploads: 0, meshBuilds: 0 };
  const indexCount = divisions * divisions * 6;

  const listing = createListing(Boolean(fmt.bits), (tex) => doomed.push(tex));
  const renderer = listing.renderer;

  /** Make the frame the scene just listed the one render draws. @param {import('../lib/scene.js').FrameRecord} record the scene's frame record */
  function commit(record) {
    const listed = listing.take();
    if (listed) frame = { ...listed, record };
  }

  // ---- drawing inside MapLibre's render --------------------------------------------------------

  /** Compile and link (no binding state is touched, so this may run outside render). @param {WebGL2RenderingContext} context */
  function attach(context) {
    attached = context;
    program = compileProgram(context, VERTEX, fragmentShader(fmt.sampler, fmt.bits), { aMerc: A_MERC, aPix: A_PIX });
  }

  /** The map's context and the layer's program: drawing happens only once attach has made them. */
  function linked() {
    if (!attached || !program) throw new Error('the chronozarr layer draws only once it is attached to the map (onAdd)');
    return { gl: attached, program };
  }

  function uniforms() {
    const { gl, program } = linked();
    loc ??= uniformLocations(gl, program, 'chronozarr layer shaders');
    return loc;
  }

  /** @param {ArrayBufferView} data @param {number} width @param {number} height */
  const maskTexture = (data, width, height) => maskTex(linked().gl, data, width, height);
  /** @param {ArrayBufferView} data @param {number} width @param {number} height */
  const dataTexture = (data, width, height) => layeredTexture(linked().gl, fmt, nBands, data, width, height);

  /** The GL texture of a handle, created now if this is its first draw. @param {Handle} h */
  function realise(h) {
    if (!h.tex) {
      if (!h.data) throw new Error('a texture handle with neither its data nor its texture (released, then drawn)');
      h.tex = h.mask ? maskTexture(h.data, h.width, h.height) : dataTexture(h.data, h.width, h.height);
      h.data = null;
      stats.textureUploads++;
    }
    return h.tex;
  }

  /**
   * The mesh of a cell's footprint (rect in level-0 pixels; the corner is the chunk's), one texel of
   * level k wider on every side: the fragment shader draws only the rect, and the margin keeps a
   * pixel at its edge from falling outside the triangles as the GPU snapped them.
   * @param {number} k @param {import('../lib/typedefs.js').Rect} rect
   */
  function meshFor(k, rect) {
    const { gl } = linked();
    const id = `${k}:${rect.x0},${rect.y0},${rect.x1},${rect.y1}`;
    let mesh = meshes.get(id);
    if (!mesh) {
      const centre = toMercator((rect.x0 + rect.x1) / 2, (rect.y0 + rect.y1) / 2);
      const n = divisions;
      const margin = 2 ** k;
      const verts = new Float32Array((n + 1) * (n + 1) * 4);
      let o = 0;
      for (let j = 0; j <= n; j++) {
        for (let i = 0; i <= n; i++) {
          const px = rect.x0 - margin + ((rect.x1 - rect.x0 + 2 * margin) * i) / n;
          const py = rect.y0 - margin + ((rect.y1 - rect.y0 + 2 * margin) * j) / n;
          const m = toMercator(px, py);
          verts[o++] = m.x - centre.x;
          verts[o++] = m.y - centre.y;
          verts[o++] = px - rect.x0;
          verts[o++] = py - rect.y0;
        }
      }
      const vao = gl.createVertexArray();
      gl.bindVertexArray(vao);
      const buffer = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
      gl.bufferData(gl.ARRAY_BUFFER, verts, gl.STATIC_DRAW);
      gl.enableVertexAttribArray(A_MERC);
      gl.vertexAttribPointer(A_MERC, 2, gl.FLOAT, false, 16, 0);
      gl.enableVertexAttribArray(A_PIX);
      gl.vertexAttribPointer(A_PIX, 2, gl.FLOAT, false, 16, 8);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, sharedIndices());
      mesh = { vao, buffer, centre, used: 0 };
      meshes.set(id, mesh);
      stats.meshBuilds++;
    }
    mesh.used = drawNo;
    return mesh;
  }

  function sharedIndices() {
    if (indices) return indices;
    const { gl } = linked();
    const n = divisions;
    const idx = new Uint16Array(indexCount);
    let o = 0;
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        const a = j * (n + 1) + i;
        const b = a + n + 1;
        idx.set([a, a + 1, b, a + 1, b + 1, b], o);
        o += 6;
      }
    }
    indices = gl.createBuffer();
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, indices);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW);
    return indices;
  }

  /** @param {string} id */
  function dropMesh(id) {
    const mesh = meshes.get(id);
    if (!mesh) return;
    const { gl } = linked();
    gl.deleteVertexArray(mesh.vao);
    gl.deleteBuffer(mesh.buffer);
    meshes.delete(id);
  }

  /** @param {WebGL2RenderingContext} gl */
  function flushDeletes(gl) {
    for (const tex of doomed) gl.deleteTexture(tex);
    doomed = [];
  }

  /** 1 x 1 stand-ins so each sampler always has a texture of its type bound. */
  function placeholders() {
    noMask ??= maskTexture(new Uint8Array([1]), 1, 1);
    if (fmt.bits) noAnchor ??= dataTexture(new fmt.empty(nBands), 1, 1);
  }

  /**
   * Draw the committed frame. Called from MapLibre's render, which has set the viewport, blending
   * (premultiplied) and depth; MapLibre resets its state cache afterwards.
   * @param {ArrayLike<number>} matrix MapLibre's mercator (0..1) to clip matrix
   * @param {number} opacity
   * @returns {import('../lib/scene.js').FrameRecord | null} the scene's record of the frame drawn
   */
  function render(matrix, opacity) {
    if (doomed.length) flushDeletes(linked().gl);
    if (!frame || !frame.look) return null;
    const { gl, program } = linked();
    const u = uniforms();
    drawNo++;
    gl.useProgram(program);
    gl.disable(gl.CULL_FACE);
    gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    placeholders();
    const look = frame.look;
    setLookUniforms(gl, u, look);
    gl.uniform1f(u.uOpacity, opacity);
    const m = new Float32Array(16);
    const h = new Float32Array(9);
    const viewport = /** @type {Int32Array} */ (gl.getParameter(gl.VIEWPORT));
    for (const item of frame.items) {
      const { gpu } = item;
      // A texture the scene released since it listed this frame: its next frame is on the way.
      if (gpu.tex?.dead || gpu.maskTex?.dead || gpu.anchorTex?.dead) continue;
      gl.activeTexture(gl.TEXTURE0);
      if (!gpu.tex) throw new Error(`a chunk of level ${item.k} was listed without its data texture`);
      gl.bindTexture(gl.TEXTURE_2D_ARRAY, realise(gpu.tex));
      gl.activeTexture(gl.TEXTURE1);
      gl.bindTexture(gl.TEXTURE_2D, gpu.maskTex ? realise(gpu.maskTex) : noMask);
      if (fmt.bits) {
        gl.activeTexture(gl.TEXTURE2);
        gl.bindTexture(gl.TEXTURE_2D_ARRAY, gpu.anchorTex ? realise(gpu.anchorTex) : noAnchor);
        gl.uniform1i(u.uDelta, gpu.anchorTex ? 1 : 0);
      }
      gl.uniform1f(u.uLevelScale, 2 ** item.k);
      gl.uniform2i(u.uSize, item.size[0], item.size[1]);
      gl.uniform2f(u.uRectSize, item.rect.x1 - item.rect.x0, item.rect.y1 - item.rect.y0);
      const mesh = meshFor(item.k, item.rect);
      translated(matrix, mesh.centre, m);
      gl.uniformMatrix4fv(u.uMatrix, false, m);
      gl.uniformMatrix3fv(u.uScreenToMesh, false, screenToMesh(matrix, mesh.centre, viewport, h));
      gl.bindVertexArray(mesh.vao);
      gl.drawElements(gl.TRIANGLES, indexCount, gl.UNSIGNED_SHORT, 0);
    }
    gl.bindVertexArray(null);
    gl.activeTexture(gl.TEXTURE0);
    if (meshes.size > MESH_CACHE) {
      for (const [id, mesh] of meshes) if (mesh.used !== drawNo) dropMesh(id);
    }
    return frame.record;
  }

  /** Free every GL object (the scene has released its handles before). */
  function dispose() {
    frame = null;
    listing.take();
    const gl = attached;
    if (!gl) return;
    flushDeletes(gl);
    for (const id of [...meshes.keys()]) dropMesh(id);
    for (const tex of [noMask, noAnchor]) if (tex) gl.deleteTexture(tex);
    if (indices) gl.deleteBuffer(indices);
    if (program) {
      for (const shader of gl.getAttachedShaders(program) ?? []) gl.deleteShader(shader);
      gl.deleteProgram(program);
    }
    noMask = noAnchor = indices = program = null;
    attached = null;
  }

  return {
    renderer,
    commit,
    attach,
    render,
    dispose,
    get frame() {
      return frame?.record ?? null;
    },
    get meshes() {
      return meshes.size;
    },
    stats,
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
