// @ts-check
/**
 * The viewer page's bundles: the app (viewer/main.js with everything it imports) and the decode
 * worker, each one minified file in viewer/dist/, so that a cold open costs two script requests
 * instead of ninety modules. The codecs stay their packages' own files (zstddec, numcodecs), loaded
 * through the page's import map in parallel with the store's metadata; the npm package itself ships
 * the plain modules.
 *
 *   node build.mjs            write viewer/dist/ (make js runs it)
 *   node build.mjs --check    exit 1 when viewer/dist/ is not what the sources build now
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
/** esbuild: a dev dependency, or installed alone in .tools by `make demo` (which skips the dev dependencies). */
const esbuild = /** @type {typeof import('esbuild')} */ (
  await import('esbuild').catch(() => import(pathToFileURL(join(root, '.tools', 'node_modules', 'esbuild', 'lib', 'main.js')).href))
);
export const DIST = join(root, 'viewer', 'dist');
/** Entry point → bundle in DIST (the worker keeps its name: the reader's pool finds it beside the app). */
const ENTRIES = { viewer: join(root, 'viewer', 'main.js'), 'decode-worker': join(root, 'src', 'reader', 'decode-worker.js') };

/** @param {boolean} write @returns {Promise<import('esbuild').OutputFile[]>} */
export async function buildViewer(write) {
  const out = [];
  // One build per entry: no chunk shared between the page and the worker, so the page's bundle
  // imports nothing that would cost it a second round trip.
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const result = await esbuild.build({
      entryPoints: { [name]: entry },
      outdir: DIST,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      sourcemap: 'linked',
      legalComments: 'none',
      // The codecs: resolved by the page's import map (and handed to the workers by URL); node: and
      // the file reader: the reader's Node-only branches, imported on demand and never in a page.
      external: ['numcodecs', 'numcodecs/*', 'zstddec', 'node:*', './file-fetch.js'],
      write,
      logLevel: 'warning',
    });
    out.push(...result.outputFiles ?? []);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = (await buildViewer(false)).filter((f) => {
      try {
        return !readFileSync(f.path).equals(Buffer.from(f.contents));
      } catch {
        return true;
      }
    });
    if (stale.length) {
      console.error(`viewer/dist is out of date (${stale.map((f) => f.path.slice(root.length + 1)).join(', ')}): run \`make js\` or \`node js/build.mjs\``);
      process.exit(1);
    }
  } else {
    await buildViewer(true);
  }
}
