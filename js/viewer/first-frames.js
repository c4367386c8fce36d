/**
 * When the viewer's first frames came (for tests and benchmarks, on the hook): the first frame
 * painted, the first complete one and the reads until then. What is loaded and read ahead is the
 * scene's load plan (lib/load-plan.js), not the viewer's.
 * @module
 */

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {import('./hook.js').Hook} o.hook
 */
export function createFirstFrames({ store, hook }) {
  let firstFrame = false;
  let firstComplete = false;

  /** A frame was painted: stamp the first ones. @param {import('../lib/scene.js').FrameRecord} f */
  function frame(f) {
    if (!firstFrame) {
      firstFrame = true;
      hook.firstFrameAt = performance.now();
    }
    if (f.complete && !firstComplete) {
      firstComplete = true;
      hook.firstCompleteAt = performance.now();
      const { requests, bytes } = store.stats();
      hook.firstCompleteReads = { requests, bytes };
    }
  }

  return { frame };
}
