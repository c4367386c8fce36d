/**
 * The embed API's `chronozarr:view` message: sent 120 ms after the view last moved, and only when
 * the zoom or centre differ from the last one sent.
 * @module
 */

/**
 * @param {{ send: (type: string, fields: Record<string, unknown>) => void }} embed
 * @param {() => Record<string, unknown>} payload the view now
 */
export function createViewReports(embed, payload) {
  let last = '';
  /** @type {ReturnType<typeof setTimeout> | 0} */ let timer = 0;

  function sendIfChanged() {
    const v = payload();
    const k = JSON.stringify(v);
    if (k === last) return;
    last = k;
    embed.send('chronozarr:view', v);
  }

  return {
    schedule() {
      clearTimeout(timer);
      timer = setTimeout(sendIfChanged, 120);
    },
    /** Send the view now, even when unchanged (a host that set it waits for the answer). */
    sendNow() {
      clearTimeout(timer);
      last = '';
      sendIfChanged();
    },
    /** Take the view now as sent (the ready message carries it). */
    mark() {
      last = JSON.stringify(payload());
    },
    stop: () => clearTimeout(timer),
  };
}
