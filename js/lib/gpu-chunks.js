/**
 * The scene's GPU memory: the chunks it has uploaded (one entry per cell and timestep), the anchor
 * textures of star-delta cells shared by the deltas drawn on them, their bytes against a budget,
 * and which go first when it is exceeded (least recently used, never those the view needs).
 * @module
 */
import { applyDelta } from '../src/reader/reconstruct.js';

/**
 * @typedef {object} Entry
 * @property {string} key
 * @property {number} lod
 * @property {number} row
 * @property {number} col
 * @property {number} t
 * @property {any} cell the reader's cell ({ data, mask?, chunkWidth, chunkHeight, width, height })
 * @property {any} gpu the renderer's textures ({ tex, maskTex, anchorTex?, bytes }, own and anchor for a star-delta chunk)
 * @property {number} used
 */

/**
 * @typedef {{ id: string, tex: any, data: any, bytes: number, refs: number, waiting: number, used: number, promise: Promise<Anchor> }} Anchor
 *   refs: cache entries drawing with it; waiting: loads that will. Only anchors with neither are evicted.
 */

/** @param {number} lod @param {number} row @param {number} col @param {number} t */
export const chunkKey = (lod, row, col, t) => `${lod}/${row}/${col}/${t}`;

/**
 * @param {object} o
 * @param {any} o.store the reader's store
 * @param {any} o.renderer the renderer the scene draws with (upload, dataTexture, release, deleteTexture)
 * @param {number} o.budgetBytes
 * @param {{ uploads: number, evictions: number, anchorUploads: number }} o.stats counted into
 * @param {() => boolean} o.destroyed
 */
export function createGpuChunks({ store, renderer, budgetBytes, stats, destroyed }) {
  /** @type {Map<string, Entry>} */
  const cache = new Map();
  /** @type {Map<string, Anchor>} anchor textures by `lod/row/col/t_anchor` */
  const anchors = new Map();
  let bytes = 0;
  let clock = 0;

  /** Mark an entry (or anchor) as just used. @param {{ used: number }} e */
  const touch = (e) => {
    e.used = ++clock;
  };

  /**
   * The anchor texture of a cell, uploaded once (the reader's stored anchor chunk).
   * @param {number} k @param {number} row @param {number} col @param {number} ta
   */
  function anchorFor(k, row, col, ta) {
    const id = chunkKey(k, row, col, ta);
    let a = anchors.get(id);
    if (!a) {
      /** @type {Anchor} */
      const rec = { id, tex: null, data: null, bytes: 0, refs: 0, waiting: 0, used: 0, promise: /** @type {any} */ (null) };
      rec.promise = store.getCell(k, row, col, ta, { stored: true, mask: false }).then(
        (/** @type {any} */ cell) => {
          if (destroyed() || anchors.get(id) !== rec) return rec;
          rec.tex = renderer.dataTexture(cell.data, cell.chunkWidth, cell.chunkHeight);
          rec.data = cell.data;
          rec.bytes = cell.data.byteLength;
          bytes += rec.bytes;
          stats.anchorUploads++;
          return rec;
        },
        (/** @type {any} */ err) => {
          if (anchors.get(id) === rec) anchors.delete(id);
          throw err;
        },
      );
      rec.promise.catch(() => {});
      anchors.set(id, rec);
      a = rec;
    }
    touch(a);
    return a;
  }

  /**
   * Upload a loaded cell and keep it: its own textures, or, for a star-delta cell, its residuals
   * (a delta timestep) or nothing (an anchor timestep) drawn on its anchor's texture.
   * @param {string} id @param {{ lod: number, row: number, col: number, t: number }} where
   * @param {any} stored the reader's cell @param {Anchor | null} anchor
   */
  function add(id, where, stored, anchor) {
    let gpu;
    let cell = stored;
    if (anchor) {
      // Stored values: an anchor timestep draws its anchor texture, a delta timestep its residuals on it.
      const residual = stored.anchor != null;
      const own = renderer.upload(residual ? stored.data : null, stored.mask ?? null, stored.chunkWidth, stored.chunkHeight);
      anchor.refs++;
      gpu = { tex: residual ? own.tex : anchor.tex, anchorTex: residual ? anchor.tex : null, maskTex: own.maskTex, bytes: own.bytes, own, anchor };
      if (residual) cell = reconstructedCell(stored, anchor.data);
    } else {
      gpu = renderer.upload(stored.data, stored.mask ?? null, stored.chunkWidth, stored.chunkHeight);
    }
    stats.uploads++;
    cache.set(id, { key: id, ...where, cell, gpu, used: ++clock });
    bytes += gpu.bytes;
  }

  /**
   * Over budget: drop the least recently used entries, then idle anchors, down to 90 % of it.
   * @param {() => Set<string>} needed keys of the entries the view needs (asked only when over budget)
   */
  function evict(needed) {
    if (bytes <= budgetBytes) return;
    const keep = needed();
    const order = [...cache.values()].filter((e) => !keep.has(e.key)).sort((a, b) => a.used - b.used);
    for (const e of order) {
      if (bytes <= budgetBytes * 0.9) break;
      drop(e);
    }
    const idle = [...anchors.values()].filter((a) => a.tex && a.refs === 0 && a.waiting === 0).sort((a, b) => a.used - b.used);
    for (const a of idle) {
      if (bytes <= budgetBytes * 0.9) break;
      dropAnchor(a);
    }
  }

  /** @param {Entry} e */
  function drop(e) {
    cache.delete(e.key);
    if (e.gpu.anchor) {
      renderer.release(e.gpu.own);
      e.gpu.anchor.refs--;
    } else renderer.release(e.gpu);
    bytes -= e.gpu.bytes;
    stats.evictions++;
  }

  /** @param {Anchor} a */
  function dropAnchor(a) {
    anchors.delete(a.id);
    if (a.tex) renderer.deleteTexture(a.tex);
    bytes -= a.bytes;
    a.tex = null;
  }

  /** Release every texture. */
  function clear() {
    for (const e of [...cache.values()]) drop(e);
    for (const a of [...anchors.values()]) dropAnchor(a);
  }

  return {
    /** @param {string} id */
    get: (id) => cache.get(id),
    /** @param {string} id */
    has: (id) => cache.has(id),
    touch,
    anchorFor,
    add,
    evict,
    clear,
    get bytes() {
      return bytes;
    },
    get anchorTextures() {
      return anchors.size;
    },
  };
}

/**
 * The reader's stored cell of a delta timestep with its true values reconstructed on first use (CPU readers: stretch, inspector).
 * @param {any} stored @param {any} anchorData
 */
function reconstructedCell(stored, anchorData) {
  /** @type {any} */
  let data = null;
  return {
    chunkWidth: stored.chunkWidth,
    chunkHeight: stored.chunkHeight,
    width: stored.width,
    height: stored.height,
    mask: stored.mask,
    get data() {
      data ??= applyDelta(anchorData, stored.data);
      return data;
    },
  };
}
