// @ts-check
// Read every file under a directory once, so that a benchmark finds the store in the OS page cache:
// this machine reclaims cold pages, and a chunk read from disk would slow whichever run meets it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** @param {string} dir */
export function warmPageCache(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) warmPageCache(join(dir, entry.name));
    else readFileSync(join(dir, entry.name));
  }
}
