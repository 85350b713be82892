// Previews in turns per client (src/http/client-turns.ts), without a browser: what a waiting
// preview does when its deadline passes, and that a client's turns are forgotten once it is done.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientTurns } from '../src/http/client-turns.js';

const never = new AbortController().signal;

describe('previews in turns per client', () => {
  it('a preview whose deadline passes while it waits leaves the line; the next in line still gets its turn', async () => {
    const turns = new ClientTurns(2);
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = turns.run('a', never, () => new Promise<void>((resolve) => (releaseFirst = resolve)).then(() => order.push('first')));
    const deadline = new AbortController();
    const second = turns.run('a', deadline.signal, async () => order.push('second'));
    const third = turns.run('a', never, async () => order.push('third'));
    deadline.abort(new DOMException('deadline', 'TimeoutError'));
    await assert.rejects(second, { name: 'TimeoutError' });
    // Its place is free again: a new preview may wait where it waited.
    const fourth = turns.run('a', never, async () => order.push('fourth'));
    releaseFirst();
    await Promise.all([first, third, fourth]);
    assert.deepEqual(order, ['first', 'third', 'fourth']);
  });

  it('forgets a client once its last preview is done, and refuses a third waiting one with 429', async () => {
    const turns = new ClientTurns(1);
    let release!: () => void;
    const running = turns.run('b', never, () => new Promise<void>((resolve) => (release = resolve)));
    const waiting = turns.run('b', never, async () => {});
    await assert.rejects(
      turns.run('b', never, async () => {}),
      (error: { status: number; label: string }) => error.status === 429 && error.label === 'rate_limited',
    );
    release();
    await Promise.all([running, waiting]);
    // Nothing is held for it any more: its next preview runs at once.
    assert.equal(await turns.run('b', never, async () => 'at once'), 'at once');
  });
});
