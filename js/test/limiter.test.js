// @ts-check
// The order in which requests go on the wire (src/reader/limiter.js): by rank, a frame behind its
// coarse picture, read-ahead behind everything on screen and within its own small budget, and a
// read-ahead moved up when a frame joins it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RANKS, createLimiter, ticket, ticketFor } from '../src/reader/limiter.js';

/**
 * Ask for a slot for each name (in this order) and record the order they are given one.
 * @param {ReturnType<typeof createLimiter>} limiter
 * @param {[string, import('../src/reader/limiter.js').Ticket][]} asks
 */
function line(limiter, asks) {
  /** @type {string[]} */
  const started = [];
  /** @type {Map<string, () => void>} */
  const held = new Map();
  for (const [name, t] of asks) {
    limiter.acquire(t).then((release) => {
      started.push(name);
      held.set(name, release);
    });
  }
  const tick = () => new Promise((r) => setTimeout(r, 0));
  return { started, tick, release: async (/** @type {string} */ name) => (held.get(name)?.(), await tick()) };
}

test('requests go out best rank first, first come first within a rank', async () => {
  const limiter = createLimiter(1);
  const { started, tick, release } = line(limiter, [
    ['first', ticketFor('frame')],
    ['ahead', ticketFor('ahead')],
    ['frame-a', ticketFor('frame')],
    ['meta', ticketFor('metadata')],
    ['frame-b', ticketFor('frame')],
  ]);
  await tick();
  for (const name of ['first', 'meta', 'frame-a', 'frame-b']) await release(name);
  assert.deepEqual(started, ['first', 'meta', 'frame-a', 'frame-b', 'ahead']);
});

test("a frame's chunks wait for the coarse picture of a view that shows nothing yet", async () => {
  const limiter = createLimiter(6);
  const { started, tick, release } = line(limiter, [
    ['picture', ticketFor('picture')],
    ['frame-1', ticketFor('frame')],
    ['frame-2', ticketFor('frame')],
  ]);
  await tick();
  assert.deepEqual(started, ['picture']);
  await release('picture');
  assert.deepEqual(started, ['picture', 'frame-1', 'frame-2']);
});

test('read-ahead waits until nothing on screen is queued or in flight, then holds at most its budget', async () => {
  const limiter = createLimiter(6, { ahead: 3, background: 2 });
  const { started, tick, release } = line(limiter, [
    ['frame', ticketFor('frame')],
    ['ahead-1', ticketFor('ahead')],
    ['ahead-2', ticketFor('ahead')],
    ['ahead-3', ticketFor('ahead')],
    ['ahead-4', ticketFor('ahead')],
    ['rest', ticketFor('background')],
  ]);
  await tick();
  assert.deepEqual(started, ['frame'], 'free slots do not let read-ahead out while the frame is on the wire');
  await release('frame');
  assert.deepEqual(started, ['frame', 'ahead-1', 'ahead-2', 'ahead-3']);
  assert.equal(limiter.active, 3);
  // A new frame request comes first, and read-ahead stays held while it is out.
  const late = line(limiter, [['frame-2', ticketFor('frame')]]);
  await tick();
  assert.deepEqual(late.started, ['frame-2']);
  await release('ahead-1');
  assert.deepEqual(started, ['frame', 'ahead-1', 'ahead-2', 'ahead-3'], 'ahead-4 waits for frame-2');
  await late.release('frame-2');
  assert.deepEqual(started, ['frame', 'ahead-1', 'ahead-2', 'ahead-3', 'ahead-4']);
  // The rest holds at most 2 connections, counting the read-ahead of the next frame.
  await release('ahead-2');
  assert.equal(started.includes('rest'), false, 'ahead-3 and ahead-4 are out: the rest waits');
  await release('ahead-3');
  assert.deepEqual(started.at(-1), 'rest', 'one read-ahead request is out: the rest may take the second connection');
});

test('a waiting read-ahead moves up when a frame joins it', async () => {
  const limiter = createLimiter(1);
  const wanted = ticketFor('background');
  const { started, tick, release } = line(limiter, [
    ['busy', ticketFor('frame')],
    ['other-ahead', ticketFor('ahead')],
    ['joined', wanted],
  ]);
  await tick();
  wanted.join(ticketFor('frame'));
  assert.equal(wanted.rank, RANKS.frame);
  await release('busy');
  assert.deepEqual(started, ['busy', 'joined']);
});

test('tickets that joined each other have a rank, and an aborted wait gives its place up', async () => {
  const a = ticket(RANKS.ahead);
  const b = ticket(RANKS.background);
  a.join(b);
  b.join(a);
  b.join(ticket(RANKS.picture));
  assert.equal(a.rank, RANKS.picture);
  const limiter = createLimiter(1);
  const { started, tick, release } = line(limiter, [['busy', ticketFor('frame')]]);
  const gone = new AbortController();
  const abandoned = limiter.acquire(ticketFor('metadata'), gone.signal);
  const after = line(limiter, [['after', ticketFor('frame')]]);
  gone.abort();
  await assert.rejects(abandoned, { name: 'AbortError' });
  await tick();
  await release('busy');
  assert.deepEqual([...started, ...after.started], ['busy', 'after']);
  assert.equal(limiter.queued, 0);
  assert.throws(() => ticketFor('soon'), RangeError);
});

test("read-ahead waits between a held frame read's dependent requests (an index, then its range)", async () => {
  const limiter = createLimiter(6);
  const click = ticketFor('frame');
  const releaseHold = limiter.hold(click);
  limiter.hold(ticketFor('ahead'))(); // a read-ahead ticket holds nothing
  const { started, tick, release } = line(limiter, [['index', click], ['ahead', ticketFor('ahead')]]);
  await tick();
  await release('index'); // the index is in; the range is not asked for yet
  assert.deepEqual(started, ['index']);
  /** @type {() => void} */
  let releaseRange = () => {};
  limiter.acquire(click).then((r) => (started.push('range'), (releaseRange = r)));
  await tick();
  assert.deepEqual(started, ['index', 'range']);
  releaseRange();
  await tick();
  assert.deepEqual(started, ['index', 'range']); // the hold is on until the read is done
  releaseHold();
  releaseHold(); // once only
  await tick();
  assert.deepEqual(started, ['index', 'range', 'ahead']);
});
