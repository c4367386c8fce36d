/**
 * A pool of decode workers. Workers start when the store begins to open (`warm`) or on first use,
 * load the store's codecs as soon as `prepare` names them, and end after `idleMs` without work or
 * on close(). A worker takes jobs once its codecs are warm; until one is, foreground chunks decode
 * on the calling thread. Prefetch (background) decodes queue behind foreground ones. In browsers each worker is a module worker;
 * one whose script is on another origin (a CDN) is started through a same-origin blob: URL that
 * imports it. In Node each is a worker thread, unreferenced once it is ready and while it has no
 * work, so an idle pool never keeps the process alive.
 * @module
 */
import { StoreError, abortError } from './errors.js';
import { decodeBytes, resolveCodecUrls } from './codecs.js';

const WORKER_URL = new URL('./decode-worker.js', import.meta.url);
/**
 * Background jobs a worker is given at once: enough that the next one is there when one ends, few
 * enough that a foreground job never waits behind more than this many.
 */
const DEPTH = 2;

/** @typedef {import('./decode-worker.js').WorkerRequest} WorkerRequest */
/** @typedef {import('./decode-worker.js').WorkerAnswer} WorkerAnswer */

/**
 * One worker as the pool drives it, whatever the platform's worker is.
 * @typedef {object} Entry
 * @property {(m: WorkerRequest, transfer?: ArrayBuffer[]) => void} post
 * @property {() => void} terminate
 * @property {() => void} ref keep the process alive while the worker has work (Node)
 * @property {() => void} unref
 * @property {number} busy jobs it holds
 * @property {number} done jobs it has finished
 * @property {boolean} ready its codecs are warm
 */

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
 * @param {object} options
 * @param {number} options.size
 * @param {number} [options.idleMs]
 * @param {() => import('./settings.js').DecodeWorker} [options.spawnWorker] makes a worker instead of the platform's default
 */
export function createPool({ size, idleMs = 30_000, spawnWorker }) {
  /** @type {Entry[]} */
  let workers = [];
  /** @type {Map<number, Running>} */
  const jobs = new Map();
  let nextId = 1;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let idleTimer = null;
  let closed = false;
  /** @type {Promise<void> | null} */
  let starting = null;
  let decodes = 0;
  let localDecodes = 0;
  /**
   * What `prepare` asked the workers to load, also sent to workers started later.
   * @type {Extract<WorkerRequest, { codecs: unknown }> | null}
   */
  let codecs = null;
  /** @type {Set<Entry>} every worker started and not yet terminated, including those still starting */
  const spawned = new Set();
  /** @type {[Job[], Job[]]} jobs not yet handed to a worker: [foreground, background] */
  const waiting = [[], []];

  async function start() {
    const urls = resolveCodecUrls();
    const made = await Promise.all(Array.from({ length: size }, () => spawn(urls)));
    if (closed) {
      stop();
      throw new StoreError('the store is closed');
    }
    workers = made;
    armIdle();
  }

  /** Start the workers now (they load and compile the codecs) unless they are running or starting. */
  function ensureStarted() {
    if (workers.length) return Promise.resolve();
    starting ??= start().catch((err) => {
      starting = null;
      throw err;
    });
    return starting;
  }

  /** @param {Record<string, string>} urls @returns {Promise<Entry>} */
  async function spawn(urls) {
    /** @type {Entry} post and terminate are the platform worker's, set below once it exists */
    const entry = { busy: 0, done: 0, ready: false, post: () => {}, terminate: () => {}, ref: () => {}, unref: () => {} };
    /** @param {Running} job */
    const finish = (job) => {
      entry.busy--;
      entry.done++;
      if (entry.busy === 0) entry.unref();
      job.returned?.(null);
    };
    /** @param {WorkerAnswer} message */
    const onMessage = (message) => {
      if ('ready' in message) {
        entry.ready = true;
        dispatch();
        if (entry.busy === 0) entry.unref();
        return;
      }
      const job = jobs.get(message.id);
      if (!job) return;
      jobs.delete(message.id);
      if (message.input) job.returned?.(message.input);
      finish(job);
      if ('error' in message) job.reject(new StoreError(message.error));
      else job.resolve(message.bytes);
      dispatch();
      armIdle();
    };
    /** @param {Error | ErrorEvent} err */
    const onError = (err) => {
      for (const [id, job] of jobs) {
        if (job.worker === entry) {
          jobs.delete(id);
          finish(job);
          job.reject(new StoreError(`the decode worker failed (${err?.message ?? err})`));
        }
      }
      dispatch();
    };
    wire(entry, spawnWorker ? spawnWorker() : await platformWorker(), onMessage, onError);
    spawned.add(entry);
    entry.post({ urls });
    if (codecs) entry.post(codecs);
    return entry;
  }

  function armIdle() {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (jobs.size || waiting[0].length || waiting[1].length || !workers.length) return;
    idleTimer = setTimeout(() => {
      idleTimer = null;
      if (!jobs.size && !waiting[0].length && !waiting[1].length) stop();
    }, idleMs);
    // In Node a pending timer keeps the process alive; an idle pool must not.
    if (typeof idleTimer === 'object') idleTimer.unref();
  }

  function stop() {
    for (const w of spawned) w.terminate();
    spawned.clear();
    workers = [];
    starting = null;
  }

  /**
   * Decode in a worker. With `returned`, a `bytes` that spans its whole buffer is transferred
   * (not copied) and comes back through `returned(input)` once the worker is done with it, or
   * `returned(null)` when it cannot come back; otherwise it is copied and the caller keeps it.
   * Foreground jobs go to a worker at once; background ones wait here until a worker holds fewer
   * than DEPTH jobs, so a foreground job never queues behind more background work than that.
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
    if (!api.ready && priority === 0) {
      // No worker can decode yet (still loading its scripts and codec, which can take longer
      // than the first chunks do on a slow link): decode here rather than wait. Prefetch waits.
      ensureStarted().catch(() => {});
      returned?.(bytes);
      localDecodes++;
      return decodeBytes(codec, bytes, expected, where);
    }
    if (!workers.length) await ensureStarted();
    if (closed) throw new StoreError('the store is closed');
    if (signal?.aborted) throw abortError(signal);
    if (idleTimer) {
      clearTimeout(idleTimer);
      idleTimer = null;
    }
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(typeof SharedArrayBuffer !== 'undefined' && bytes.buffer instanceof SharedArrayBuffer);
    const lend = Boolean(returned) && whole;
    const sent = /** @type {Uint8Array<ArrayBuffer>} */ (lend ? bytes : bytes.slice()); // lent only when its buffer is not shared
    if (returned && !lend) returned(bytes);
    return new Promise((resolve, reject) => {
      let once = false;
      const back = returned && lend ? (/** @type {Uint8Array | null} */ input) => { if (!once) { once = true; returned(input); } } : undefined;
      /** @type {Job} */
      const job = { message: { codec, bytes: sent, expected, where }, resolve, reject, returned: back, cleanup: () => {} };
      if (signal) {
        const onAbort = () => {
          const queue = waiting[priority];
          const at = queue.indexOf(job);
          if (at < 0) return; // already with a worker: it finishes, and the caller has moved on
          queue.splice(at, 1);
          back?.(bytes); // never left this thread
          reject(abortError(signal));
          armIdle();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        job.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      waiting[priority].push(job);
      dispatch();
    });
  }

  /**
   * Hand waiting jobs to the least busy workers: foreground ones at once, background ones only to
   * a worker holding fewer than DEPTH jobs, so a foreground job never waits behind more than DEPTH.
   */
  function dispatch() {
    for (;;) {
      if (!workers.length) return;
      // The least busy ready worker; between equals, the one that has decoded most.
      const ready = workers.filter((w) => w.ready);
      if (!ready.length) return;
      const worker = ready.reduce((a, b) => (b.busy < a.busy || (b.busy === a.busy && b.done > a.done) ? b : a));
      const queue = waiting[0].length ? waiting[0] : worker.busy < DEPTH ? waiting[1] : [];
      const job = queue.shift();
      if (!job) return;
      job.cleanup();
      const id = nextId++;
      jobs.set(id, { resolve: job.resolve, reject: job.reject, worker, returned: job.returned });
      if (worker.busy++ === 0) worker.ref();
      decodes++;
      worker.post({ id, ...job.message }, [job.message.bytes.buffer]);
    }
  }

  function close() {
    closed = true;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    for (const job of [...jobs.values(), ...waiting[0], ...waiting[1]]) {
      if ('cleanup' in job) job.cleanup();
      job.returned?.(null);
      job.reject(new StoreError('the store is closed'));
    }
    jobs.clear();
    waiting[0].length = 0;
    waiting[1].length = 0;
    stop();
  }

  /** Start the workers ahead of the first decode; a failure shows at that decode instead. */
  function warm() {
    if (closed) return;
    ensureStarted().catch(() => {});
  }

  /**
   * Name the store's codecs: the workers load, compile and warm them up on a synthetic chunk of
   * about `warmBytes` decoded bytes, then take jobs. Codecs named later (the history array's) are
   * added: running workers load only those.
   * @param {import('./codecs.js').CodecSpec['name'][]} names
   * @param {number} [warmBytes]
   */
  function prepare(names, warmBytes = codecs?.warmBytes) {
    const have = codecs?.codecs ?? [];
    const more = names.filter((name) => !have.includes(name));
    if (codecs && !more.length) return;
    codecs = { codecs: [...have, ...more], warmBytes };
    for (const w of spawned) w.post({ codecs: more, warmBytes });
  }

  const api = {
    decode,
    warm,
    prepare,
    close,
    get size() {
      return workers.length;
    },
    /** Workers ready to decode (with none, foreground decodes run on the calling thread). */
    get ready() {
      return [...spawned].filter((w) => w.ready).length;
    },
    /** Chunks decoded in the workers. */
    get decodes() {
      return decodes;
    },
    /** Chunks decoded on the calling thread because no worker was ready yet. */
    get localDecodes() {
      return localDecodes;
    },
  };
  return api;
}

/**
 * A worker running decode-worker.js: a module worker in browsers (through a same-origin blob: URL
 * when the script is on another origin, which a page may not start directly), a worker thread in Node.
 * @returns {Promise<import('./settings.js').DecodeWorker>}
 */
async function platformWorker() {
  if (typeof globalThis.Worker === 'function' && !globalThis.process?.versions?.node) {
    if (typeof location === 'undefined' || WORKER_URL.origin === location.origin) return new Worker(WORKER_URL, { type: 'module' });
    const source = `import ${JSON.stringify(WORKER_URL.href)};`;
    const blobUrl = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000);
    return new Worker(blobUrl, { type: 'module' });
  }
  const { Worker: NodeWorker } = await import('node:worker_threads');
  // A worker inherits the parent's flags; --input-type and --eval ones do not apply to a file.
  const execArgv = process.execArgv.filter((a) => !/^--(input-type|eval|print)/.test(a));
  return new NodeWorker(WORKER_URL, { execArgv });
}

/**
 * Let the pool drive a worker of either platform through its entry.
 * @param {Entry} entry @param {import('./settings.js').DecodeWorker} worker
 * @param {(m: WorkerAnswer) => void} onMessage @param {(err: Error | ErrorEvent) => void} onError
 */
function wire(entry, worker, onMessage, onError) {
  if ('on' in worker && typeof worker.on === 'function') {
    const thread = /** @type {import('node:worker_threads').Worker} */ (worker);
    thread.on('message', onMessage);
    thread.on('error', onError);
    entry.post = (m, t) => thread.postMessage(m, t);
    entry.terminate = () => thread.terminate();
    entry.ref = () => thread.ref();
    entry.unref = () => thread.unref(); // once it is ready and idle (jobs may wait for it until then)
    return;
  }
  const web = /** @type {Worker} */ (worker);
  web.addEventListener('message', (/** @type {MessageEvent<WorkerAnswer>} */ e) => onMessage(e.data));
  web.addEventListener('error', (e) => onError(e));
  entry.post = (m, t) => web.postMessage(m, t ?? []);
  entry.terminate = () => web.terminate();
}
