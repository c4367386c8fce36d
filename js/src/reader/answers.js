/**
 * What a server's answer must be for the reader to use it: bytes as stored (no Content-Encoding),
 * and for a range, a 206 with the Content-Range asked for and that many bytes.
 * @module
 */
import { FetchError } from './errors.js';

/**
 * @typedef {object} Answer
 * @property {number} status
 * @property {Headers} headers
 * @property {Uint8Array} body
 */

/** @param {Response} response @param {string} where */
export function refuseTransformed(response, where) {
  const encoding = (response.headers.get('content-encoding') ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    throw new FetchError(where, response.status, `the server sent Content-Encoding ${encoding}; chunks and shards must be served as stored (spec 9)`);
  }
}

/**
 * A 206 must carry the range asked for and that many bytes. A Content-Range the server does not
 * expose to scripts (CORS) cannot be checked; the body length still is.
 * @param {Answer} answer
 * @param {string} where
 * @param {number | null} start first byte asked for, null when not known (a suffix of an object of unknown size)
 * @param {number | null} end last byte asked for
 * @param {number} length bytes asked for
 */
export function checkPartial(answer, where, start, end, length) {
  if (answer.status === 416) throw new FetchError(where, 416, 'byte range outside the object (the store metadata does not match it)');
  if (answer.status !== 206) throw new FetchError(where, answer.status, 'unexpected status for a range request');
  const header = answer.headers.get('content-range');
  if (header != null && start != null) {
    const match = /^bytes (\d+)-(\d+)\//.exec(header.trim());
    if (!match || Number(match[1]) !== start || Number(match[2]) !== end) {
      throw new FetchError(where, 206, `the server answered Content-Range ${JSON.stringify(header)} to a request for bytes ${start}-${end}`);
    }
  }
  if (answer.body.length !== length) {
    throw new FetchError(where, 206, `the body has ${answer.body.length} bytes, expected ${length}`);
  }
}

/** The object's size a Content-Range names, or null. @param {string | null} value */
export function contentRangeTotal(value) {
  const match = value && /\/(\d+)\s*$/.exec(value);
  return match ? Number(match[1]) : null;
}
