/**
 * The decode worker: a module worker (browsers) or worker thread (Node) that decompresses chunks
 * posted by the reader's pool. Messages: { urls } once, then { id, codec, bytes, expected, where };
 * answers { id, bytes } (transferred) or { id, error }.
 * @module
 */
import { decodeBytes, setCodecUrls } from './codecs.js';

const port =
  typeof self !== 'undefined' && typeof self.postMessage === 'function'
    ? { post: (m, t) => self.postMessage(m, t), listen: (fn) => self.addEventListener('message', (e) => fn(e.data)) }
    : await (async () => {
        const { parentPort } = await import('node:worker_threads');
        return { post: (m, t) => parentPort.postMessage(m, t), listen: (fn) => parentPort.on('message', fn) };
      })();

port.listen(async (message) => {
  if (message.urls) {
    setCodecUrls(message.urls);
    return;
  }
  const { id, codec, bytes, expected, where } = message;
  try {
    let out = await decodeBytes(codec, bytes, expected, where);
    if (out.byteOffset !== 0 || out.byteLength !== out.buffer.byteLength) out = out.slice();
    port.post({ id, bytes: out }, [out.buffer]);
  } catch (err) {
    port.post({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
