// @ts-check
// The limits the JS reader keeps are those of src/reader/limits.json, the file the Python package
// loads too (tests/test_limits.py checks its side): each is read here from the file on its own and
// compared with what the reader does, so a constant typed again in a module would show.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DTYPES, parseArray } from '../src/reader/arrays.js';
import { StoreError } from '../src/reader/errors.js';
import * as limits from '../src/reader/limits.js';
import { DEFAULT_DEADLINE_MS, storeSettings } from '../src/reader/settings.js';
import { indexBytes } from '../src/reader/shards.js';
import { DEFAULT_TIMEOUT_MS } from '../src/reader/transport.js';

const file = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'reader', 'limits.json'), 'utf8'));

/** A one-chunk uint16 data array compressed by `compressor`. @param {object} compressor */
const doc = (compressor) => ({
  zarr_format: 3,
  node_type: 'array',
  shape: [1, 1, 4, 4],
  data_type: 'uint16',
  chunk_grid: { name: 'regular', configuration: { chunk_shape: [1, 1, 4, 4] } },
  chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
  fill_value: 0,
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, compressor],
  dimension_names: ['time', 'band', 'y', 'x'],
});

test('the reader takes its numbers from limits.json', () => {
  assert.equal(limits.MAX_JSON_DEPTH, file.json_depth);
  assert.equal(DEFAULT_TIMEOUT_MS, file.request_timeout_seconds * 1000);
  assert.equal(DEFAULT_DEADLINE_MS, file.call_deadline_seconds * 1000);
  assert.equal(storeSettings({}).shardIndexBytes, file.shard_index_cache_bytes);
  for (const n of [1, 4, 117]) assert.equal(indexBytes(n), n * file.shard_index_entry_bytes + file.shard_index_checksum_bytes);
});

test('the data types the reader decodes are those limits.json lists', () => {
  assert.deepEqual(Object.keys(DTYPES), file.data_types);
  assert.deepEqual([...limits.STAR_DELTA_DATA_TYPES], file.star_delta_data_types);
});

test('the reader accepts exactly the codecs and blosc settings limits.json lists', () => {
  for (const name of file.codecs) assert.equal(parseArray('0/data', doc({ name, configuration: {} })).codec?.name, name);
  assert.throws(() => parseArray('0/data', doc({ name: 'lz4' })), StoreError);
  for (const cname of file.blosc_cnames) assert.equal(parseArray('0/data', doc({ name: 'blosc', configuration: { cname } })).codec?.cname, cname);
  assert.throws(() => parseArray('0/data', doc({ name: 'blosc', configuration: { cname: 'blosclz' } })), StoreError);
  for (const shuffle of file.blosc_shuffles) assert.equal(parseArray('0/data', doc({ name: 'blosc', configuration: { shuffle } })).codec?.shuffle, shuffle);
});
