/**
 * The frames the layer drew on the map (what its tests and `layer.frames` read), whether the last
 * one is a complete frame of what the scene asks for, and the counters `layer.stats` reports.
 * @module
 */

/** @typedef {{ n: number, t: number | null, lod: number, complete: boolean, cells: import('../lib/typedefs.js').ChunkAt[] }} DrawnFrame */

/** @param {number} kept frames kept, the oldest half dropped beyond it */
export function createFrameLog(kept) {
  /** @type {DrawnFrame[]} */
  const frames = [];
  let drawnN = 0;
  return {
    frames,
    /** The GPU side drew the scene's frame `record` (once per frame, however often MapLibre renders). @param {import('../lib/scene.js').FrameRecord | null} record */
    drew(record) {
      if (!record || record.n === drawnN) return;
      drawnN = record.n;
      frames.push({ n: record.n, t: record.t, lod: record.lod, complete: record.complete, cells: record.cells });
      if (frames.length > kept) frames.splice(0, kept / 2);
    },
    /**
     * The map shows a complete frame of the scene's asked timestep and level, and it is the GPU side's latest.
     * @param {ReturnType<typeof import('../lib/scene.js').createScene>} scene @param {number | undefined} committedN
     */
    complete(scene, committedN) {
      const last = frames[frames.length - 1];
      return scene.settled && Boolean(last) && last.complete && last.t === scene.wantedT && last.lod === scene.lod && last.n === committedN;
    },
  };
}

/**
 * The scene's and the GPU side's counters together, null before the store opens.
 * @param {ReturnType<typeof import('../lib/scene.js').createScene> | null} s
 * @param {ReturnType<typeof import('./gpu.js').createGpu> | null} g
 */
export function layerStats(s, g) {
  if (!s || !g) return null;
  return { ...s.stats, ...g.stats, meshes: g.meshes, gpuBytes: s.gpuBytes, pending: s.pending, shownT: s.shownT, wantedT: s.wantedT, lod: s.lod, settled: s.settled };
}
