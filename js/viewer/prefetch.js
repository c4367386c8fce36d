/**
 * Reads ahead for the viewer: the next timesteps of the visible cells, 150 ms after the time or the
 * view last changed. It waits for the first complete frame, so that until then the visible cells
 * have the network and the decode worker to themselves; it stamps that frame's time (and the first
 * frame's) on the hook.
 * @module
 */

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {import('../lib/typedefs.js').Scene} o.scene
 * @param {import('./first-view.js').ViewState} o.state
 * @param {import('./app.js').Hook} o.hook
 * @param {() => boolean} o.playing whether playback runs (it reads ahead itself)
 */
export function createPrefetch({ store, scene, state, hook, playing }) {
  /** @type {ReturnType<typeof setTimeout> | 0} */ let timer = 0;
  let wanted = false;
  let firstFrame = false;
  let firstComplete = false;

  /** @param {boolean} viewChanged the view moved (else only the time did) */
  function schedule(viewChanged) {
    if (playing() && !viewChanged) return;
    clearTimeout(timer);
    wanted = !firstComplete;
    if (wanted) return;
    timer = setTimeout(() => {
      const lod = scene.lod;
      const cells = scene.visibleAt(lod);
      if (!cells.length) return;
      store.prefetch({ lod, cells, t: state.t, playing: playing(), masks: store.hasMask, stored: scene.shaderDelta }).catch(() => {});
    }, 150);
  }

  /** A frame was painted: stamp the first ones, and start the prefetch that waited for a complete one. */
  /** @param {import('../lib/scene.js').FrameRecord} f */
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
      if (wanted) schedule(true);
    }
  }

  return { schedule, frame, stop: () => clearTimeout(timer) };
}
