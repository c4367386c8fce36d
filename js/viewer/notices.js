/**
 * What the viewer tells the user and the host page went wrong: a toast for a while, and the embed
 * API's error message; a cell that keeps failing is reported once every 10 s.
 * @module
 */

/**
 * @param {object} o
 * @param {(id: string) => HTMLElement} o.$
 * @param {{ error: (code: string, message: string) => void }} o.embed
 * @param {(t: number) => string} o.label a timestep's date
 */
export function createNotices({ $, embed, label }) {
  /** @type {ReturnType<typeof setTimeout> | 0} */ let toastTimer = 0;
  const reported = new Map();

  /** Show a message for 6 s. @param {string} message */
  function toast(message) {
    const el = $('toast');
    el.textContent = message;
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (el.hidden = true), 6000);
  }

  /** @param {unknown} err @param {import('../lib/typedefs.js').ChunkAt} where */
  function chunkFailed(err, where) {
    const k = `${where.lod}/${where.row}/${where.col}/${where.t}`;
    if (Date.now() - (reported.get(k) ?? 0) < 10_000) return;
    reported.set(k, Date.now());
    const message = `Could not read level ${where.lod} cell ${where.row},${where.col} at ${label(where.t)}: ${err instanceof Error ? err.message : err}. Retrying.`;
    toast(message);
    embed.error('chunk_load_failed', message);
  }

  return { toast, chunkFailed, stop: () => clearTimeout(toastTimer) };
}
