/**
 * The scene's GPU memory: the chunks it has uploaded (one entry per cell and timestep), the anchor
 * textures of star-delta cells shared by the deltas drawn on them, their bytes against a budget,
 * and which go first when it is exceeded (least recently used, never those the view needs).
 * @module
 */
import { RANKS } from '../src/reader/limiter.js';
import { applyDelta } from '../src/reader/reconstruct.js';

/** @typedef {import('./typedefs.js').Cell} Cell */

/**
 * The anchor texture of a star-delta cell and the stored anchor chunk it was made from.
 * refs: cache entries drawing with it; waiting: loads that will. Only anchors with neither are evicted.
 * @template [Tex=unknown]
 * @typedef {{ id: string, tex: Tex | null, data: Uint8Array | Uint16Array | null, bytes: number, refs: number, waiting: number, used: number, rank: number, loading: AbortController, promise: Promise<Anchor<Tex>> }} Anchor
 */

/**
 * The textures a cache entry draws with: for a star-delta chunk, its own (residuals and mask,
 * released with it) and its anchor's (shared, counted in the anchor's refs).
 * @template [Tex=unknown]
 * @typedef {import('./typedefs.js').ChunkTextures<Tex> & { own?: import('./typedefs.js').ChunkTextures<Tex>, anchor?: Anchor<Tex> }} EntryTextures
 */

/**
 * One uploaded chunk: where it is, the reader's cell (true values, for CPU readers) and its textures.
 * @template [Tex=unknown]
 * @typedef {object} Entry
 * @property {string} key
 * @property {number} lod
 * @property {number} row
 * @property {number} col
 * @property {number} t
 * @property {Cell} cell
 * @property {EntryTextures<Tex>} gpu
 * @property {number} used
 */

/**
 * The id of a cell held on the GPU (level, cell, timestep), not an object key of the store: those
 * are the reader's chunkKey (src/reader/geometry.js).
 * @param {number} lod @param {number} row @param {number} col @param {number} t
 */
export const gpuEntryId = (lod, row, col, t) => `${lod}/${row}/${col}/${t}`;

/**
 * @template Tex
 * @param {object} o
 * @param {Pick<import('./typedefs.js').Store, 'getCell'>} o.store the reader's store
 * @param {Pick<import('./typedefs.js').Renderer<Tex>, 'upload' | 'dataTexture' | 'release' | 'deleteTexture'>} o.renderer the renderer the scene draws with
 * @param {number} o.budgetBytes
 * @param {{ uploads: number, evictions: number, anchorUploads: number }} o.stats counted into
 * @param {() => boolean} o.destroyed
 */
export function createGpuChunks({ store, renderer, budgetBytes, stats, destroyed }) {
  /** @type {Map<string, Entry<Tex>>} */
  const cache = new Map();
  /** Bytes of the entries' own textures (the anchors count theirs). */
  let entryBytes = 0;
  let clock = 0;

  /** Mark an entry (or anchor) as just used. @param {{ used: number }} e */
  const touch = (e) => {
    e.used = ++clock;
  };
  const anchors = createAnchors({ store, renderer, stats, destroyed, touch });
  const bytes = () => entryBytes + anchors.bytes;

  /**
   * Upload a loaded cell and keep it (uploadCell).
   * @param {string} id @param {import('./typedefs.js').ChunkAt} where
   * @param {Readonly<Cell>} stored the reader's cell @param {Anchor<Tex> | null} anchor
   */
  function add(id, where, stored, anchor) {
    const { gpu, cell } = uploadCell(renderer, stored, anchor);
    stats.uploads++;
    cache.set(id, { key: id, ...where, cell, gpu, used: ++clock });
    entryBytes += gpu.bytes;
  }

  /**
   * Over budget: drop the least recently used entries, then idle anchors, down to 90 % of it.
   * @param {() => Set<string>} needed keys of the entries the view needs (asked only when over budget)
   */
  function evict(needed) {
    if (bytes() <= budgetBytes) return;
    const keep = needed();
    const order = [...cache.values()].filter((e) => !keep.has(e.key)).sort((a, b) => a.used - b.used);
    for (const e of order) {
      if (bytes() <= budgetBytes * 0.9) break;
      drop(e);
    }
    for (const a of anchors.idle()) {
      if (bytes() <= budgetBytes * 0.9) break;
      anchors.drop(a);
    }
  }

  /** @param {Entry<Tex>} e */
  function drop(e) {
    cache.delete(e.key);
    if (e.gpu.anchor && e.gpu.own) {
      renderer.release(e.gpu.own);
      e.gpu.anchor.refs--;
    } else renderer.release(e.gpu);
    entryBytes -= e.gpu.bytes;
    stats.evictions++;
  }

  return {
    /** @param {string} id */
    get: (id) => cache.get(id),
    /** @param {string} id */
    has: (id) => cache.has(id),
    touch,
    anchorFor: anchors.anchorFor,
    releaseAnchor: anchors.release,
    add,
    evict,
    /** Release every texture. */
    clear() {
      for (const e of [...cache.values()]) drop(e);
      anchors.clear();
    },
    get bytes() {
      return bytes();
    },
    get anchorTextures() {
      return anchors.size;
    },
  };
}

/**
 * The anchor textures of star-delta cells, by `lod/row/col/t_anchor`: each loaded once with the
 * priority of the chunk that needs it, shared by the deltas drawn on it, and its bytes.
 * @template Tex
 * @param {object} o
 * @param {Pick<import('./typedefs.js').Store, 'getCell'>} o.store
 * @param {Pick<import('./typedefs.js').Renderer<Tex>, 'dataTexture' | 'deleteTexture'>} o.renderer
 * @param {{ anchorUploads: number }} o.stats
 * @param {() => boolean} o.destroyed
 * @param {(a: { used: number }) => void} o.touch marks an anchor as just used
 */
function createAnchors({ store, renderer, stats, destroyed, touch }) {
  /** @type {Map<string, Anchor<Tex>>} */
  const anchors = new Map();
  let bytes = 0;

  /**
   * The anchor texture of a cell, uploaded once (the reader's stored anchor chunk), loaded with the
   * priority of the chunk that needs it (moved up when a chunk of a better one needs it too).
   * @param {number} k @param {number} row @param {number} col @param {number} ta
   * @param {import('../src/reader/limiter.js').Priority} [priority]
   */
  function anchorFor(k, row, col, ta, priority = 'frame') {
    const id = gpuEntryId(k, row, col, ta);
    let a = anchors.get(id);
    if (a && !a.tex && RANKS[priority] < a.rank) {
      a.rank = RANKS[priority];
      store.getCell(k, row, col, ta, { stored: true, mask: false, priority, signal: a.loading.signal }).catch(() => {}); // joins the load, moving it up
    }
    if (!a) {
      const loading = new AbortController();
      /** @type {Anchor<Tex>} */
      const rec = Object.assign({ id, tex: null, data: null, bytes: 0, refs: 0, waiting: 0, used: 0, rank: RANKS[priority], loading }, {
        promise: store.getCell(k, row, col, ta, { stored: true, mask: false, priority, signal: loading.signal }).then(
          (cell) => {
            if (destroyed() || anchors.get(id) !== rec) return rec;
            rec.tex = renderer.dataTexture(cell.data, cell.chunkWidth, cell.chunkHeight);
            rec.data = /** @type {Uint8Array | Uint16Array} */ (cell.data); // star-delta data are uint8 or uint16
            rec.bytes = cell.data.byteLength;
            bytes += rec.bytes;
            stats.anchorUploads++;
            return rec;
          },
          (/** @type {unknown} */ err) => {
            if (anchors.get(id) === rec) anchors.delete(id);
            throw err;
          },
        ),
      });
      rec.promise.catch(() => {});
      anchors.set(id, rec);
      a = rec;
    }
    touch(a);
    return a;
  }

  /** @param {Anchor<Tex>} a */
  function drop(a) {
    anchors.delete(a.id);
    if (a.tex) renderer.deleteTexture(a.tex);
    bytes -= a.bytes;
    a.tex = null;
  }

  return {
    anchorFor,
    /**
     * An anchor no load waits for and nothing draws with: stop loading it (a view or time change
     * dropped the chunks that needed it), so it does not hold the line for the new ones. @param {Anchor<Tex>} a
     */
    release(a) {
      if (a.tex || a.refs > 0 || a.waiting > 0 || anchors.get(a.id) !== a) return;
      anchors.delete(a.id);
      a.loading.abort();
    },
    drop,
    /** The uploaded anchors nothing draws with or waits for, least recently used first. */
    idle: () => [...anchors.values()].filter((a) => a.tex && a.refs === 0 && a.waiting === 0).sort((a, b) => a.used - b.used),
    clear() {
      for (const a of [...anchors.values()]) drop(a);
    },
    get bytes() {
      return bytes;
    },
    get size() {
      return anchors.size;
    },
  };
}

/**
 * A loaded cell's textures: its own, or, for a star-delta cell, its residuals (a delta timestep)
 * or nothing (an anchor timestep) drawn on its anchor's texture; with the cell CPU readers get.
 * @template Tex
 * @param {Pick<import('./typedefs.js').Renderer<Tex>, 'upload'>} renderer
 * @param {Readonly<Cell>} stored the reader's cell @param {Anchor<Tex> | null} anchor
 * @returns {{ gpu: EntryTextures<Tex>, cell: Readonly<Cell> }}
 */
function uploadCell(renderer, stored, anchor) {
  if (!anchor) return { gpu: renderer.upload(stored.data, stored.mask ?? null, stored.chunkWidth, stored.chunkHeight), cell: stored };
  // Stored values: an anchor timestep draws its anchor texture, a delta timestep its residuals on it.
  const residual = stored.anchor != null;
  const own = renderer.upload(residual ? stored.data : null, stored.mask ?? null, stored.chunkWidth, stored.chunkHeight);
  anchor.refs++;
  const gpu = { tex: residual ? own.tex : anchor.tex, anchorTex: residual ? anchor.tex : null, maskTex: own.maskTex, bytes: own.bytes, own, anchor };
  // loaded: the anchor's promise settled first
  const cell = residual ? reconstructedCell(stored, /** @type {Uint8Array | Uint16Array} */ (anchor.data)) : stored;
  return { gpu, cell };
}

/**
 * The reader's stored cell of a delta timestep with its true values reconstructed on first use (CPU readers: stretch, inspector).
 * @param {Readonly<Cell>} stored residuals @param {Uint8Array | Uint16Array} anchorData
 * @returns {Cell}
 */
function reconstructedCell(stored, anchorData) {
  /** @type {Uint8Array | Uint16Array | null} */
  let data = null;
  return {
    chunkWidth: stored.chunkWidth,
    chunkHeight: stored.chunkHeight,
    width: stored.width,
    height: stored.height,
    mask: stored.mask,
    get data() {
      data ??= applyDelta(anchorData, /** @type {Uint8Array | Uint16Array} */ (stored.data)); // of the anchor's type
      return data;
    },
  };
}
