/**
 * A minimal event emitter: `on` returns the function that unsubscribes.
 * @module
 */

export function createEmitter() {
  /** @type {Map<string, Set<(event: any) => void>>} */
  const listeners = new Map();
  return {
    /** @param {string} type @param {(event: any) => void} fn */
    on(type, fn) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type)?.add(fn);
      return () => listeners.get(type)?.delete(fn);
    },
    /** @param {string} type @param {(event: any) => void} fn */
    off(type, fn) {
      listeners.get(type)?.delete(fn);
    },
    /** @param {string} type @param {Record<string, any>} [detail] */
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
