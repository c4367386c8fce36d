/**
 * A pool of decode workers. Workers start on first use and end after `idleMs` without work or on
 * close(). In browsers each is a module worker; one whose script is on another origin (a CDN) is
 * started through a same-origin blob: URL that imports it. In Node each is a worker thread.
 * @module
 */
import { StoreError, abortError } from './errors.js';
import { resolveCodecUrls } from './codecs.js';

const WORKER_URL = new URL('./decode-worker.js', import.meta.url);

/**
 * @param {object} options
 * @param {number} options.size
 * @param {number} [options.idleMs]
 */
export function createPool({ size, idleMs = 30_000 }) {
  /** @type {{ post: Function, terminate: Function, busy: number }[]} */
  let workers = [];
  /** @type {Map<number, { resolve: Function, reject: Function, worker: any }>} */
  const jobs = new Map();
  let nextId = 1;
  let idleTimer = null;
  let closed = false;
  let starting = null;
  let decodes = 0;

  async function start() {
    const urls = resolveCodecUrls();
    const made = [];
    for (let i = 0; i < size; i++) made.push(await spawn(urls));
    if (closed) {
      made.forEach((w) => w.terminate());
      throw new StoreError('the store is closed');
    }
    workers = made;
  }

  async function spawn(urls) {
    const entry = { busy: 0, post: null, terminate: null };
    const onMessage = (message) => {
      const job = jobs.get(message.id);
      if (!job) return;
      jobs.delete(message.id);
      entry.busy--;
      if (message.error) job.reject(new StoreError(message.error));
      else job.resolve(message.bytes);
      armIdle();
    };
    const onError = (err) => {
      for (const [id, job] of jobs) {
        if (job.worker === entry) {
          jobs.delete(id);
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
    }
    entry.post({ urls });
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
   * Decode in a worker; `bytes` is copied, so the caller keeps its buffer.
   * @param {import('./codecs.js').CodecSpec} codec
   * @param {Uint8Array} bytes
   * @param {number} expected
   * @param {string} where
   * @param {AbortSignal} [signal]
   * @returns {Promise<Uint8Array>}
   */
  async function decode(codec, bytes, expected, where, signal) {
    if (closed) throw new StoreError('the store is closed');
    if (signal?.aborted) throw abortError(signal);
    if (!workers.length) {
      starting ??= start().catch((err) => {
        starting = null;
        throw err;
      });
      await starting;
    }
    if (idleTimer) {
      clearTimeout(idleTimer);
      idleTimer = null;
    }
    const worker = workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = nextId++;
    const copy = bytes.slice();
    decodes++;
    return new Promise((resolve, reject) => {
      jobs.set(id, { resolve, reject, worker });
      worker.busy++;
      worker.post({ id, codec, bytes: copy, expected, where }, [copy.buffer]);
    });
  }

  function close() {
    closed = true;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    for (const job of jobs.values()) job.reject(new StoreError('the store is closed'));
    jobs.clear();
    stop();
  }

  return {
    decode,
    close,
    get size() {
      return workers.length;
    },
    get decodes() {
      return decodes;
    },
  };
}
