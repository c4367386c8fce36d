/**
 * The decode worker: a module worker (browsers) or worker thread (Node) that decompresses chunks
 * posted by the reader's pool. Messages: { urls, warm, warmBytes } once (codec module URLs, and the
 * codecs to load and warm up right away on a chunk of about warmBytes), then { id, codec, bytes, expected, where }; answers
 * { id, bytes, input } or { id, error, input }. `bytes` arrives transferred, and the decoded array
 * and the compressed one (`input`, so the reader can keep caching it) go back transferred.
 * @module
 */
import { decodeBytes, setCodecUrls, warmCodec } from './codecs.js';

const port =
  typeof self !== 'undefined' && typeof self.postMessage === 'function'
    ? { post: (m, t) => self.postMessage(m, t), listen: (fn) => self.addEventListener('message', (e) => fn(e.data)) }
    : await (async () => {
        const { parentPort } = await import('node:worker_threads');
        return { post: (m, t) => parentPort.postMessage(m, t), listen: (fn) => parentPort.on('message', fn) };
      })();

/** Resolves once the codecs named at start are loaded and warm; decodes wait for it. */
let warming = Promise.resolve();
/** Set when a real job arrives: the warm-up stops at its next step. */
let wanted = false;

port.listen(async (message) => {
  if (message.urls) {
    setCodecUrls(message.urls);
    const names = Array.isArray(message.warm) ? message.warm : [];
    const bytes = Number(message.warmBytes) || undefined;
    warming = (async () => {
      for (const name of names) await warmCodec(name, { bytes, stop: () => wanted });
    })();
    return;
  }
  const { id, codec, bytes, expected, where } = message;
  wanted = true;
  await warming;
  const input = bytes;
  const give = (m, transfer) => {
    // the compressed bytes go back unless the decoded array is a view of them (no codec)
    const back = input.buffer !== m.bytes?.buffer && input.buffer.byteLength ? input : undefined;
    if (back) transfer.push(back.buffer);
    port.post({ ...m, input: back }, transfer);
  };
  try {
    let out = await decodeBytes(codec, bytes, expected, where);
    if (out.byteOffset !== 0 || out.byteLength !== out.buffer.byteLength) out = out.slice();
    give({ id, bytes: out }, [out.buffer]);
  } catch (err) {
    give({ id, error: err instanceof Error ? err.message : String(err) }, []);
  }
});
