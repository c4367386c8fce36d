/**
 * The decode pool's jobs: those waiting for a worker, foreground before background, and those a
 * worker holds, until its answer settles them. Foreground jobs go to a worker at once; background
 * ones only to a worker holding fewer than DEPTH jobs, so a foreground job never queues behind
 * more background work than that. The workers themselves are decode-workers.js's.
 * @module
 */
import { StoreError, abortError } from './errors.js';

/**
 * Background jobs a worker is given at once: enough that the next one is there when one ends, few
 * enough that a foreground job never waits behind more than this many.
 */
const DEPTH = 2;

/** @typedef {import('./decode-workers.js').Entry} Entry */

/**
 * A decode waiting for a worker.
 * @typedef {object} Job
 * @property {{ codec: import('./codecs.js').CodecSpec, bytes: Uint8Array<ArrayBuffer>, expected: number, where: string }} message
 * @property {(bytes: Uint8Array) => void} resolve
 * @property {(err: unknown) => void} reject
 * @property {((input: Uint8Array | null) => void) | undefined} returned
 * @property {() => void} cleanup detaches the job from its caller's signal
 */

/** A decode a worker holds. @typedef {Pick<Job, 'resolve' | 'reject' | 'returned'> & { worker: Entry }} Running */

/**
 * @param {() => Entry[]} workers the started workers
 * @param {() => void} settled a job left the queue without a worker's help, or a worker answered
 */
export function createDecodeQueue(workers, settled) {
  const held = createHeld();
  /** @type {[Job[], Job[]]} jobs not yet handed to a worker: [foreground, background] */
  const waiting = [[], []];
  let decodes = 0;

  /** Hand waiting jobs to the least busy ready workers (foreground at once, background below DEPTH). */
  function dispatch() {
    for (;;) {
      const worker = leastBusy(workers());
      if (!worker) return;
      const queue = waiting[0].length ? waiting[0] : worker.busy < DEPTH ? waiting[1] : [];
      const job = queue.shift();
      if (!job) return;
      job.cleanup();
      const id = held.hold(job, worker);
      decodes++;
      worker.post({ id, ...job.message }, [job.message.bytes.buffer]);
    }
  }

  return {
    dispatch,
    /**
     * Queue a job; `signal` takes it back while it still waits (its bytes, never sent, go back).
     * @param {Omit<Job, 'cleanup'>} fields @param {0 | 1} priority @param {AbortSignal | undefined} signal @param {Uint8Array} bytes
     */
    add(fields, priority, signal, bytes) {
      /** @type {Job} */
      const job = { ...fields, cleanup: () => {} };
      if (signal) job.cleanup = withdrawOnAbort(job, waiting[priority], signal, bytes, settled);
      waiting[priority].push(job);
      dispatch();
    },
    /** @param {Answer} message */
    answer(message) {
      if (!held.answer(message)) return;
      dispatch();
      settled();
    },
    /** A worker failed: the jobs it held fail with it. @param {Entry} entry @param {Error | ErrorEvent} err */
    fail(entry, err) {
      held.fail(entry, err);
      dispatch();
    },
    /** Every job, held or waiting, fails as closed. */
    rejectAll() {
      held.rejectAll();
      for (const job of [...waiting[0], ...waiting[1]]) {
        job.cleanup();
        job.returned?.(null);
        job.reject(new StoreError('the store is closed'));
      }
      waiting[0].length = 0;
      waiting[1].length = 0;
    },
    /** Jobs waiting or held by a worker. */
    get pending() {
      return held.size + waiting[0].length + waiting[1].length;
    },
    /** Chunks handed to the workers. */
    get decodes() {
      return decodes;
    },
  };
}

/** @typedef {Exclude<import('./decode-workers.js').WorkerAnswer, { ready: unknown }>} Answer */

/** The jobs the workers hold, by id, until their answers settle them. */
function createHeld() {
  /** @type {Map<number, Running>} */
  const jobs = new Map();
  let nextId = 1;
  return {
    /** @param {Job} job @param {Entry} worker @returns {number} the id the worker answers by */
    hold(job, worker) {
      const id = nextId++;
      jobs.set(id, { resolve: job.resolve, reject: job.reject, worker, returned: job.returned });
      if (worker.busy++ === 0) worker.ref();
      return id;
    },
    /** Settle the job answered; false when none is held by that id. @param {Answer} message */
    answer(message) {
      const job = jobs.get(message.id);
      if (!job) return false;
      jobs.delete(message.id);
      if (message.input) job.returned?.(message.input);
      finish(job);
      if ('error' in message) job.reject(new StoreError(message.error));
      else job.resolve(message.bytes);
      return true;
    },
    /** @param {Entry} entry @param {Error | ErrorEvent} err */
    fail(entry, err) {
      for (const [id, job] of jobs) {
        if (job.worker === entry) {
          jobs.delete(id);
          finish(job);
          job.reject(new StoreError(`the decode worker failed (${err?.message ?? err})`));
        }
      }
    },
    rejectAll() {
      for (const job of jobs.values()) {
        job.returned?.(null);
        job.reject(new StoreError('the store is closed'));
      }
      jobs.clear();
    },
    get size() {
      return jobs.size;
    },
  };
}

/** The worker's share of a job it finished. @param {Running} job */
function finish(job) {
  const entry = job.worker;
  entry.busy--;
  entry.done++;
  if (entry.busy === 0) entry.unref();
  job.returned?.(null);
}

/** The least busy ready worker; between equals, the one that has decoded most. @param {Entry[]} workers */
function leastBusy(workers) {
  const ready = workers.filter((w) => w.ready);
  return ready.length ? ready.reduce((a, b) => (b.busy < a.busy || (b.busy === a.busy && b.done > a.done) ? b : a)) : undefined;
}

/**
 * Take a waiting job back when `signal` aborts (one a worker holds finishes; the caller has moved
 * on). Returns what detaches it from the signal.
 * @param {Job} job @param {Job[]} queue @param {AbortSignal} signal @param {Uint8Array} bytes @param {() => void} settled
 */
function withdrawOnAbort(job, queue, signal, bytes, settled) {
  const onAbort = () => {
    const at = queue.indexOf(job);
    if (at < 0) return;
    queue.splice(at, 1);
    job.returned?.(bytes); // never left this thread
    job.reject(abortError(signal));
    settled();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}
