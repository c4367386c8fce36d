/**
 * The embedding contract (v: 1): the origin rule, the host's `chronozarr:set` and `chronozarr:get`,
 * and the viewer's `ready`, `time`, `click`, `view`, `compare`, `region` and `error` messages.
 * `compare` (the split view) and `region` (the regions drawn, set.region and the `chronozarr:region`
 * series) are optional additions within v: 1: a host that does not know them never sends them and
 * ignores their messages. Validation of a `set`
 * against the store is the app's (`validate`), so that a set is applied whole or not at all.
 * @module
 */

export const VERSION = 1;
const SENT = new Set(['chronozarr:ready', 'chronozarr:time', 'chronozarr:click', 'chronozarr:view', 'chronozarr:compare', 'chronozarr:region', 'chronozarr:error']);
const SET_FIELDS = ['t', 'product', 'band', 'zoom', 'center', 'playing', 'speed', 'compare', 'region'];

/**
 * The only origin the API talks to: `origin=` when present (exactly an http(s) origin, no fallback
 * when invalid), else the referrer's origin.
 * @param {{ origin: string | null, hasOrigin: boolean }} params
 * @param {string} referrer
 * @returns {{ origin: string | null, reason: string }}
 */
export function resolveOrigin(params, referrer) {
  if (params.hasOrigin) {
    const raw = params.origin ?? '';
    return isOrigin(raw)
      ? { origin: raw, reason: '' }
      : { origin: null, reason: `origin=${JSON.stringify(raw)} is not an http(s) origin such as https://example.com (no path, no *), so the embed API is off` };
  }
  if (referrer) {
    try {
      const o = new URL(referrer).origin;
      if (isOrigin(o)) return { origin: o, reason: '' };
    } catch {
      // fall through
    }
  }
  return { origin: null, reason: 'no origin= parameter and no referrer to take the host origin from, so the embed API is off; add origin=<your page origin> to the iframe URL' };
}

/** @param {string} s */
export function isOrigin(s) {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === s;
  } catch {
    return false;
  }
}

/**
 * @param {object} o
 * @param {{ embed: boolean, origin: string | null, hasOrigin: boolean }} o.params
 * @param {(fields: Record<string, unknown>) => { ok: true } | { ok: false, field: string, message: string }} o.validate
 * @param {(fields: Record<string, unknown>) => void} o.apply
 * @param {() => Record<string, unknown>} o.readyPayload
 * @param {(type: string, fields: Record<string, unknown>) => void} [o.onSend] sees every message the
 *   viewer sends, framed or not (mountViewer's events)
 * @param {Window} [o.win]
 */
export function createEmbed({ params, validate, apply, readyPayload, onSend, win = window }) {
  const framed = win.parent != null && win.parent !== win;
  const { origin, reason } = resolveOrigin(params, win.document.referrer);
  const enabled = params.embed && framed && origin != null;
  if (params.embed && framed && origin == null) console.warn(`chronozarr viewer: ${reason}`);
  let opened = false;
  /** @type {Record<string, unknown> | null} */
  let early = null;

  /** @param {string} type @param {Record<string, unknown>} [fields] */
  function send(type, fields = {}) {
    onSend?.(type, fields);
    if (!enabled || origin == null) return; // enabled only with an origin
    win.parent.postMessage({ v: VERSION, type, ...fields }, origin);
  }

  /** @param {string} code @param {string} message */
  function error(code, message) {
    send('chronozarr:error', { code, message });
  }

  /** @type {{ type: string, opened: boolean }[]} messages accepted from the host, with whether the store was open then (for tests) */
  const log = [];

  /** @param {MessageEvent} event its data is the host's, untrusted: checked by readMessage */
  function onMessage(event) {
    if (!enabled || event.origin !== origin || event.source !== win.parent) return;
    const msg = event.data;
    if (msg && typeof msg === 'object' && typeof msg.type === 'string') log.push({ type: msg.type, opened });
    const asked = readMessage(msg);
    if (!asked) return;
    if (asked.type === 'bad') return error('bad_message', asked.message);
    try {
      if (asked.type === 'get') {
        if (opened) send('chronozarr:ready', readyPayload());
      } else if (!opened) early = { ...(early ?? {}), ...asked.fields };
      else runSet(asked.fields);
    } catch (err) {
      console.error(err);
      error('internal', `${msg.type} failed: ${err instanceof Error ? err.message : err}`);
    }
  }

  /** @param {Record<string, unknown>} fields */
  function runSet(fields) {
    const verdict = validate(fields);
    if (verdict.ok === false) {
      error('bad_set', verdict.message);
      return;
    }
    apply(fields);
  }

  win.addEventListener('message', onMessage);

  return {
    enabled,
    origin,
    log,
    send,
    error,
    /** The store is open and the view set up: send ready, then apply the early sets, merged. */
    ready() {
      opened = true;
      send('chronozarr:ready', readyPayload());
      if (early) {
        const fields = early;
        early = null;
        try {
          runSet(fields);
        } catch (err) {
          console.error(err);
          error('internal', `chronozarr:set failed: ${err instanceof Error ? err.message : err}`);
        }
      }
    },
  };
}

/**
 * What a host's message asks (its data is untrusted): null for one not meant for the viewer (not
 * an object with a `chronozarr:` type, or a type the viewer itself sends); else a set's known
 * fields, a get, or why it is refused (another contract version, an unknown type).
 * @param {unknown} msg
 * @returns {null | { type: 'set', fields: Record<string, unknown> } | { type: 'get' } | { type: 'bad', message: string }}
 */
function readMessage(msg) {
  if (!msg || typeof msg !== 'object' || !('type' in msg) || typeof msg.type !== 'string' || !msg.type.startsWith('chronozarr:')) return null;
  if (SENT.has(msg.type)) return null;
  const v = 'v' in msg ? msg.v : undefined;
  if (v !== undefined && v !== VERSION) return { type: 'bad', message: `unsupported contract version v: ${JSON.stringify(v)}; this viewer speaks v: ${VERSION}` };
  if (msg.type === 'chronozarr:set') return { type: 'set', fields: pick(msg) };
  if (msg.type === 'chronozarr:get') return { type: 'get' };
  return { type: 'bad', message: `unknown message type ${JSON.stringify(msg.type)}; the viewer accepts chronozarr:set and chronozarr:get` };
}

/** The known fields of a set (unknown ones are ignored, so later versions can add some). @param {object} msg */
function pick(msg) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const f of SET_FIELDS) if (Object.prototype.hasOwnProperty.call(msg, f)) out[f] = /** @type {Record<string, unknown>} */ (msg)[f];
  return out;
}
