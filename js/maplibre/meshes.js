/**
 * The layer's cell meshes: a cell is drawn as `divisions` x `divisions` quads whose vertices are
 * its level-0 pixel positions projected to mercator, kept as offsets from the cell's centre so
 * that nothing large is rounded to float32 on the GPU (a UTM store lands where it belongs without a
 * resampling pass). A mesh is built on its cell's first draw, all share one index buffer, and
 * beyond MESH_CACHE those the last frame did not draw are deleted.
 * @module
 */
import { A_MERC, A_PIX } from './shaders.js';

/** Meshes kept for cells out of view, beyond which the least recently drawn are deleted. */
const MESH_CACHE = 1024;

/** @typedef {{ vao: WebGLVertexArrayObject, buffer: WebGLBuffer, centre: { x: number, y: number }, used: number }} Mesh */

/**
 * A cell's vertices, four floats each: its mercator offset from `centre`, then its pixel offset
 * from the cell's corner. The mesh reaches `margin` level-0 pixels (one texel of its level) beyond
 * the cell on every side: the fragment shader draws only the cell, and the margin keeps a pixel at
 * its edge from falling outside the triangles as the GPU snapped them.
 * @param {import('../lib/typedefs.js').Rect} rect the cell in level-0 pixels
 * @param {number} n quads per side
 * @param {(px: number, py: number) => { x: number, y: number }} toMercator
 * @param {{ x: number, y: number }} centre
 * @param {number} [margin]
 */
export function cellVertices(rect, n, toMercator, centre, margin = 0) {
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
  return verts;
}

/** The two triangles of each quad of an n x n grid over its (n + 1)^2 vertices, row by row. @param {number} n */
export function gridIndices(n) {
  const idx = new Uint16Array(n * n * 6);
  let o = 0;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const a = j * (n + 1) + i;
      const b = a + n + 1;
      idx.set([a, a + 1, b, a + 1, b + 1, b], o);
      o += 6;
    }
  }
  return idx;
}

/**
 * @param {object} o
 * @param {() => WebGL2RenderingContext} o.gl the map's context (used inside render only)
 * @param {(px: number, py: number) => { x: number, y: number }} o.toMercator level-0 pixel to mercator
 * @param {number} o.divisions quads per cell side
 * @param {{ meshBuilds: number }} o.stats counts the meshes built
 */
export function createMeshes({ gl: context, toMercator, divisions, stats }) {
  /** @type {Map<string, Mesh>} */
  const meshes = new Map();
  /** @type {WebGLBuffer | null} */
  let indices = null;
  let drawNo = 0;

  /** The index buffer every mesh shares, made on the first mesh. */
  function sharedIndices() {
    if (indices) return indices;
    const gl = context();
    const idx = gridIndices(divisions);
    indices = gl.createBuffer();
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, indices);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW);
    return indices;
  }

  /**
   * The mesh of a cell's footprint (rect in level-0 pixels; the corner is the chunk's), marked as
   * drawn by this frame.
   * @param {number} k @param {import('../lib/typedefs.js').Rect} rect
   */
  function meshFor(k, rect) {
    const gl = context();
    const id = `${k}:${rect.x0},${rect.y0},${rect.x1},${rect.y1}`;
    let mesh = meshes.get(id);
    if (!mesh) {
      const centre = toMercator((rect.x0 + rect.x1) / 2, (rect.y0 + rect.y1) / 2);
      const verts = cellVertices(rect, divisions, toMercator, centre, 2 ** k);
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

  return {
    /** Indices a mesh draws. */
    indexCount: divisions * divisions * 6,
    meshFor,
    /** A frame begins: the meshes it draws are marked with it. */
    nextFrame() {
      drawNo++;
    },
    /** A frame ended: beyond the cache, delete the meshes it did not draw. */
    trim() {
      if (meshes.size <= MESH_CACHE) return;
      const gl = context();
      for (const [id, mesh] of meshes) if (mesh.used !== drawNo) drop(gl, meshes, id);
    },
    /** Delete every mesh and the index buffer. @param {WebGL2RenderingContext} gl */
    dispose(gl) {
      for (const id of [...meshes.keys()]) drop(gl, meshes, id);
      if (indices) gl.deleteBuffer(indices);
      indices = null;
    },
    get size() {
      return meshes.size;
    },
  };
}

/** Delete a mesh's GL objects and forget it. @param {WebGL2RenderingContext} gl @param {Map<string, Mesh>} meshes @param {string} id */
function drop(gl, meshes, id) {
  const mesh = meshes.get(id);
  if (!mesh) return;
  gl.deleteVertexArray(mesh.vao);
  gl.deleteBuffer(mesh.buffer);
  meshes.delete(id);
}
