/**
 * Texture uploads paced by animation frame: at most `bytesPerFrame` bytes are handed to the GPU
 * between two frames, the rest wait for the next ones, so a burst of arriving chunks does not
 * stall one frame of the map. A single upload larger than the allowance goes alone.
 * @module
 */

/**
 * @param {number} bytesPerFrame Infinity uploads at once
 * @param {(run: () => void) => number} [schedule] the next animation frame
 * @param {(handle: number) => void} [unschedule]
 */
export function createUploadGate(bytesPerFrame, schedule = (run) => requestAnimationFrame(run), unschedule = (h) => cancelAnimationFrame(h)) {
  /** @type {{ bytes: number, run: () => void }[]} */
  const queue = [];
  let spent = 0;
  let frame = 0;

  function pump() {
    while (queue.length && (spent === 0 || spent + queue[0].bytes <= bytesPerFrame)) {
      const job = /** @type {{ bytes: number, run: () => void }} */ (queue.shift());
      spent += job.bytes;
      // The allowance is spent in this frame: it comes back with the next one.
      frame ||= schedule(() => {
        frame = 0;
        spent = 0;
        pump();
      });
      job.run();
    }
  }

  return {
    /**
     * Run `upload` now when this frame's allowance has room for `bytes`, else at a later frame.
     * @param {number} bytes @param {() => void} upload
     */
    submit(bytes, upload) {
      if (bytesPerFrame === Infinity) return upload();
      queue.push({ bytes, run: upload });
      pump();
    },
    /** Uploads waiting for a frame. */
    get waiting() {
      return queue.length;
    },
    /** Forget the waiting uploads (the scene is destroyed). */
    cancel() {
      queue.length = 0;
      if (frame) unschedule(frame);
      frame = 0;
    },
  };
}
