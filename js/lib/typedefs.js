/**
 * Types the viewer, the MapLibre layer and the library between them share, named once: the
 * reader's store and cells, the look the product shader reads, and the renderer interface the
 * scene draws through (viewer/renderer.js and maplibre/gpu.js each implement it). Types only.
 * @module
 */

/** @typedef {import('../src/reader/dataset.js').Store} Store an open store (openStore's result) */
/** @typedef {import('../src/reader/dataset.js').Cell} Cell a cell as getCell returns it */
/** @typedef {import('../src/reader/attributes.js').Band} Band one band of a store */
/** @typedef {import('./camera.js').Camera} Camera */
/** @typedef {ReturnType<typeof import('./scene.js').createScene>} Scene */

/** @typedef {{ entry: import('./gpu-chunks.js').Entry, lod: number, x: number, y: number }} PickHit the drawn chunk under a level-0 pixel, and the pixel on its level (Scene.pick) */

/** @typedef {{ lod: number, row: number, col: number, t: number }} ChunkAt one chunk: a cell of level `lod` at timestep t */

/** @typedef {{ x0: number, y0: number, x1: number, y1: number }} Rect a box in level-0 pixels, [x0, x1) x [y0, y1) */
/** @typedef {{ w: number, h: number }} Size a view's size in CSS pixels */
/** @typedef {Size & { dpr: number }} CanvasSize a canvas's size in CSS pixels and its device pixel ratio */

/**
 * What the product shader needs to colour a frame (products.js lookFor makes it).
 * @typedef {object} Look
 * @property {number} product PRODUCT_CODES of the product
 * @property {number} display DISPLAY_CODES of the display mode (0 for an index product)
 * @property {string} mode the display mode's name ('index' for an index product)
 * @property {number[]} bands the band layers feeding the product, -1 unused
 * @property {number[]} scale of each of those bands
 * @property {number[]} offset of each of those bands
 * @property {number[]} range the stretch in physical units
 * @property {number | null} nodata
 * @property {boolean} hasMask
 */

/**
 * The textures of one drawn chunk: its data (or residuals on `anchorTex`), its mask, and the bytes
 * they hold. `Tex` is the renderer's texture: a WebGLTexture in the viewer, a handle created at the
 * first draw in the MapLibre layer.
 * @template Tex
 * @typedef {{ tex: Tex | null, maskTex: Tex | null, anchorTex: Tex | null, bytes: number }} ChunkTextures
 */

/**
 * What the scene draws through.
 * @template Tex
 * @typedef {object} Renderer
 * @property {boolean} shaderDelta star-delta chunks are drawn from stored anchors and residuals
 * @property {() => boolean} ready false while the program still compiles
 * @property {() => Partial<Size>} resize size the drawing buffer; the CSS size, when the renderer owns a canvas
 * @property {(data: ArrayBufferView | null, mask: Uint8Array | null, width: number, height: number) => ChunkTextures<Tex>} upload
 * @property {(data: ArrayBufferView, width: number, height: number) => Tex} dataTexture a chunk's bands alone (an anchor)
 * @property {(tex: Tex) => void} deleteTexture
 * @property {(gpu: { tex: Tex | null, maskTex: Tex | null }) => void} release the textures upload made
 * @property {(cam: Camera, size: Size, look: Look, clip?: { x0: number, x1: number } | null) => void} begin start a frame
 * @property {(gpu: ChunkTextures<Tex>, k: number, rect: Rect, origin: [number, number], size: [number, number]) => void} draw one chunk of level k
 */

export {};
