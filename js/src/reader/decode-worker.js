/**
 * The decode worker: a module worker (browsers) or worker thread (Node) that decompresses chunks
 * posted by the reader's pool. Messages: { urls } once (codec module URLs), { codecs, warmBytes }
 * when the store's codecs are known (they load, compile and warm up on a chunk of about warmBytes,
 * then the worker answers { ready: true }), then { id, codec, bytes, expected, where }; answers
 * { id, bytes, input } or { id, error, input }.
 * `bytes` arrives transferred, and the decoded array and the compressed one (`input`, so the
 * reader can keep caching it) go back transferred.
 * @module
 */
import { decodeBytes, prepareCodec, setCodecUrls, warmCodec } from './codecs.js';

/**
 * What the pool posts: the codec URLs, the store's codecs, or a chunk to decode.
 * @typedef {{ urls: Record<string, string> }
 *   | { codecs: ('zstd' | 'blosc' | 'gzip')[], warmBytes: number | undefined }
 *   | { id: number, codec: import('./codecs.js').CodecSpec, bytes: Uint8Array, expected: number, where: string }} WorkerRequest
 */

/**
 * What the worker answers: ready once its codecs are warm, then each job's decoded bytes or its
 * error, with the compressed bytes it was lent when they can go back.
 * @typedef {{ ready: true }
 *   | { id: number, bytes: Uint8Array, input?: Uint8Array }
 *   | { id: number, error: string, input?: Uint8Array }} WorkerAnswer
 */

/** @typedef {{ post: (m: WorkerAnswer, transfer?: ArrayBuffer[]) => void, listen: (fn: (m: WorkerRequest) => void) => void }} Port */

/**
 * A module worker's global scope, as much of it as is used here (lib.dom types `self` as a window).
 * @typedef {{ postMessage: (m: WorkerAnswer, transfer?: ArrayBuffer[]) => void, addEventListener: (type: 'message', fn: (e: MessageEvent<WorkerRequest>) => void) => void }} WorkerScope
 */

/** @param {WorkerScope} scope @returns {Port} */
const workerPort = (scope) => ({ post: (m, t) => scope.postMessage(m, t), listen: (fn) => scope.addEventListener('message', (e) => fn(e.data)) });

/** @returns {Promise<Port>} */
async function nodePort() {
  const { parentPort } = await import('node:worker_threads');
  if (!parentPort) throw new Error('decode-worker.js runs as a worker thread, not as the main module');
  return { post: (m, t) => parentPort.postMessage(m, t), listen: (fn) => parentPort.on('message', fn) };
}

/** @type {Port} */
const port =
  typeof self !== 'undefined' && typeof self.postMessage === 'function'
    ? workerPort(/** @type {WorkerScope} */ (self))
    : await nodePort();

port.listen(async (message) => {
  if ('urls' in message) {
    setCodecUrls(message.urls);
    // zstd is the spec's default codec: it loads and compiles now, before the store's metadata
    // has named the codecs (a store that uses another one prepares it then).
    await prepareCodec('zstd');
    return;
  }
  if ('codecs' in message) {
    // No job comes before { ready }, so the warm-up delays none.
    for (const name of message.codecs) await warmCodec(name, message.warmBytes);
    port.post({ ready: true });
    return;
  }
  const { id, codec, bytes, expected, where } = message;
  const input = bytes;
  /** @param {{ id: number, bytes: Uint8Array } | { id: number, error: string }} m @param {ArrayBuffer[]} transfer */
  const give = (m, transfer) => {
    // the compressed bytes go back unless the decoded array is a view of them (no codec)
    const back = input.buffer !== ('bytes' in m ? m.bytes.buffer : undefined) && input.buffer.byteLength ? input : undefined;
    if (back) transfer.push(/** @type {ArrayBuffer} */ (back.buffer)); // it arrived transferred: not shared
    port.post({ ...m, input: back }, transfer);
  };
  try {
    let out = await decodeBytes(codec, bytes, expected, where);
    if (out.byteOffset !== 0 || out.byteLength !== out.buffer.byteLength) out = out.slice();
    give({ id, bytes: out }, [/** @type {ArrayBuffer} */ (out.buffer)]); // a codec's output: not shared
  } catch (err) {
    give({ id, error: err instanceof Error ? err.message : String(err) }, []);
  }
});
