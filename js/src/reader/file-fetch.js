/**
 * A fetch for file: URLs in Node, answering as a good static host does (200, 206 with
 * Content-Range, 404, 416), so local stores go through the same request rules as remote ones.
 * @module
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { StoreError } from './errors.js';

/**
 * @param {string | URL} input
 * @param {{ method?: string, headers?: Record<string, string>, signal?: AbortSignal }} [init]
 * @returns {Promise<Response>}
 */
export async function fileFetch(input, init = {}) {
  init.signal?.throwIfAborted();
  const path = fileURLToPath(String(input));
  let handle;
  try {
    // Opened without blocking: opening a FIFO for reading would otherwise wait for a writer forever.
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code; // what fs/promises rejects with
    if (code === 'ENOENT') return new Response(null, { status: 404 });
    // not a missing object: the objects under that file are lost (as src/chronozarr/read/object_source.py)
    if (code === 'ENOTDIR') throw new StoreError(`${path} cannot be read: a directory above it is a file, not a directory (left by a copy or sync that went wrong?): remove it and copy the objects under it again`);
    if (code === 'EISDIR') throw isDirectory(path);
    if (code === 'EACCES') return new Response(null, { status: 403 });
    if (code === 'ENXIO') throw notRegular(path); // a socket: there is nothing to open
    throw err;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw isDirectory(path);
    // A FIFO would block the read, a device such as /dev/zero (or a link to one) never ends.
    if (!info.isFile()) throw notRegular(path);
    const size = info.size;
    if (init.method === 'HEAD') return new Response(null, { status: 200, headers: { 'Content-Length': String(size) } });
    const header = init.headers?.Range ?? init.headers?.range;
    let start = 0;
    let end = size - 1;
    let status = 200;
    if (header) {
      const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
      if (match && match[1] === '' && match[2] !== '') {
        start = Math.max(0, size - Number(match[2]));
      } else if (match && match[1] !== '') {
        start = Number(match[1]);
        end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
      }
      if (start >= size || start > end) {
        return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${size}` } });
      }
      status = 206;
    }
    const length = end - start + 1;
    const body = new Uint8Array(length);
    let at = 0;
    while (at < length) {
      const { bytesRead } = await handle.read(body, at, length - at, start + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    init.signal?.throwIfAborted();
    /** @type {Record<string, string>} */
    const headers = { 'Content-Length': String(length) };
    if (status === 206) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    return new Response(body, { status, headers });
  } finally {
    await handle.close();
  }
}

/** @param {string} path */
function notRegular(path) {
  return new StoreError(`${path} is not a regular file (a FIFO, socket or device, or a link to one): store objects must be regular files; replace it with the object's bytes`);
}

/** A directory where an object should be: a copy or sync gone wrong, not a missing key. @param {string} path */
function isDirectory(path) {
  return new StoreError(`${path} is a directory where the store has an object (left by a copy or sync that went wrong?): remove it and copy the object again`);
}
