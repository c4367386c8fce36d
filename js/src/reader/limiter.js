/**
 * A request limiter with two priorities: foreground reads (getCell) overtake queued prefetches.
 * @module
 */
import { abortError } from './errors.js';

/**
 * @param {number} max requests in flight at once
 */
export function createLimiter(max) {
  let active = 0;
  /** @type {{ resolve: (value?: unknown) => void, reject: (e: unknown) => void, cleanup: () => void }[][]} */
  const queues = [[], []];

  const next = () => {
    while (active < max) {
      const waiter = queues[0].shift() ?? queues[1].shift();
      if (!waiter) return;
      waiter.cleanup();
      active++;
      waiter.resolve();
    }
  };

  /**
   * Wait for a slot; the returned function releases it.
   * @param {0 | 1} priority 0 foreground, 1 background
   * @param {AbortSignal} [signal]
   * @returns {Promise<() => void>}
   */
  async function acquire(priority, signal) {
    if (signal?.aborted) throw abortError(signal);
    if (active < max && queues[0].length === 0 && (priority === 0 || queues[1].length === 0)) {
      active++;
    } else {
      await new Promise((resolve, reject) => {
        const queue = queues[priority];
        const onAbort = () => {
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          reject(abortError(signal));
        };
        const waiter = {
          resolve,
          reject,
          cleanup: () => signal?.removeEventListener('abort', onAbort),
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      active--;
      next();
    };
  }

  return {
    acquire,
    get active() {
      return active;
    },
    get queued() {
      return queues[0].length + queues[1].length;
    },
  };
}
