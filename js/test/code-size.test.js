// @ts-check
// The code style's size rules over the shipped JS (src/, lib/, viewer/, maplibre/), checked by
// machine: no module over ~350 lines, no function over ~80. A function counts with the functions
// defined inside it: a factory's closures share its state, so a factory of 250 lines is one
// 250-line unit to read, however small its closures. The factories over the rule today are listed
// with their size (LONG): none may grow, a new one may not join, and one split below the rule
// leaves the list.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MODULE_LINES = 350;
const FUNCTION_LINES = 80;

/** The functions over the rule, each to be split by job, with their lines now: a ceiling, not an allowance. @type {Record<string, number>} */
const LONG = {
  // the area series (issue 39), counted with their closures once the branches met
  'src/reader/history-window.js:createWindowReads': 85,
};

/** Every .js file under `dir`, relative to js/. @param {string} dir @returns {string[]} */
function modules(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('viewer', 'dist') ? [] : modules(path); // the bundles build.mjs writes
    return /\.m?js$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The functions of `text` longer than the rule, each with its lines, those of the functions
 * inside it included.
 * @param {string} name @param {string} text @returns {Record<string, number>}
 */
function longFunctions(name, text) {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  /** @param {ts.Node} node */
  const lines = (node) => source.getLineAndCharacterOfPosition(node.end).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  /** @type {Record<string, number>} */
  const found = {};
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body && lines(node) > FUNCTION_LINES) {
      const label = 'name' in node && node.name ? node.name.getText(source) : '(anonymous)';
      found[`${name}:${label}`] = lines(node);
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

test('no shipped function is longer than the rule, beyond the listed ones, which do not grow', () => {
  /** @type {Record<string, number>} */
  const long = Object.assign({}, ...shipped.map((f) => longFunctions(f, readFileSync(join(root, f), 'utf8'))));
  const grown = Object.entries(long).filter(([fn, n]) => !(fn in LONG) || n > LONG[fn]);
  assert.deepEqual(grown, [], 'new or grown functions over the rule');
  const split = Object.keys(LONG).filter((fn) => !(fn in long));
  assert.deepEqual(split, [], 'under the rule now (or renamed): take them off LONG');
});

test('a nested function counts as lines of the one around it', () => {
  const body = (/** @type {number} */ n, /** @type {string} */ indent) => Array.from({ length: n }, (_, i) => `${indent}x${i}();`).join('\n');
  // Two closures of half the rule each: neither is long, the factory around them is.
  const half = `  function a() {\n${body(FUNCTION_LINES / 2, '    ')}\n  }\n  function b() {\n${body(FUNCTION_LINES / 2, '    ')}\n  }\n`;
  const factory = `function make() {\n${half}  return { a, b };\n}\n`;
  assert.deepEqual(longFunctions('m.js', factory), { 'm.js:make': FUNCTION_LINES + 7 });
  const flat = `const f = () => {\n${body(FUNCTION_LINES - 2, '  ')}\n};\n`;
  assert.deepEqual(longFunctions('f.js', flat), {});
});
