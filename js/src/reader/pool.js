/**
 * A pool of decode workers. Workers start when the store opens (`warm`) or on first use, load and
 * warm up the store's codecs right away, and end after `idleMs` without work or on close(). In
 * browsers each is a module worker; one whose script is on another origin (a CDN) is started
 * through a same-origin blob: URL that imports it. In Node each is a worker thread, unreferenced
 * while it has no work so an idle pool never keeps the process alive.
 * @module
 */
import { StoreError, abortError } from './errors.js';
import { resolveCodecUrls } from './codecs.js';

const WORKER_URL = new URL('./decode-worker.js', import.meta.url);

/**
 * @param {object} options
 * @param {number} options.size
 * @param {number} [options.idleMs]
 * @param {string[]} [options.codecs] codecs each worker loads and warms up when it starts
 * @param {number} [options.warmBytes] decoded size of the synthetic chunk they warm up on
 */
export function createPool({ size, idleMs = 30_000, codecs = [], warmBytes }) {
  /** @typedef {{ post: Function, terminate: Function, ref: Function, unref: Function, busy: number }} Entry */
  /** @type {Entry[]} */
  let workers = [];
  /** @type {Map<number, { resolve: Function, reject: Function, worker: Entry, returned?: Function }>} */
  const jobs = new Map();
  let nextId = 1;
  let idleTimer = null;
  let closed = false;
  let starting = null;
  let decodes = 0;

  async function start() {
    const urls = resolveCodecUrls();
    const made = await Promise.all(Array.from({ length: size }, () => spawn(urls)));
    if (closed) {
      made.forEach((w) => w.terminate());
      throw new StoreError('the store is closed');
    }
    workers = made;
    armIdle();
  }

  /** Start the workers now (they load and warm the codecs) unless they are running or starting. */
  function ensureStarted() {
    if (workers.length) return Promise.resolve();
    starting ??= start().catch((err) => {
      starting = null;
      throw err;
    });
    return starting;
  }

  async function spawn(urls) {
    /** @type {Entry} */
    const entry = { busy: 0, post: null, terminate: null, ref: () => {}, unref: () => {} };
    const finish = (job) => {
      entry.busy--;
      if (entry.busy === 0) entry.unref();
      job.returned?.(null);
    };
    const onMessage = (message) => {
      const job = jobs.get(message.id);
      if (!job) return;
      jobs.delete(message.id);
      if (message.input) job.returned?.(message.input);
      finish(job);
      if (message.error) job.reject(new StoreError(message.error));
      else job.resolve(message.bytes);
      armIdle();
    };
    const onError = (err) => {
      for (const [id, job] of jobs) {
        if (job.worker === entry) {
          jobs.delete(id);
          finish(job);
          job.reject(new StoreError(`the decode worker failed (${err?.message ?? err})`));
        }
      }
    };
    if (typeof globalThis.Worker === 'function' && !globalThis.process?.versions?.node) {
      let worker;
      if (typeof location !== 'undefined' && WORKER_URL.origin !== location.origin) {
        const source = `import ${JSON.stringify(WORKER_URL.href)};`;
        const blobUrl = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
        worker = new Worker(blobUrl, { type: 'module' });
        setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000);
      } else {
        worker = new Worker(WORKER_URL, { type: 'module' });
      }
      worker.addEventListener('message', (e) => onMessage(e.data));
      worker.addEventListener('error', (e) => onError(e));
      entry.post = (m, t) => worker.postMessage(m, t);
      entry.terminate = () => worker.terminate();
    } else {
      const { Worker: NodeWorker } = await import('node:worker_threads');
      // A worker inherits the parent's flags; --input-type and --eval ones do not apply to a file.
      const execArgv = process.execArgv.filter((a) => !/^--(input-type|eval|print)/.test(a));
      const worker = new NodeWorker(WORKER_URL, { execArgv });
      worker.on('message', onMessage);
      worker.on('error', onError);
      entry.post = (m, t) => worker.postMessage(m, t);
      entry.terminate = () => worker.terminate();
      entry.ref = () => worker.ref();
      entry.unref = () => worker.unref();
      worker.unref();
    }
    entry.post({ urls, warm: codecs, warmBytes });
    return entry;
  }

  function armIdle() {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (jobs.size || !workers.length) return;
    idleTimer = setTimeout(() => {
      idleTimer = null;
      if (!jobs.size) stop();
    }, idleMs);
    /** @type {any} */ (idleTimer).unref?.();
  }

  function stop() {
    for (const w of workers) w.terminate();
    workers = [];
    starting = null;
  }

  /**
   * Decode in a worker. With `returned`, a `bytes` that spans its whole buffer is transferred
   * (not copied) and comes back through `returned(input)` once the worker is done with it, or
   * `returned(null)` when it cannot come back; otherwise it is copied and the caller keeps it.
   * @param {import('./codecs.js').CodecSpec} codec
   * @param {Uint8Array} bytes
   * @param {number} expected
   * @param {string} where
   * @param {AbortSignal} [signal]
   * @param {(input: Uint8Array | null) => void} [returned]
   * @returns {Promise<Uint8Array>}
   */
  async function decode(codec, bytes, expected, where, signal, returned) {
    if (closed) throw new StoreError('the store is closed');
    if (signal?.aborted) throw abortError(signal);
    if (!workers.length) await ensureStarted();
    if (closed) throw new StoreError('the store is closed');
    if (idleTimer) {
      clearTimeout(idleTimer);
      idleTimer = null;
    }
    const worker = workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = nextId++;
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(typeof SharedArrayBuffer !== 'undefined' && bytes.buffer instanceof SharedArrayBuffer);
    const lend = Boolean(returned) && whole;
    const sent = lend ? bytes : bytes.slice();
    if (returned && !lend) returned(bytes);
    decodes++;
    return new Promise((resolve, reject) => {
      let once = false;
      const back = returned && lend ? (input) => { if (!once) { once = true; returned(input); } } : undefined;
      jobs.set(id, { resolve, reject, worker, returned: back });
      if (worker.busy++ === 0) worker.ref();
      worker.post({ id, codec, bytes: sent, expected, where }, [sent.buffer]);
    });
  }

  function close() {
    closed = true;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    for (const job of jobs.values()) {
      job.returned?.(null);
      job.reject(new StoreError('the store is closed'));
    }
    jobs.clear();
    stop();
  }

  /** Start the workers ahead of the first decode; a failure shows at that decode instead. */
  function warm() {
    if (closed) return;
    ensureStarted().catch(() => {});
  }

  return {
    decode,
    warm,
    close,
    get size() {
      return workers.length;
    },
    get decodes() {
      return decodes;
    },
  };
}
