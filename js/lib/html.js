/**
 * Text into HTML markup: the viewer builds small fragments with template strings.
 * @module
 */

/** @param {unknown} s */
export function escapeHtml(s) {
  return String(s).replace(/[&<>"]/g, (c) => /** @type {Record<string, string>} */ ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}
