/**
 * A minimal event emitter: `on` returns the function that unsubscribes.
 * @module
 */

/** @typedef {{ type: string } & Record<string, unknown>} EmittedEvent what a listener gets: the type and the details */
/** @typedef {(event: EmittedEvent) => void} Listener */

export function createEmitter() {
  /** @type {Map<string, Set<Listener>>} */
  const listeners = new Map();
  return {
    /** @param {string} type @param {Listener} fn */
    on(type, fn) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type)?.add(fn);
      return () => listeners.get(type)?.delete(fn);
    },
    /** @param {string} type @param {Listener} fn */
    off(type, fn) {
      listeners.get(type)?.delete(fn);
    },
    /** @param {string} type @param {Record<string, unknown>} [detail] */
    emit(type, detail = {}) {
      for (const fn of [...(listeners.get(type) ?? [])]) {
        try {
          fn({ type, ...detail });
        } catch (err) {
          // A listener's bug must not stop the layer; report it where the page can see it.
          setTimeout(() => {
            throw err;
          });
        }
      }
    },
    /** @param {string} type */
    count: (type) => listeners.get(type)?.size ?? 0,
    clear: () => listeners.clear(),
  };
}
