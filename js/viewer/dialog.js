/**
 * A modal dialog over the viewer: focus moves into it when it opens and back when it closes, Tab
 * stays inside it, a click on the backdrop closes it.
 * @module
 */

/**
 * @param {HTMLElement} host
 * @param {{ label: string, className: string, html: string }} o the box's inner markup
 */
export function createDialog(host, { label, className, html }) {
  const el = document.createElement('div');
  el.className = `dialog ${className}`;
  el.hidden = true;
  el.setAttribute('role', 'dialog');
  el.setAttribute('aria-modal', 'true');
  el.setAttribute('aria-label', label);
  el.innerHTML = `<div class="dialog-box">${html}</div>`;
  host.append(el);
  /** @type {HTMLElement | null} */
  let back = null;
  const focusable = () => /** @type {HTMLElement[]} */ ([...el.querySelectorAll('button, select, input, [tabindex="0"]')].filter((x) => !('disabled' in x && x.disabled)));

  function open() {
    if (!el.hidden) return;
    back = /** @type {HTMLElement | null} */ (document.activeElement);
    el.hidden = false;
    focusable()[0]?.focus();
  }
  function close() {
    if (el.hidden) return false;
    el.hidden = true;
    back?.focus();
    return true;
  }
  el.addEventListener('click', (e) => e.target === el && close());
  el.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      close();
      return;
    }
    if (e.key !== 'Tab') return;
    const list = focusable();
    const i = list.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    e.preventDefault();
    list[(i + (e.shiftKey ? -1 : 1) + list.length) % list.length]?.focus();
  });
  return {
    el,
    open,
    close,
    toggle: () => (el.hidden ? (open(), true) : close()),
    get isOpen() {
      return !el.hidden;
    },
  };
}
