// @ts-check
// The results format of bench/record.py, written from JavaScript: the same document, rows and
// stats, so that bench/report.py reads the browser benchmarks as it reads the Python ones.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

export const SCHEMA = 'chronozarr-bench/1';

/** Median, min, max and every run of a list of measurements (null when there are none). @param {(number | null | undefined)[]} values */
export function stats(values, digits = 1) {
  const runs = values.filter((v) => v != null && Number.isFinite(v)).map((v) => Number(/** @type {number} */ (v).toFixed(digits)));
  if (!runs.length) return null;
  const s = [...runs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median: Number(median.toFixed(digits)), min: s[0], max: s[s.length - 1], runs };
}

/**
 * One row; metrics whose stats are null are left out.
 * @param {string} group @param {string} op @param {string} tool @param {string} kind @param {string} work
 * @param {Record<string, unknown>} values @param {Record<string, unknown>} [extra]
 */
export function row(group, op, tool, kind, work, values, extra = {}) {
  const kept = Object.fromEntries(Object.entries(values).filter(([, v]) => v != null));
  return { group, op, tool, kind, work, same_work: true, values: kept, ...extra };
}

/** The versions of the npm packages named, from js/node_modules. @param {string} jsRoot @param {string[]} names */
export function versions(jsRoot, names) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const name of names) {
    try {
      out[name] = JSON.parse(readFileSync(join(jsRoot, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      // not installed: left out
    }
  }
  return out;
}

export function machine() {
  return {
    cpu_count: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    platform: `${os.platform()} ${os.release()}`,
    memory_bytes: os.totalmem(),
    node: process.version,
    load_average: os.loadavg().map((v) => Number(v.toFixed(2))),
  };
}

export function quick() {
  return !['', '0', undefined].includes(process.env.BENCH_QUICK);
}

/**
 * A whole results document (bench/record.py's `document`).
 * @param {{ benchmark: string, title: string, setup: Record<string, unknown>, metrics: { key: string, label: string, unit: string, primary?: boolean }[], rows: Record<string, unknown>[], versions: Record<string, string> } & Record<string, unknown>} o
 */
export function document({ benchmark, title, setup, metrics, rows, versions: packages, ...extra }) {
  return {
    schema: SCHEMA,
    benchmark,
    title,
    date: new Date().toISOString().replace(/\.\d+Z$/, '+00:00'),
    mode: quick() || process.argv.includes('--quick') ? 'quick' : 'full',
    machine: machine(),
    versions: packages,
    setup,
    metrics,
    rows,
    ...extra,
  };
}
