// @ts-check
// The static import graph of an ES module, read from its source: for tests that keep lists of
// modules (preload links, published files) equal to what the code imports.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Relative static imports of a module (`import ... from './x.js'`, `export ... from './x.js'`). @param {string} file */
export function staticImports(file) {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+["'](\.[^"']+)["']/gms)].map((m) => join(dirname(file), m[1]));
}

/** A module and everything it imports statically, directly or not. @param {string} entry */
export function importGraph(entry) {
  const found = new Set([entry]);
  const todo = [entry];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    for (const dep of staticImports(file)) {
      if (!found.has(dep)) {
        found.add(dep);
        todo.push(dep);
      }
    }
  }
  return found;
}
