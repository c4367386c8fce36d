/**
 * The decode pool's workers themselves: started together (`ensureStarted`), told the codec
 * scripts' URLs and the store's codecs (`prepare`, also sent to workers started later), and
 * terminated together (`stop`). What a worker answers goes to the pool's callbacks; which job goes
 * to which worker is decode-queue.js's. In browsers each worker is a module worker; one whose
 * script is on another origin (a CDN) is started through a same-origin blob: URL that imports it.
 * In Node each is a worker thread, unreferenced once it is ready and while it has no work.
 * @module
 */
import { StoreError } from './errors.js';
import { resolveCodecUrls } from './codecs.js';

const WORKER_URL = new URL('./decode-worker.js', import.meta.url);

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
 * What the workers tell the pool.
 * @typedef {object} CrewEvents
 * @property {() => void} onStarted all the workers exist
 * @property {() => void} onReady a worker's codecs are warm: it takes jobs now
 * @property {(answer: Exclude<WorkerAnswer, { ready: unknown }>) => void} onAnswer a decode is done or failed
 * @property {(entry: Entry, err: Error | ErrorEvent) => void} onFailure the worker itself failed
 */

/**
 * @param {object} options
 * @param {number} options.size
 * @param {(() => import('./settings.js').DecodeWorker) | undefined} options.spawnWorker
 * @param {CrewEvents} events
 */
export function createCrew({ size, spawnWorker }, events) {
  /** @type {Entry[]} the started workers, empty until all of them exist */
  let workers = [];
  /** @type {Set<Entry>} every worker started and not yet terminated, including those still starting */
  const spawned = new Set();
  /** @type {Promise<void> | null} */
  let starting = null;
  let closed = false;
  /** @type {Extract<WorkerRequest, { codecs: unknown }> | null} what `prepare` asked for */
  let codecs = null;

  async function start() {
    const urls = resolveCodecUrls();
    const made = await Promise.all(Array.from({ length: size }, () => spawn(urls)));
    if (closed) {
      stop();
      throw new StoreError('the store is closed');
    }
    workers = made;
    events.onStarted();
  }

  /** @param {Record<string, string>} urls @returns {Promise<Entry>} */
  async function spawn(urls) {
    const entry = entryFor(spawnWorker ? spawnWorker() : await platformWorker(), events);
    spawned.add(entry);
    entry.post({ urls });
    if (codecs) entry.post(codecs);
    return entry;
  }

  function stop() {
    for (const w of spawned) w.terminate();
    spawned.clear();
    workers = [];
    starting = null;
  }

  return {
    /** Start the workers now (they load and compile the codecs) unless they are running or starting. */
    ensureStarted() {
      if (workers.length) return Promise.resolve();
      starting ??= start().catch((err) => {
        starting = null;
        throw err;
      });
      return starting;
    },
    stop,
    /** Stop for good: workers still starting are terminated once they exist. */
    close() {
      closed = true;
      stop();
    },
    /**
     * Name the store's codecs: the workers load, compile and warm them up on a synthetic chunk of about
     * `warmBytes` decoded bytes. Codecs named later are added: running workers load only those.
     * @param {import('./codecs.js').CodecSpec['name'][]} names @param {number} [warmBytes]
     */
    prepare(names, warmBytes = codecs?.warmBytes) {
      const have = codecs?.codecs ?? [];
      const more = names.filter((name) => !have.includes(name));
      if (codecs && !more.length) return;
      codecs = { codecs: [...have, ...more], warmBytes };
      for (const w of spawned) w.post({ codecs: more, warmBytes });
    },
    /** The started workers (none while they start). */
    get workers() {
      return workers;
    },
    /** Workers whose codecs are warm, started or still starting. */
    get ready() {
      return [...spawned].filter((w) => w.ready).length;
    },
  };
}

/**
 * The pool's entry for a platform worker, its answers passed on to `events`.
 * @param {import('./settings.js').DecodeWorker} worker @param {CrewEvents} events @returns {Entry}
 */
function entryFor(worker, events) {
  /** @type {Entry} post and terminate are the platform worker's, set by wire */
  const entry = { busy: 0, done: 0, ready: false, post: () => {}, terminate: () => {}, ref: () => {}, unref: () => {} };
  /** @param {WorkerAnswer} message */
  const onMessage = (message) => {
    if (!('ready' in message)) return events.onAnswer(message);
    entry.ready = true;
    events.onReady();
    if (entry.busy === 0) entry.unref();
  };
  wire(entry, worker, onMessage, (err) => events.onFailure(entry, err));
  return entry;
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
