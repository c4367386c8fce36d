/**
 * The limits and vocabularies the JS and Python readers share, from limits.json, the one file both
 * load (the Python package reads it in src/chronozarr/limits.py): how deep a zarr.json may nest,
 * the data types and codecs a store may use, the shard index's sizes, how many bytes of shard
 * indexes a reader keeps, and how long a request and a call may take.
 * @module
 */
import LIMITS from './limits.json' with { type: 'json' };

/** A zarr.json nested deeper than this is refused (it is built to exhaust a parser). */
export const MAX_JSON_DEPTH = LIMITS.json_depth;
/** The data types of data, mask and coverage arrays (spec 2.3). */
export const DATA_TYPES = Object.freeze([...LIMITS.data_types]);
/** The data types star-delta applies to (spec 4.1). */
export const STAR_DELTA_DATA_TYPES = Object.freeze([...LIMITS.star_delta_data_types]);
/** The compression codecs a level's arrays may use, and blosc's allowed settings (spec 8). */
export const CODECS = Object.freeze([...LIMITS.codecs]);
export const BLOSC_CNAMES = Object.freeze([...LIMITS.blosc_cnames]);
export const BLOSC_SHUFFLES = Object.freeze([...LIMITS.blosc_shuffles]);
/** A shard index entry (offset and nbytes, two uint64) and the crc32c after the entries (spec 7.2). */
export const SHARD_INDEX_ENTRY_BYTES = LIMITS.shard_index_entry_bytes;
export const SHARD_INDEX_CHECKSUM_BYTES = LIMITS.shard_index_checksum_bytes;
/** Bytes of decoded shard indexes an open store keeps by default. */
export const SHARD_INDEX_CACHE_BYTES = LIMITS.shard_index_cache_bytes;
/** One request's wait for its headers or between two reads of its body, by default. */
export const REQUEST_TIMEOUT_MS = LIMITS.request_timeout_seconds * 1000;
/** All the requests of one call, by default. */
export const CALL_DEADLINE_MS = LIMITS.call_deadline_seconds * 1000;
