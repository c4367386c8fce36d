// @ts-check
// zstd decoding (src/reader/zstd.js): zstddec decodes what zstd's encoder (numcodecs' build)
// wrote, refuses corrupt frames through the length check, and leaves chunks over its bound to
// numcodecs; the warm-up frame it decodes first is a valid frame.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeBytes } from '../src/reader/codecs.js';
import { ZSTDDEC_MAX, decodeZstd, zstdContentSize, zstdDecoder, zstdWithSize } from '../src/reader/zstd.js';

/** A chunk of low-entropy 16-bit "pixels" and its zstd frame. @param {number} size */
async function sample(size) {
  const { default: Zstd } = await import('numcodecs/zstd');
  const raw = new Uint8Array(size);
  let x = 7;
  for (let i = 0; i < size; i += 2) {
    x = (x * 1103515245 + 12345) >>> 0;
    raw[i] = x >>> 27;
    raw[i + 1] = (i >> 12) & 3;
  }
  return { raw, frame: /** @type {Uint8Array} */ (await new Zstd(5).encode(raw)) };
}

test('zstddec decodes frames written by the zstd library, streamed ones included', async () => {
  const { raw, frame } = await sample(1 << 19);
  assert.deepEqual(await decodeZstd(zstdWithSize(frame, raw.length), raw.length), raw);
  // The same frame without its content size, as a streaming encoder writes it: the reader declares
  // the chunk's size in it before decoding.
  const descriptor = frame[4];
  const single = (descriptor >> 5) & 1;
  const sizeBytes = [single, 2, 4, 8][descriptor >> 6];
  const fields = 5 + (single ? 0 : 1) + [0, 1, 2, 4][descriptor & 3];
  const windowByte = single ? [0x50] : [frame[5]]; // 2^20 bytes, more than the chunk
  const streamed = Uint8Array.of(...frame.subarray(0, 4), descriptor & 0x1f, ...windowByte, ...frame.subarray(single ? 5 : 6, fields), ...frame.subarray(fields + sizeBytes));
  assert.equal(zstdContentSize(streamed), null);
  assert.deepEqual(await decodeBytes({ name: 'zstd' }, streamed, raw.length, 'x'), raw);
});

test('a corrupt or truncated frame is a StoreError, not wrong values', async () => {
  const { raw, frame } = await sample(1 << 16);
  const truncated = frame.subarray(0, frame.length - 40);
  await assert.rejects(decodeBytes({ name: 'zstd' }, truncated, raw.length, 'c/0/0'), { name: 'StoreError', message: /c\/0\/0: chunk/ });
  const flipped = frame.slice();
  for (let i = 40; i < flipped.length; i += 97) flipped[i] ^= 0x5a;
  await assert.rejects(decodeBytes({ name: 'zstd' }, flipped, raw.length, 'c/0/0'), { name: 'StoreError' });
});

test('chunks over the bound are left to numcodecs, which still decodes them', async () => {
  assert.equal(await decodeZstd(new Uint8Array(16), ZSTDDEC_MAX + 1), null);
  const { raw, frame } = await sample(1 << 12);
  assert.deepEqual(await decodeBytes({ name: 'zstd' }, frame, raw.length, 'x'), raw);
});

test('the decoder loads once and decodes its warm-up frame', async () => {
  const decoder = await zstdDecoder();
  assert.equal(decoder, await zstdDecoder());
  const { raw, frame } = await sample(4096);
  assert.deepEqual(decoder.decode(frame, raw.length), raw);
});

test('a corrupt frame that numcodecs would decode to values is refused (found by the hostile corpus)', async () => {
  // A 512-byte chunk of a star-delta store with bytes of its compressed body changed: the zstd
  // library calls it corrupt, zstddec decodes nothing, and numcodecs' zstd (the old fallback)
  // decoded it to 512 bytes of made-up values.
  const hex =
    '28b52ffd6000015d0700224e1d14c0356b44a88988889090565555555555554f740143f10c4a8ee8b530181620ae49e415832006b6148183aa448ad7187ba621200b35b21ced29a30687d434584e75e98aa6a86c53f6ae560544b32c89988aeb2896f63457f3aa65a8da305ccf3348a6ed78e7480229a9aae8caae1738b2226b922c3ba8f16cc1092ab0c0a0a09a3120024210837c1040dd019b90442af8154aaa871af6fb3ef5559731d1649771b12ab2ec3e986afa37d5650845ecdd38b5fd7aa84152373cc794e6df5186feeeec6a6c914393c60b59e235dc55f245a812272b619ad4fb3de514bd10dc4975b3d637c6d4cc4905';
  const frame = Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
  const { default: Zstd } = await import('numcodecs/zstd');
  assert.equal((await new Zstd().decode(frame)).length, 512, 'numcodecs still decodes it: the case this guards');
  await assert.rejects(decodeBytes({ name: 'zstd' }, frame, 512, '0/data/c/4/0/1/1'), (err) => err instanceof Error && err.name === 'StoreError' && /0\/data\/c\/4\/0\/1\/1.*corrupt/.test(err.message));
});
