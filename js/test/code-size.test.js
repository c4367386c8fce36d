// @ts-check
// The code style's size rules over the shipped JS (src/, lib/, viewer/, maplibre/), checked by
// machine: no module over ~350 lines, no function over ~80. A function's own lines leave out the
// functions defined inside it, which count on their own: a factory that returns small closures is
// judged like a class with small methods.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MODULE_LINES = 350;
const FUNCTION_LINES = 80;

/** Every .js file under `dir`, relative to js/. @param {string} dir @returns {string[]} */
function modules(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('viewer', 'dist') ? [] : modules(path); // the bundles build.mjs writes
    return /\.m?js$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The functions of `text` longer than the rule, with their own line counts.
 * @param {string} name @param {string} text @returns {string[]}
 */
function longFunctions(name, text) {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  /** @param {ts.Node} node */
  const lines = (node) => source.getLineAndCharacterOfPosition(node.end).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  /** @type {string[]} */
  const found = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      let nested = 0;
      /** @param {ts.Node} inner */
      const skipNested = (inner) => {
        if (ts.isFunctionLike(inner) && 'body' in inner && inner.body) nested += lines(inner);
        else ts.forEachChild(inner, skipNested);
      };
      ts.forEachChild(node.body, skipNested);
      const own = lines(node) - nested;
      const label = 'name' in node && node.name ? node.name.getText(source) : '(anonymous)';
      if (own > FUNCTION_LINES) found.push(`${name}:${label} (${own} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const shipped = ['src', 'lib', 'viewer', 'maplibre'].flatMap(modules);

test('no shipped module is longer than the rule', () => {
  assert.ok(shipped.length >= 60, `found ${shipped.length} modules`);
  const long = shipped.filter((f) => readFileSync(join(root, f), 'utf8').split('\n').length > MODULE_LINES);
  assert.deepEqual(long, []);
});

test('no shipped function is longer than the rule', () => {
  assert.deepEqual(shipped.flatMap((f) => longFunctions(f, readFileSync(join(root, f), 'utf8'))), []);
});

test('a nested function counts on its own, not as lines of the one around it', () => {
  const body = (/** @type {number} */ n, /** @type {string} */ indent) => Array.from({ length: n }, (_, i) => `${indent}x${i}();`).join('\n');
  const nested = `function outer() {\n  function inner() {\n${body(FUNCTION_LINES, '    ')}\n  }\n  return inner;\n}\n`;
  assert.deepEqual(longFunctions('n.js', nested), [`n.js:inner (${FUNCTION_LINES + 2} lines)`]);
  const flat = `const f = () => {\n${body(FUNCTION_LINES - 2, '  ')}\n};\n`;
  assert.deepEqual(longFunctions('f.js', flat), []);
});
