// The board of the Markdown workers' warm-ups (src/cards/markdown/worker-warmth.ts), without
// workers, then with a pool's real ones: the warm-ups take turns in the order the workers started (the later ones once the pool
// is quiet), and the pool's balancer hands a document to the warmest idle worker, never to a busy one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MarkdownPool } from '../src/cards/markdown/markdown-pool.js';
import { WorkerWarmth, warmth } from '../src/cards/markdown/worker-warmth.js';

type Balancer = ReturnType<WorkerWarmth['warmFirst']>;
type Workers = Parameters<NonNullable<Balancer>>[1];

/** Stand-ins for piscina's view of its workers: an id (the worker's threadId) and the documents it runs. */
const workers = (entries: Array<[id: number, usage: number]>) => entries.map(([id, currentUsage]) => ({ id, currentUsage, isRunningAbortableTask: currentUsage > 0 })) as unknown as Workers;
const choose = (board: WorkerWarmth, pool: Workers) => board.warmFirst()!({} as never, pool)?.id ?? null;

const settledWithin = async (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(resolve, ms, false))]);

describe('the Markdown workers\' warm-up board', () => {
  it('lets the workers warm one after another, in the order they started, once the pool says so', async () => {
    const pool = new WorkerWarmth();
    // Each worker sees the same memory through its own board, as workerData gives it.
    const [first, second, third] = [new WorkerWarmth(pool.cells), new WorkerWarmth(pool.cells), new WorkerWarmth(pool.cells)];
    const slots = [first.claimSlot(11), second.claimSlot(12), third.claimSlot(13)];
    assert.deepEqual(slots, [0, 1, 2]);
    const turns = slots.map((slot, index) => [first, second, third][index]!.waitForTurn(slot));
    assert.equal(await settledWithin(turns[0]!, 50), false, 'no warm-up before the go-ahead');
    pool.goAhead();
    assert.equal(await settledWithin(turns[0]!, 1000), true, 'the first worker warms at once');
    first.set(slots[0], warmth.warming);
    assert.equal(await settledWithin(turns[1]!, 50), false, 'the second waits while the first is warming');
    first.set(slots[0], warmth.warm);
    assert.equal(await settledWithin(turns[1]!, 1000), true, 'the second warms once the first is warm');
    assert.equal(await settledWithin(turns[2]!, 50), false, 'the third waits for the second');
    // Documents handed out keep the third waiting: its warm-up would take the CPU from them.
    const balance = pool.warmFirst()!;
    second.set(slots[1], warmth.warm);
    const handingOut = setInterval(() => balance({} as never, workers([[11, 0]])), 50);
    try {
      assert.equal(await settledWithin(turns[2]!, 600), false, 'no warm-up while documents are handed out');
    } finally {
      clearInterval(handingOut);
    }
    assert.equal(await settledWithin(turns[2]!, 1000), true, 'the third warms once the pool is quiet');
    assert.deepEqual([11, 12, 13, 14].map((id) => pool.stateOf(id)), [warmth.warm, warmth.warm, warmth.cold, warmth.cold]);
  });

  it('hands a document to the warmest idle worker, and to none when every worker is busy', () => {
    const board = new WorkerWarmth();
    const [, slotOf2, slotOf3] = [1, 2, 3].map((id) => board.claimSlot(id));
    assert.equal(choose(board, workers([[1, 0], [2, 0], [3, 0]])), 1, 'all cold: the first idle one');
    board.set(slotOf3, warmth.warming);
    assert.equal(choose(board, workers([[1, 0], [2, 0], [3, 0]])), 3, 'one warming: it, before the cold ones');
    board.set(slotOf2, warmth.warm);
    assert.equal(choose(board, workers([[1, 0], [2, 0], [3, 0]])), 2, 'one warm: it');
    assert.equal(choose(board, workers([[1, 0], [2, 1], [3, 0]])), 3, 'a busy warm worker is passed over for the warmest idle one');
    assert.equal(choose(board, workers([[1, 1], [2, 1], [3, 1]])), null);
    assert.equal(choose(board, workers([[9, 0]])), 9, 'a worker not on the board is still used');
  });

  it('never picks a busy worker, and always one of the warmest idle ones', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ state: fc.constantFrom(warmth.cold, warmth.warming, warmth.warm), busy: fc.boolean(), onBoard: fc.boolean() }), { maxLength: 8 }),
        (entries) => {
          const board = new WorkerWarmth();
          entries.forEach((entry, index) => {
            if (!entry.onBoard) return;
            const slot = board.claimSlot(100 + index);
            board.set(slot, entry.state);
          });
          const chosen = choose(board, workers(entries.map((entry, index) => [100 + index, entry.busy ? 1 : 0])));
          const idle = entries.map((entry, index) => ({ ...entry, id: 100 + index, warmth: entry.onBoard ? entry.state : warmth.cold })).filter((entry) => !entry.busy);
          if (idle.length === 0) return chosen === null;
          const best = Math.max(...idle.map((entry) => entry.warmth));
          return chosen !== null && idle.some((entry) => entry.id === chosen && entry.warmth === best);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('in a real pool: no worker warms before the go-ahead, the second only once the first is warm and no document is handed out', async () => {
    const pool = new MarkdownPool({ threads: 2, cpuLimitMs: 20_000, queueMax: 8 });
    try {
      await pool.warmUp();
      const board = new WorkerWarmth((pool.piscina.options.workerData as { warmth: Int32Array }).warmth);
      const ids = pool.piscina.threads.map((thread) => thread.threadId);
      assert.equal(ids.length, 2);
      const states = () => ids.map((id) => board.stateOf(id));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(states(), [warmth.cold, warmth.cold], 'nothing warmed before the go-ahead');
      pool.warmLazyParts();
      // Documents keep coming: the first worker to start warms, the other waits.
      const seen: number[][] = [];
      const deadline = Date.now() + 60_000;
      while (!states().includes(warmth.warm) && Date.now() < deadline) {
        seen.push(states());
        await pool.render(`plain text ${seen.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const first = states().indexOf(warmth.warm);
      assert.notEqual(first, -1, 'one worker warmed');
      const second = 1 - first;
      assert.ok(seen.every((observed) => observed[second] === warmth.cold), 'the other did not begin while the first warmed');
      for (let i = 0; i < 10; i++) {
        await pool.render(`more text ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(states()[second], warmth.cold, 'nor while documents are handed out');
      }
      // Quiet: it warms now.
      while (states()[second] !== warmth.warm && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(states(), [warmth.warm, warmth.warm]);
    } finally {
      await pool.close();
    }
  });
});
