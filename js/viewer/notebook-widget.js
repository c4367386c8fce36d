// @ts-check
/**
 * The front end of `chronozarr.view`'s notebook widget (anywidget): the viewer in an iframe with
 * the embed API on (`embed=1`, `origin` the notebook page's), and a relay between Python and it.
 * Python's custom messages (`chronozarr:set`, `chronozarr:get`) go to the viewer; every
 * `chronozarr:*` message the viewer sends (ready, time, click, view, error) goes to Python. Until
 * the viewer's first `ready` its page may not be listening yet: other messages wait here, and the
 * sets Python sent are applied at `ready` from the `_asked` trait (all of them merged), so a widget
 * displayed after `set` calls shows what Python asked for.
 * @module
 */

/**
 * @typedef {{ get(key: string): any, on(event: string, fn: (...args: any[]) => void): void, off(event?: string, fn?: any): void, send(message: any): void }} Model
 * @typedef {{ type: string, [field: string]: unknown }} Message
 */

const PREFIX = 'chronozarr:';

/** @param {unknown} msg @returns {msg is Message} */
const isOurs = (msg) => typeof msg === 'object' && msg !== null && typeof (/** @type {any} */ (msg).type) === 'string' && /** @type {any} */ (msg).type.startsWith(PREFIX);

/**
 * The iframe address: the viewer URL Python gave, with the embed API on for this page's origin.
 * @param {string} url @param {string} origin @returns {URL}
 */
export function embedUrl(url, origin) {
  const u = new URL(url, globalThis.location?.href);
  u.searchParams.set('embed', '1');
  u.searchParams.set('origin', origin);
  return u;
}

/**
 * The `set` that brings a newly ready viewer to what Python last asked for: the fields of every
 * `set` Python sent, merged (later ones win), as the `_asked` trait holds them; null when none.
 * @param {Model} model @returns {Message | null}
 */
export function askedSet(model) {
  const asked = model.get('_asked');
  return asked && typeof asked === 'object' && Object.keys(asked).length ? { ...asked, v: 1, type: 'chronozarr:set' } : null;
}

/** @param {{ model: Model, el: HTMLElement }} context */
function render({ model, el }) {
  const frame = document.createElement('iframe');
  frame.style.cssText = 'width: 100%; border: 0;';
  frame.title = 'chronozarr viewer';
  let target = '';
  let ready = false;
  /** @type {Message[]} */
  let waiting = [];
  const post = (/** @type {Message} */ msg) => frame.contentWindow?.postMessage(msg, target);
  const load = () => {
    const url = embedUrl(model.get('url'), location.origin);
    target = url.origin;
    ready = false;
    frame.src = url.href;
    frame.style.height = `${model.get('height')}px`;
  };
  const fromViewer = (/** @type {MessageEvent} */ event) => {
    if (event.source !== frame.contentWindow || event.origin !== target || !isOurs(event.data)) return;
    if (event.data.type === 'chronozarr:ready' && !ready) {
      ready = true;
      const asked = askedSet(model);
      if (asked) post(asked);
      for (const msg of waiting) post(msg);
      waiting = [];
    }
    model.send(event.data);
  };
  const fromPython = (/** @type {unknown} */ msg) => {
    if (!isOurs(msg)) return;
    if (ready) post(msg);
    else if (msg.type !== 'chronozarr:set') waiting.push(msg); // a set waits in `_asked`, merged
  };
  const resize = () => (frame.style.height = `${model.get('height')}px`);
  load();
  window.addEventListener('message', fromViewer);
  model.on('msg:custom', fromPython);
  model.on('change:url', load);
  model.on('change:height', resize);
  el.appendChild(frame);
  return () => {
    window.removeEventListener('message', fromViewer);
    model.off('msg:custom', fromPython);
    model.off('change:url', load);
    model.off('change:height', resize);
  };
}

export default { render };
