/**
 * The order in which the reader's prefetch visits timesteps, and what a timestep costs to hold:
 * load decisions, which live in the load plan (lib/load-plan.js) with every other; the reader
 * and its public API (index.js) take them from there.
 * @module
 */
export { scrubCost, windowOrder } from '../../lib/load-plan.js';
