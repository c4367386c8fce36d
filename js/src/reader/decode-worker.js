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
    // zstd is the spec's default codec: it loads and compiles now, before the store's metadata
    // has named the codecs (a store that uses another one prepares it then).
    await prepareCodec('zstd');
    return;
  }
  if (message.codecs) {
    // No job comes before { ready }, so the warm-up delays none.
    for (const name of message.codecs) await warmCodec(name, message.warmBytes);
    port.post({ ready: true });
    return;
  }
  const { id, codec, bytes, expected, where } = message;
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
