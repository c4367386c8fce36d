/**
 * The MapLibre layer's side of the scene's renderer interface (lib/typedefs.js Renderer): what the
 * scene uploads becomes a handle whose texture gpu.js makes at its first draw, because MapLibre
 * owns the GL context and its state outside render; a frame is the list of chunks the scene asked
 * to draw, which gpu.js takes when the frame is committed.
 * @module
 */

/**
 * A texture the scene holds: its data until the first draw creates it on the GPU.
 * @typedef {{ data: ArrayBufferView | null, width: number, height: number, mask: boolean, tex: WebGLTexture | null, dead: boolean }} Handle
 */

/** @typedef {import('../lib/typedefs.js').ChunkTextures<Handle>} Textures */
/** @typedef {{ gpu: Textures, k: number, rect: import('../lib/typedefs.js').Rect, size: [number, number] }} DrawItem one chunk of a frame */
/** @typedef {{ look: import('../lib/typedefs.js').Look, items: DrawItem[] }} Listed a frame as the scene listed it */

/**
 * The renderer interface the scene uses: uploads become handles whose textures are made at their
 * first draw (MapLibre owns the context and its state), and a frame is the list of chunks the
 * scene asked to draw, taken by the GPU side when the frame is committed.
 * @param {boolean} shaderDelta star-delta chunks are reconstructed in the shader
 * @param {(tex: WebGLTexture) => void} doom a texture to delete at the next render
 */
export function createListing(shaderDelta, doom) {
  /** @type {Listed | null} */
  let pending = null;
  /** @param {ArrayBufferView} data @param {number} width @param {number} height @param {boolean} mask @returns {Handle} */
  const handle = (data, width, height, mask) => ({ data, width, height, mask, tex: null, dead: false });
  /** @param {Handle | null | undefined} h */
  function kill(h) {
    if (!h || h.dead) return;
    h.dead = true;
    h.data = null;
    if (h.tex) doom(h.tex);
    h.tex = null;
  }

  /** @satisfies {import('../lib/typedefs.js').Renderer<Handle>} */
  const renderer = {
    shaderDelta,
    ready: () => true,
    /** The scene's view size is the level-0 box it was given: nothing to resize here. */
    resize: () => ({}),
    /** @param {ArrayBufferView | null} data @param {Uint8Array | null} mask @param {number} width @param {number} height @returns {Textures} */
    upload(data, mask, width, height) {
      return {
        tex: data ? handle(data, width, height, false) : null,
        maskTex: mask ? handle(mask, width, height, true) : null,
        anchorTex: null,
        bytes: (data ? data.byteLength : 0) + (mask ? mask.byteLength : 0),
      };
    },
    /** @param {ArrayBufferView} data @param {number} width @param {number} height */
    dataTexture: (data, width, height) => handle(data, width, height, false),
    deleteTexture: kill,
    /** @param {{ tex: Handle | null, maskTex: Handle | null }} gpu */
    release(gpu) {
      kill(gpu.tex);
      kill(gpu.maskTex);
    },
    /** @param {import('../lib/typedefs.js').Camera} _cam @param {import('../lib/typedefs.js').Size} _size @param {import('../lib/typedefs.js').Look} look */
    begin(_cam, _size, look) {
      pending = { look, items: [] };
    },
    /** @param {Textures} gpu @param {number} k @param {import('../lib/typedefs.js').Rect} rect @param {[number, number]} _origin @param {[number, number]} size */
    draw(gpu, k, rect, _origin, size) {
      pending?.items.push({ gpu, k, rect, size });
    },
  };
  return {
    renderer,
    /** The frame listed since the last take, if any. @returns {Listed | null} */
    take() {
      const listed = pending;
      pending = null;
      return listed;
    },
  };
}
