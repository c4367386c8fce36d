/**
 * Keyboard shortcuts: one table says which keys do what, and both the key handler and the `?`
 * overlay that lists them read it, so the list on screen is the list that works.
 * @module
 */
import { createDialog } from './dialog.js';
import { escapeHtml as esc } from '../lib/html.js';

/**
 * @typedef {object} Shortcut
 * @property {string[]} keys `e.key` values; `Shift+` before a named key (Shift+ArrowLeft, Shift+Enter)
 * @property {string} label what it does
 * @property {(key: string) => void} run
 */

/**
 * @typedef {object} Actions
 * @property {(d: number) => void} step move the date by d timesteps
 * @property {(t: number | 'last') => void} jump
 * @property {(dx: number, dy: number) => void} pan CSS pixels
 * @property {(f: number) => void} zoom about the centre
 * @property {() => void} fit
 * @property {() => void} play toggles
 * @property {(add: boolean) => void} inspect the pixel at the centre of the view
 * @property {() => boolean} escape closes what is open; false when nothing was
 * @property {() => void} compare toggles the split view
 * @property {(d: number) => void} divider moves it by a fraction of the width
 * @property {(d: number) => void} stepB moves date B
 * @property {() => void} png
 * @property {() => void} video
 * @property {() => void} help
 * @property {(kind: 'box' | 'polygon') => void} draw the region tool on or off
 * @property {() => void} centreBox a box region at the centre of the view
 * @property {() => void} deleteRegions the selected regions
 */

/** @param {Actions} a @returns {Shortcut[]} */
export function shortcutTable(a) {
  const pan = 80;
  return [
    { keys: ['ArrowRight', 'ArrowUp'], label: 'Next date', run: () => a.step(1) },
    { keys: ['ArrowLeft', 'ArrowDown'], label: 'Previous date', run: () => a.step(-1) },
    { keys: ['PageUp', 'PageDown'], label: '10 dates forward / back', run: (k) => a.step(k === 'PageUp' ? 10 : -10) },
    { keys: ['Home', 'End'], label: 'First / last date', run: (k) => a.jump(k === 'Home' ? 0 : 'last') },
    { keys: [' '], label: 'Play / pause', run: () => a.play() },
    { keys: ['+', '=', '-', '_'], label: 'Zoom in / out', run: (k) => a.zoom(k === '+' || k === '=' ? 1.5 : 1 / 1.5) },
    { keys: ['0'], label: 'Fit the whole raster', run: () => a.fit() },
    {
      keys: ['Shift+ArrowLeft', 'Shift+ArrowRight', 'Shift+ArrowUp', 'Shift+ArrowDown'],
      label: 'Pan',
      run: (k) => a.pan(...(/** @type {Record<string, [number, number]>} */ ({ 'Shift+ArrowLeft': [pan, 0], 'Shift+ArrowRight': [-pan, 0], 'Shift+ArrowUp': [0, pan], 'Shift+ArrowDown': [0, -pan] })[k])),
    },
    { keys: ['Enter'], label: 'Inspect the pixel at the centre', run: () => a.inspect(false) },
    { keys: ['Shift+Enter'], label: 'Add the centre pixel to the chart', run: () => a.inspect(true) },
    { keys: ['c'], label: 'Compare two dates (split view) on / off', run: () => a.compare() },
    { keys: ['[', ']'], label: 'Move the compare divider', run: (k) => a.divider(k === '[' ? -0.05 : 0.05) },
    { keys: [',', '.'], label: 'Date B (right of the divider) back / forward', run: (k) => a.stepB(k === ',' ? -1 : 1) },
    { keys: ['r', 'g'], label: 'Draw a box / polygon region (Esc cancels, Enter closes a polygon)', run: (k) => a.draw(k === 'r' ? 'box' : 'polygon') },
    { keys: ['R'], label: 'Add a box region at the centre (Tab to a region, arrows move it)', run: () => a.centreBox() },
    { keys: ['Delete', 'Backspace'], label: 'Delete the selected regions', run: () => a.deleteRegions() },
    { keys: ['p'], label: 'Export the view as PNG', run: () => a.png() },
    { keys: ['v'], label: 'Record a time-lapse video', run: () => a.video() },
    { keys: ['?'], label: 'Show or hide this list', run: () => a.help() },
    { keys: ['Escape'], label: 'Close the open panel', run: () => a.escape() },
  ];
}

/** The name a key event matches in the table. @param {KeyboardEvent} e */
export function keyName(e) {
  return e.shiftKey && e.key.length > 1 ? `Shift+${e.key}` : e.key;
}

/**
 * Run the table's shortcuts for key presses in `target` (the page, or the viewer's element when it
 * is a part of a page), except while typing in a field.
 * @param {Document | HTMLElement} target
 * @param {Shortcut[]} table
 */
export function attachShortcuts(target, table) {
  target.addEventListener('keydown', (/** @type {Event} */ event) => {
    const e = /** @type {KeyboardEvent} */ (event); // a keydown
    const target = /** @type {HTMLElement} */ (e.target);
    const tag = target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return;
    const name = keyName(e);
    // A button takes Space and Enter itself.
    if (tag === 'BUTTON' && (name === ' ' || name === 'Enter')) return;
    const hit = table.find((s) => s.keys.includes(name));
    if (!hit) return;
    hit.run(name);
    e.preventDefault();
  });
}

const SHOWN = /** @type {Record<string, string>} */ ({ ArrowRight: '→', ArrowLeft: '←', ArrowUp: '↑', ArrowDown: '↓', ' ': 'Space', Escape: 'Esc' });
const show = (/** @type {string} */ k) => k.split('+').filter(Boolean).map((p) => SHOWN[p] ?? p).join(' + ') || '+';

/**
 * The `?` overlay: a dialog listing the table.
 * @param {HTMLElement} host
 * @param {Shortcut[]} table
 */
export function createHelp(host, table) {
  const rows = table.map((s) => `<tr><td>${s.keys.map((k) => `<kbd>${esc(show(k))}</kbd>`).join(' ')}</td><td>${esc(s.label)}</td></tr>`).join('');
  const dialog = createDialog(host, {
    label: 'Keyboard shortcuts',
    className: 'help',
    html: `<h2>Keyboard shortcuts</h2>
    <table><thead><tr><th scope="col">Keys</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table>
    <p>Tab moves between the controls; the map takes the keys above when it has the focus.</p>
    <button type="button" class="help-close">Close</button>`,
  });
  dialog.el.querySelector('.help-close')?.addEventListener('click', () => dialog.close());
  return dialog;
}
