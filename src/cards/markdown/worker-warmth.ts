// Which Markdown workers have warmed what loads on first use (Shiki and a grammar, KaTeX, the MDX
// checks: lazyWarmUpDocuments), on one SharedArrayBuffer that the pool and its workers read without
// a message:
//
// - the workers warm those parts one after another, in the order they started. Start-up is bound
//   by the CPU of two cores (the main thread waited for a core about 0.45 s of its 1.2 s to ready
//   while every worker warmed at once, docs/performance.md#start-up): one worker's warm-up then
//   runs before ready, the others' after it;
// - the pool hands a document to an idle worker that is warm before any other (warmFirst), so the
//   first requests after ready find the warm worker, not one still loading Shiki;
// - a worker after the first also waits for the pool to have handed out no document for a moment
//   (quietMs), so its warm-up does not take the CPU from the first requests after ready.
//
// Layout: [0] the pool's go-ahead (the workers' cores are loaded), [1] the next free slot, [2] the
// documents handed out so far, then one [threadId, state] pair per worker in the order they
// started; a worker replaced by piscina takes a new slot.
import type { Piscina } from 'piscina';

export const warmth = { cold: 0, warming: 1, warm: 2 } as const;
type Warmth = (typeof warmth)[keyof typeof warmth];

/** Workers tracked; later ones (after many replacements) warm at once and are picked like cold ones. */
const maxSlots = 64;
const goAhead = 0;
const nextSlot = 1;
const handedOut = 2;
const slotsStart = 3;

/** How long no document must have been handed out before a worker after the first warms. */
const quietMs = 200;

/** How long a worker waits for the one before it to be warm: a worker that died while warming never will be. */
const turnTimeoutMs = 10_000;

type LoadBalancer = NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer'];

// Node 20 has Atomics.waitAsync; TypeScript declares it from ES2024, beyond this project's target.
type WaitAsync = (array: Int32Array, index: number, value: number, timeoutMs?: number) => { async: boolean; value: Promise<string> | string };
const waitAsync = (array: Int32Array, index: number, value: number, timeoutMs?: number) =>
  (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(array, index, value, timeoutMs);

export class WorkerWarmth {
  /** `cells`: the shared memory of an existing board (a worker's, from workerData); absent, a new one. */
  constructor(readonly cells: Int32Array = new Int32Array(new SharedArrayBuffer(4 * (slotsStart + 2 * maxSlots)))) {}

  /** The pool: every worker has its core, so the warm-ups may begin (one after another). */
  goAhead(): void {
    Atomics.store(this.cells, goAhead, 1);
    Atomics.notify(this.cells, goAhead);
  }

  /** The pool: what the worker with piscina's id (its `threadId`) has warmed; cold if it is not on the board. */
  stateOf(threadId: number): Warmth {
    const used = Math.min(Atomics.load(this.cells, nextSlot), maxSlots);
    for (let slot = 0; slot < used; slot++) {
      if (Atomics.load(this.cells, slotsStart + 2 * slot) === threadId) return Atomics.load(this.cells, slotsStart + 2 * slot + 1) as Warmth;
    }
    return warmth.cold;
  }

  /**
   * The pool's balancer: of the idle workers, the warmest: a warm one, else one warming (a document
   * then waits at most for the part being loaded, often the one it needs), else the first; none when
   * all are busy (a worker takes one document at a time).
   */
  warmFirst(): LoadBalancer {
    return (_task, workers) => {
      let chosen = null;
      let chosenWarmth = -1;
      for (const worker of workers) {
        if (worker.currentUsage !== 0) continue;
        const state = this.stateOf(worker.id);
        if (state > chosenWarmth) {
          chosen = worker;
          chosenWarmth = state;
        }
        if (state === warmth.warm) break;
      }
      // piscina asks again for a document no worker could take: only one handed out is counted.
      if (chosen) {
        Atomics.add(this.cells, handedOut, 1);
        Atomics.notify(this.cells, handedOut);
      }
      return chosen;
    };
  }

  /** A worker, at its start: its place in the order of warm-ups, or undefined beyond the board. */
  claimSlot(threadId: number): number | undefined {
    const slot = Atomics.add(this.cells, nextSlot, 1);
    if (slot >= maxSlots) return undefined;
    Atomics.store(this.cells, slotsStart + 2 * slot, threadId);
    return slot;
  }

  /**
   * A worker: waits for the pool's go-ahead; a worker after the first then waits for the one before
   * it to be warm (or a while, if it never is), and for a moment without documents handed out.
   */
  async waitForTurn(slot: number | undefined): Promise<void> {
    const allowed = waitAsync(this.cells, goAhead, 0);
    if (allowed.async) await allowed.value;
    if (slot === undefined || slot === 0) return;
    const before = slotsStart + 2 * (slot - 1) + 1;
    const deadline = Date.now() + turnTimeoutMs;
    for (let state = Atomics.load(this.cells, before); state !== warmth.warm; state = Atomics.load(this.cells, before)) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const waiting = waitAsync(this.cells, before, state, left);
      if (waiting.async) await waiting.value;
    }
    for (;;) {
      const waiting = waitAsync(this.cells, handedOut, Atomics.load(this.cells, handedOut), quietMs);
      if ((waiting.async ? await waiting.value : waiting.value) === 'timed-out') return;
    }
  }

  /** A worker: what it has warmed, for the pool and the worker after it. */
  set(slot: number | undefined, state: Warmth): void {
    if (slot === undefined) return;
    Atomics.store(this.cells, slotsStart + 2 * slot + 1, state);
    Atomics.notify(this.cells, slotsStart + 2 * slot + 1);
  }
}
