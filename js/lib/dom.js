/**
 * DOM lookups that fail loudly: an element or a 2D context the code relies on and does not get
 * (markup that changed, a canvas out of memory) is an error naming it, not a null met later.
 * @module
 */

/**
 * The element `selector` finds inside `root`, which must be a `type`.
 * @template {Element} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {{ new (): T, prototype: T }} type e.g. HTMLCanvasElement
 * @returns {T}
 */
export function findElement(root, selector, type) {
  const el = root.querySelector(selector);
  if (el instanceof type) return el;
  throw new Error(el ? `${selector} is a <${el.localName}>, not the ${type.name} the viewer expects` : `no element ${selector}: the markup lacks it`);
}

/**
 * The canvas' 2D context.
 * @param {HTMLCanvasElement} canvas
 * @param {CanvasRenderingContext2DSettings} [settings] e.g. willReadFrequently, which keeps the
 *   canvas in memory rather than on the GPU
 * @returns {CanvasRenderingContext2D}
 */
export function context2d(canvas, settings) {
  const ctx = canvas.getContext('2d', settings);
  if (!ctx) throw new Error('the browser gave no 2D canvas context (out of canvas memory, or the canvas already has a WebGL one)');
  return ctx;
}

/**
 * Elements by id inside `root`, where every id carries `prefix` (a page can hold several viewers).
 * @param {ParentNode} root
 * @param {string} prefix
 */
export function idLookup(root, prefix) {
  /**
   * @overload
   * @param {string} id
   * @returns {HTMLElement}
   */
  /**
   * @template {HTMLElement} T
   * @overload
   * @param {string} id
   * @param {{ new (): T, prototype: T }} type
   * @returns {T}
   */
  /**
   * @param {string} id
   * @param {{ new (): HTMLElement, prototype: HTMLElement }} [type]
   * @returns {HTMLElement}
   */
  function byId(id, type = HTMLElement) {
    return findElement(root, `#${CSS.escape(prefix + id)}`, type);
  }
  return byId;
}
