/**
 * A pool of decode workers. Workers start when the store begins to open (`warm`) or on first use,
 * load the store's codecs as soon as `prepare` names them, and end after `idleMs` without work or
 * on close(). A worker takes jobs once its codecs are warm; until one is, foreground chunks decode
 * on the calling thread. Prefetch (background) decodes queue behind foreground ones. The parts:
 * decode-workers.js starts, warms and stops the workers (module workers in browsers, worker threads
 * in Node, which an idle pool never keeps alive); decode-queue.js hands them the jobs; this module
 * decides where a decode runs, lends its bytes and stops idle workers.
 * @module
 */
import { StoreError, abortError } from './errors.js';
import { decodeBytes } from './codecs.js';
import { createDecodeQueue } from './decode-queue.js';
import { createCrew } from './decode-workers.js';

/**
 * @param {object} options
 * @param {number} options.size
 * @param {number} [options.idleMs]
 * @param {() => import('./settings.js').DecodeWorker} [options.spawnWorker] makes a worker instead of the platform's default
 */
export function createPool({ size, idleMs = 30_000, spawnWorker }) {
  let closed = false;
  let localDecodes = 0;
  /** @type {import('./decode-workers.js').CrewEvents} */
  const events = { onStarted: () => idle.arm(), onReady: () => queue.dispatch(), onAnswer: (a) => queue.answer(a), onFailure: (w, err) => queue.fail(w, err) };
  const crew = createCrew({ size, spawnWorker }, events);
  const queue = createDecodeQueue(() => crew.workers, () => idle.arm());
  const idle = idleStop(idleMs, () => queue.pending > 0, () => crew.workers.length > 0, crew.stop);

  /**
   * Decode in a worker. With `returned`, a `bytes` that spans its whole buffer is transferred
   * (not copied) and comes back through `returned(input)` once the worker is done with it, or
   * `returned(null)` when it cannot come back; otherwise it is copied and the caller keeps it.
   * Foreground jobs go to a worker at once; background ones wait for one (decode-queue.js).
   * @param {import('./codecs.js').CodecSpec} codec
   * @param {Uint8Array} bytes
   * @param {number} expected
   * @param {string} where
   * @param {AbortSignal} [signal] aborts the job while it waits for a worker
   * @param {(input: Uint8Array | null) => void} [returned]
   * @param {0 | 1} [priority] 0 foreground, 1 background (prefetch)
   * @returns {Promise<Uint8Array>}
   */
  async function decode(codec, bytes, expected, where, signal, returned, priority = 0) {
    if (closed) throw new StoreError('the store is closed');
    if (signal?.aborted) throw abortError(signal);
    if (!crew.ready && priority === 0) {
      // No worker can decode yet (still loading its scripts and codec, which can take longer
      // than the first chunks do on a slow link): decode here rather than wait. Prefetch waits.
      crew.ensureStarted().catch(() => {});
      returned?.(bytes);
      localDecodes++;
      return decodeBytes(codec, bytes, expected, where);
    }
    if (!crew.workers.length) await crew.ensureStarted();
    if (closed) throw new StoreError('the store is closed');
    if (signal?.aborted) throw abortError(signal);
    idle.cancel();
    const { sent, back } = lendOrCopy(bytes, returned);
    const message = { codec, bytes: sent, expected, where };
    return new Promise((resolve, reject) => queue.add({ message, resolve, reject, returned: back }, priority, signal, bytes));
  }

  return {
    decode,
    /** Start the workers ahead of the first decode; a failure shows at that decode instead. */
    warm() {
      if (closed) return;
      crew.ensureStarted().catch(() => {});
    },
    /** Name the store's codecs, which the workers load and warm up before they take jobs. */
    prepare: crew.prepare,
    close() {
      closed = true;
      idle.cancel();
      queue.rejectAll();
      crew.close();
    },
    get size() {
      return crew.workers.length;
    },
    /** Workers ready to decode (with none, foreground decodes run on the calling thread). */
    get ready() {
      return crew.ready;
    },
    /** Chunks decoded in the workers. */
    get decodes() {
      return queue.decodes;
    },
    /** Chunks decoded on the calling thread because no worker was ready yet. */
    get localDecodes() {
      return localDecodes;
    },
  };
}

/**
 * The bytes a job sends: `bytes` itself, lent (transferred and given back once through `back`),
 * when the caller takes them back and they span a buffer of their own that is not shared; else a
 * copy, and the caller has its bytes back at once.
 * @param {Uint8Array} bytes @param {((input: Uint8Array | null) => void) | undefined} returned
 */
function lendOrCopy(bytes, returned) {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(typeof SharedArrayBuffer !== 'undefined' && bytes.buffer instanceof SharedArrayBuffer);
  const lend = Boolean(returned) && whole;
  const sent = /** @type {Uint8Array<ArrayBuffer>} */ (lend ? bytes : bytes.slice());
  if (returned && !lend) returned(bytes);
  let once = false;
  const back = returned && lend ? (/** @type {Uint8Array | null} */ input) => { if (!once) { once = true; returned(input); } } : undefined;
  return { sent, back };
}

/**
 * Stops the workers after `idleMs` without a job (`arm` after each job; `cancel` when one comes).
 * @param {number} idleMs @param {() => boolean} busy @param {() => boolean} running @param {() => void} stop
 */
function idleStop(idleMs, busy, running, stop) {
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  const cancel = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  return {
    cancel,
    arm() {
      cancel();
      if (busy() || !running()) return;
      timer = setTimeout(() => {
        timer = null;
        if (!busy()) stop();
      }, idleMs);
      // In Node a pending timer keeps the process alive; an idle pool must not.
      if (typeof timer === 'object') timer.unref();
    },
  };
}
