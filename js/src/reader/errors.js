/**
 * Errors the reader throws. A FetchError is a request that failed in a way that is not a missing
 * key (404 and 410 read as fill); a StoreError is a store whose metadata or bytes cannot be used.
 * @module
 */

/** An HTTP (or file) request that failed; names the URL and the status (null for network errors). */
export class FetchError extends Error {
  /**
   * @param {string} url
   * @param {number | null} status
   * @param {string} reason
   * @param {{ cause?: unknown }} [options]
   */
  constructor(url, status, reason, options) {
    super(`${reason}: ${url}${status == null ? '' : ` (HTTP ${status})`}`, options);
    this.name = 'FetchError';
    this.url = url;
    this.status = status;
    this.reason = reason;
  }
}

/**
 * What every wait of a call rejects with once the call's deadline (deadlineMs) has run out.
 * @param {string} url the store's @param {number} ms
 */
export function deadlineError(url, ms) {
  return new FetchError(url, null, `gave up when the call's ${ms / 1000} s deadline ran out (the deadlineMs option sets it)`);
}

/** Metadata or stored bytes the reader cannot use; the message names what and where. */
export class StoreError extends Error {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor(message, options) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/**
 * A history declaration (docs/format-history.md) this reader cannot use; the message names the
 * field (`chronozarr.history.<field>`). Pixel histories then come from level 0. Python: HistoryError.
 */
export class HistoryError extends StoreError {
  /** @param {string} field @param {string} reason */
  constructor(field, reason) {
    super(`chronozarr.history${field ? `.${field}` : ''} ${reason}`);
    this.name = 'HistoryError';
    this.field = field;
  }
}

/**
 * The error an aborted operation rejects with, the same shape as fetch's.
 * @param {AbortSignal | undefined} signal
 * @returns {Error}
 */
export function abortError(signal) {
  const reason = signal?.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

/** @param {unknown} err */
export const isAbort = (err) => err instanceof Error && err.name === 'AbortError';
