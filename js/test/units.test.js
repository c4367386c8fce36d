// @ts-check
// The small pieces: crc32c, applyDelta, chunkKey, zstd headers, shard index parsing, the cache.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyDelta, chunkKey } from '../src/index.js';
import { createCache } from '../src/reader/cache.js';
import { zstdContentSize, decodeBytes } from '../src/reader/codecs.js';
import { crc32c } from '../src/reader/crc32c.js';
import { parseShardIndex } from '../src/reader/shards.js';

test('crc32c matches the Castagnoli check value', () => {
  assert.equal(crc32c(new TextEncoder().encode('123456789')), 0xe3069283);
  assert.equal(crc32c(new Uint8Array(0)), 0);
});

test('applyDelta adds modulo 2^bits of the array type, with no clamp', () => {
  assert.deepEqual(Array.from(applyDelta(Uint8Array.of(250, 3, 0), Uint8Array.of(10, 253, 0))), [4, 0, 0]);
  assert.deepEqual(Array.from(applyDelta(Uint16Array.of(65535, 1), Uint16Array.of(1, 65535))), [0, 0]);
  const out = new Uint16Array(1);
  assert.equal(applyDelta(Uint16Array.of(7), Uint16Array.of(65534), out), out);
  assert.equal(out[0], 5);
  // @ts-expect-error the float array is the wrong input this checks is refused
  assert.throws(() => applyDelta(Float32Array.of(1), Float32Array.of(1)), TypeError);
});

test('chunkKey: unsharded, sharded, with and without a band axis', () => {
  assert.equal(chunkKey('0/data', 5, 1, 2), '0/data/c/5/0/1/2');
  assert.equal(chunkKey('1/data', 5, 1, 2, { shardTime: 4 }), '1/data/c/1/0/1/2');
  assert.equal(chunkKey('0/mask', 5, 1, 2, { banded: false }), '0/mask/c/5/1/2');
  assert.equal(chunkKey('0/mask', 13, 0, 0, { banded: false, shardTime: 12 }), '0/mask/c/1/0/0');
});

test('zstd frame content size is read from the header and bounds the decode', async () => {
  const { default: Zstd } = await import('numcodecs/zstd');
  const raw = new Uint8Array(1000).map((_, i) => i % 7);
  const frame = await new Zstd(3).encode(raw);
  assert.equal(zstdContentSize(frame), 1000);
  assert.deepEqual(await decodeBytes({ name: 'zstd' }, frame, 1000, 'x'), raw);
  await assert.rejects(decodeBytes({ name: 'zstd' }, frame, 999, 'x'), /declares 1000 bytes/);
  await assert.rejects(decodeBytes({ name: 'zstd' }, Uint8Array.of(1, 2, 3, 4, 5, 6), 10, 'x'), /magic/);
});

test('gzip inflation is bounded', async () => {
  const { gzipSync } = await import('node:zlib');
  const frame = new Uint8Array(gzipSync(new Uint8Array(5000)));
  assert.equal((await decodeBytes({ name: 'gzip' }, frame, 5000, 'x')).length, 5000);
  await assert.rejects(decodeBytes({ name: 'gzip' }, frame, 4000, 'x'), /more than 4000/);
});

test('shard index: checksum, empty entries and bounds', () => {
  const info = /** @type {import('../src/reader/arrays.js').ArrayInfo} */ ({ chunksPerShard: 2, indexBytes: 36, indexAtEnd: true });
  const raw = new Uint8Array(36);
  const view = new DataView(raw.buffer);
  view.setUint32(0, 0, true);
  view.setUint32(8, 100, true);
  for (let i = 16; i < 32; i++) raw[i] = 0xff;
  view.setUint32(32, crc32c(raw.subarray(0, 32)), true);
  const index = parseShardIndex(raw, info, 136, 'shard');
  assert.deepEqual([...index.offsets], [0, -1]);
  assert.deepEqual([...index.lengths], [100, -1]);
  assert.throws(() => parseShardIndex(raw, info, 120, 'shard'), /does not lie inside bytes 0-83/);
  raw[3] ^= 1;
  assert.throws(() => parseShardIndex(raw, info, 136, 'shard'), /checksum/);
});

test('the cache evicts least recently used across both tiers within one budget', () => {
  const cache = createCache(100);
  cache.set('a', 1, 40, 'decoded');
  cache.set('b', 2, 40, 'compressed');
  cache.get('a');
  cache.set('c', 3, 40, 'decoded');
  assert.equal(cache.has('b'), false);
  assert.equal(cache.has('a'), true);
  assert.equal(cache.stats().evictions, 1);
  assert.equal(cache.stats().bytes, 80);
  assert.equal(cache.set('huge', 4, 101, 'decoded'), false);
  assert.ok(cache.stats().peakBytes <= 100);
});
