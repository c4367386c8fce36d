/**
 * Prefetch: fill the caches around a timestep in windowOrder, within the idle budgets (the whole
 * loop, bounded by half the cache, when playing). A newer run cancels what an older one still has
 * to do, letting the older run's requests it would send first go on.
 * @module
 */
import { anchorOf, chunkId, tierKey } from './context.js';
import { abortError, isAbort } from './errors.js';
import { ticketFor } from './limiter.js';
import { windowOrder } from './order.js';
import { linkSignals } from './signals.js';

/** @typedef {import('./arrays.js').ArrayInfo} ArrayInfo */
/** @typedef {{ info: ArrayInfo, step: number, row: number, col: number, decode: boolean }} Task */
/** @typedef {{ state: 'done' | 'budget' | 'aborted', order: number[], chunks: number, bytes: number, failed: number }} PrefetchResult */
/** @typedef {{ compressed: Function, values: Function, storedValues: Function }} PrefetchReads the chunk reads a run fills the caches with */
/** @typedef {{ link: ReturnType<typeof linkSignals>, reading: Map<string, AbortController>, stopped: boolean, priority: import('./limiter.js').Priority }} Run */

/**
 * @param {import('./context.js').StoreContext} ctx
 * @param {import('./settings.js').Settings} settings
 * @param {PrefetchReads} reads
 * @param {AbortSignal} rootSignal aborted when the store closes
 */
export function createPrefetcher(ctx, settings, reads, rootSignal) {
  const { meta, star } = ctx;
  const nTime = meta.times.length;
  /** @type {Run | null} */
  let current = null;
  let errors = 0;
  const onFail = () => {
    errors++;
  };

  /**
   * @param {import('./metadata.js').Level} lvl the level, checked by the caller
   * @param {number[][]} pairs [row, col] of each cell, checked by the caller
   * @param {{ t: number, playing?: boolean, masks?: boolean, stored?: boolean, signal?: AbortSignal, priority?: import('./limiter.js').Priority, onProgress?: (done: number, total: number) => void }} request
   * @returns {Promise<PrefetchResult>}
   */
  function prefetch(lvl, pairs, { t, playing = false, masks = false, stored: raw = false, signal, priority = 'background', onProgress }) {
    const previous = current;
    const link = linkSignals(rootSignal, signal);
    /** Requests this run has out, by chunk: a newer run lets those it also wants finish. */
    const reading = new Map();
    /** @type {Run} */
    const run = { link, reading, stopped: false, priority };
    current = run;
    const order = windowOrder(t, nTime, {
      horizonSteps: settings.horizonSteps,
      playing,
      reference: (s) => (star && meta.references[s] >= 0 ? meta.references[s] : null),
    });
    const tasks = plan(meta, star, lvl, pairs, order, t, masks);
    if (previous) supersede(previous, tasks, settings.maxRequests);
    const budgetBytes = playing ? settings.totalBytes / 2 : settings.idleBytes;
    const deadline = playing ? Infinity : Date.now() + settings.idleMs;
    /** @type {PrefetchResult} */
    const result = { state: 'done', order, chunks: 0, bytes: 0, failed: 0 };
    let next = 0;
    const worker = async () => {
      while (next < tasks.length) {
        if (link.signal.aborted || run.stopped) {
          result.state = 'aborted';
          return;
        }
        if (result.bytes >= budgetBytes || Date.now() >= deadline) {
          result.state = 'budget';
          return;
        }
        if (!(await fill(ctx, reads, tasks[next++], run, result, raw, onFail))) return;
        onProgress?.(result.chunks + result.failed, tasks.length);
      }
    };
    const runners = Array.from({ length: Math.max(1, settings.maxRequests) }, worker);
    return Promise.all(runners).then(() => {
      link.dispose();
      if (current === run) current = null;
      return result;
    });
  }

  return {
    prefetch,
    get errors() {
      return errors;
    },
    get running() {
      return current != null;
    },
  };
}

/**
 * The tasks of one run: every cell at every step of the order; near t (and every anchor of a
 * star-delta store) decoded, the rest only fetched.
 * @param {import('./metadata.js').StoreMetadata} meta @param {boolean} star
 * @param {import('./metadata.js').Level} lvl @param {number[][]} pairs @param {number[]} order
 * @param {number} t @param {boolean} masks
 * @returns {Task[]}
 */
function plan(meta, star, lvl, pairs, order, t, masks) {
  const tasks = [];
  for (const step of order) {
    const near = Math.abs(step - t) <= 1;
    for (const [row, col] of pairs) {
      const anchorStep = star && meta.references[step] < 0;
      tasks.push({ info: lvl.data, step, row, col, decode: star ? anchorStep || near : near });
      if (masks && lvl.mask) tasks.push({ info: lvl.mask, step, row, col, decode: near });
    }
  }
  return tasks;
}

/**
 * Stop the older run: it takes no new task, and of its requests on the wire those this run would
 * send first go on (this run joins them); the others are aborted, since on a slow link they would
 * hold bandwidth the steps near t need.
 * @param {Run} previous @param {Task[]} tasks @param {number} maxRequests
 */
function supersede(previous, tasks, maxRequests) {
  previous.stopped = true;
  const first = tasks.slice(0, Math.max(1, maxRequests));
  const wanted = new Set(first.map((task) => chunkId(task.info, task.step, task.row, task.col)));
  for (const [id, controller] of previous.reading) if (!wanted.has(id)) controller.abort(abortError(undefined));
}

/**
 * Fetch (and decode, if the task says so) one chunk, counting it in the result; false when the
 * run was aborted.
 * @param {import('./context.js').StoreContext} ctx @param {PrefetchReads} reads
 * @param {Task} task @param {Run} run @param {PrefetchResult} result @param {boolean} raw
 * @param {() => void} onFail a chunk failed (counted in the store's stats too)
 */
async function fill(ctx, reads, task, run, result, raw, onFail) {
  const residual = raw && anchorOf(ctx, task.info, task.step) >= 0;
  if (ctx.cache.has(tierKey(residual ? 's' : 'v', task.info, task.step, task.row, task.col))) {
    result.chunks++;
    return true;
  }
  const id = chunkId(task.info, task.step, task.row, task.col);
  const own = linkSignals(run.link.signal, undefined);
  run.reading.set(id, own.controller);
  try {
    const before = ctx.cache.has(`z|${id}`);
    // A ticket per chunk: a frame that joins this read moves up this chunk, not the whole run.
    const place = ticketFor(run.priority);
    const bytes = await reads.compressed(task.info, task.step, task.row, task.col, own.signal, place);
    const length = bytes ? bytes.length : 0; // read before a decode worker borrows them
    if (task.decode) await (residual ? reads.storedValues : reads.values)(task.info, task.step, task.row, task.col, own.signal, place);
    result.chunks++;
    if (!before) result.bytes += length;
  } catch (err) {
    if (isAbort(err) || own.signal.aborted) {
      result.state = 'aborted';
      return false;
    }
    result.failed++;
    onFail();
  } finally {
    run.reading.delete(id);
    own.dispose();
  }
  return true;
}
