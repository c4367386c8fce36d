// @ts-check
// `chronozarr/maplibre` is published with every module it imports: the layer reuses viewer modules,
// and package.json "files" lists them one by one, so a new import must be listed too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importGraph } from './import-graph.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Whether a package "files" entry (a directory, a file, or `dir/*.ext`) covers `path`. @param {string} path */
function covered(path) {
  return pkg.files.some((/** @type {string} */ entry) => {
    if (entry.includes('*')) {
      const [dir, ext] = entry.split('*');
      return path.startsWith(dir) && path.endsWith(ext) && !path.slice(dir.length).includes('/');
    }
    return path === entry || path.startsWith(`${entry}/`);
  });
}

test('the exported layer and everything it imports are in the published files', () => {
  const found = importGraph(join(root, pkg.exports['./maplibre']));
  const missing = [...found].map((f) => relative(root, f)).filter((f) => !covered(f));
  assert.deepEqual(missing, []);
  assert.ok(found.size > 10);
});
