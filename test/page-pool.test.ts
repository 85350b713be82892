// The page pool on fake pages: admission, queue bound, deadlines, retries, discarding, drain and
// close, and generations of pages, with no browser, in milliseconds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pino } from 'pino';
import sharp from 'sharp';
import { CardError } from '../src/cards/errors.js';
import { captureCard } from '../src/cards/render/capture-card.js';
import { PagePool, type PageFactory, type PoolObserver, type RenderOutcome, type WarmUp } from '../src/cards/render/page-pool.js';

class FakePage {
  closed = false;
  clears = 0;
  failClear = false;
  /** Opened with the `common` warm-up, the rest still to do. */
  partlyWarm = false;
  constructor(
    readonly id: number,
    readonly generation: number,
  ) {}
  async clear(): Promise<void> {
    this.clears += 1;
    if (this.failClear) throw new Error('the page did not clear');
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Pages of numbered generations; a page of an older generation, or of a dead one, is unusable. */
class FakeFactory implements PageFactory<FakePage> {
  generation = 1;
  dead = false;
  readonly pages: FakePage[] = [];
  renders = 0;
  /** Errors the next opens fail with, in order. */
  readonly openFailures: Error[] = [];
  /** When set, opens wait for it (to hold pages in "opening"). */
  gate?: Promise<void>;

  /** How each page was warmed, in order of opening, and each finished warm-up as `finished <id>`. */
  readonly warmUps: string[] = [];
  /** When set, finishing a warm-up waits for it; `finishFailure` makes it fail. */
  finishGate?: Promise<void>;
  finishFailure?: Error;

  async open(warmUp: WarmUp): Promise<FakePage> {
    this.warmUps.push(warmUp);
    const generation = this.generation;
    await this.gate;
    const failure = this.openFailures.shift();
    if (failure) throw failure;
    const page = new FakePage(this.pages.length + 1, generation);
    page.partlyWarm = warmUp === 'common';
    this.pages.push(page);
    return page;
  }
  partlyWarm(page: FakePage): boolean {
    return page.partlyWarm;
  }
  /** Warm-ups finishing or finished. */
  finishing = 0;
  async finishWarmUp(page: FakePage): Promise<void> {
    this.finishing += 1;
    await this.finishGate;
    if (this.finishFailure) throw this.finishFailure;
    page.partlyWarm = false;
    this.warmUps.push(`finished ${page.id}`);
  }
  usable(page: FakePage): boolean {
    return page.generation === this.generation && !this.dead;
  }
  rendered(): void {
    this.renders += 1;
  }
  get openCount(): number {
    return this.pages.filter((page) => !page.closed).length;
  }
}

class Recorder implements PoolObserver {
  waits = 0;
  readonly renders: RenderOutcome[] = [];
  discarded = 0;
  queueWait(): void {
    this.waits += 1;
  }
  render(_seconds: number, outcome: RenderOutcome): void {
    this.renders.push(outcome);
  }
  pageDiscarded(): void {
    this.discarded += 1;
  }
  retried = 0;
  renderRetried(): void {
    this.retried += 1;
  }
}

const silent = pino({ level: 'silent' });

function makePool(options: { concurrency?: number; queueMax?: number; requestTimeoutMs?: number; busyElsewhere?: () => boolean } = {}) {
  const factory = new FakeFactory();
  const observer = new Recorder();
  const pool = new PagePool({
    factory,
    concurrency: options.concurrency ?? 1,
    queueMax: options.queueMax ?? 10,
    requestTimeoutMs: options.requestTimeoutMs,
    log: silent,
    observer,
    busyElsewhere: options.busyElsewhere,
  });
  return { pool, factory, observer };
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));
/** A signal that never aborts (each request gets its own, as in the service). */
const never = () => new AbortController().signal;

/** A deadline owned by the request: a plain timer, strongly held until it fires. */
function deadline(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  return controller.signal;
}

/** Resolves once `work` has started on a page, with that page. */
function started() {
  const page = deferred<FakePage>();
  const finish = deferred<string>();
  const work = (p: FakePage) => {
    page.resolve(p);
    return finish.promise;
  };
  return { page: page.promise, finish, work };
}

describe('page pool: admission', () => {
  it('never runs more renders or opens more pages than its concurrency', async () => {
    const { pool, factory } = makePool({ concurrency: 3, queueMax: 20 });
    let running = 0;
    let most = 0;
    let mostOpen = 0;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        pool.run(never(), async (page) => {
          running += 1;
          most = Math.max(most, running);
          mostOpen = Math.max(mostOpen, factory.openCount);
          assert.ok(pool.activeRenders <= 3);
          await tick(1 + (i % 3));
          running -= 1;
          return `${i}@${page.id}`;
        }),
      ),
    );
    assert.equal(results.length, 12);
    assert.equal(most, 3);
    assert.ok(mostOpen <= 3, `at most 3 pages open, saw ${mostOpen}`);
    assert.equal(factory.pages.length, 3, 'pages are reused, not reopened');
    assert.equal(factory.renders, 12);
    assert.equal(pool.queueLength, 0);
    assert.equal(pool.activeRenders, 0);
  });

  it('answers busy at once when every page is busy and the queue is full', async () => {
    const { pool } = makePool({ concurrency: 1, queueMax: 1 });
    const first = started();
    const running = pool.run(never(), first.work);
    await first.page;
    const queued = pool.run(never(), async () => 'queued');
    assert.equal(pool.queueLength, 1);
    assert.equal(pool.queueFull, true);
    // Refused while the first request still holds the only page: nothing was waited for.
    await assert.rejects(pool.run(never(), async () => 'refused'), (error: unknown) => {
      assert.ok(error instanceof CardError);
      assert.equal(error.kind, 'busy');
      assert.equal(error.retryAfterSeconds, 1);
      assert.match(error.message, /queue is full/);
      return true;
    });
    first.finish.resolve('first');
    assert.equal(await running, 'first');
    assert.equal(await queued, 'queued');
    assert.equal(pool.queueFull, false);
  });

  it('counts a request that a page being opened will serve as served, not queued', async () => {
    const { pool, factory } = makePool({ concurrency: 1, queueMax: 1 });
    const gate = deferred();
    factory.gate = gate.promise;
    // The pool's one page is still opening (as a lane's first page is, just after start) when two
    // requests come: the first will get that page, the second is the one queued; a third is refused.
    const starting = pool.start();
    const first = pool.run(never(), async () => 'first');
    const second = pool.run(never(), async () => 'second');
    assert.equal(pool.queueLength, 1);
    await assert.rejects(pool.run(never(), async () => 'refused'), { name: 'CardError', kind: 'busy' });
    gate.resolve();
    await starting;
    assert.deepEqual(await Promise.all([first, second]), ['first', 'second']);
    assert.equal(factory.pages.length, 1);
  });

  it('opens a page for the requests that waited for one whose opening failed', async () => {
    const { pool, factory } = makePool({ concurrency: 1, queueMax: 1 });
    const gate = deferred();
    factory.gate = gate.promise;
    factory.openFailures.push(new Error('the first page did not open'));
    const starting = pool.start();
    const waiting = pool.run(deadline(2000), async (page) => page.id);
    gate.resolve();
    await assert.rejects(starting, /did not open/);
    assert.equal(await waiting, 1);
  });

  it('with a queue of zero, refuses as soon as every page is busy', async () => {
    const { pool } = makePool({ concurrency: 1, queueMax: 0 });
    const first = started();
    const running = pool.run(never(), first.work);
    await first.page;
    await assert.rejects(pool.run(never(), async () => 'refused'), { name: 'CardError', kind: 'busy' });
    first.finish.resolve('ok');
    await running;
  });
});

describe('page pool: deadlines', () => {
  it('gives up waiting when the deadline passes in the queue, and leaves the queue', async () => {
    const { pool, observer } = makePool({ concurrency: 1 });
    const first = started();
    const running = pool.run(never(), first.work);
    const page = await first.page;
    await assert.rejects(pool.run(deadline(20), async () => 'late'), { name: 'TimeoutError' });
    assert.equal(pool.queueLength, 0);
    first.finish.resolve('first');
    await running;
    // The page that was busy is fine and serves the next request.
    await tick();
    assert.equal(await pool.run(never(), async (p) => p), page);
    assert.equal(observer.discarded, 0);
  });

  it('cancels a render at its deadline and discards its page, never reusing it', async () => {
    const { pool, factory, observer } = makePool({ concurrency: 1 });
    let cancelled: FakePage | undefined;
    await assert.rejects(
      pool.run(deadline(20), (page) => {
        cancelled = page;
        return new Promise(() => {});
      }),
      { name: 'TimeoutError' },
    );
    assert.ok(cancelled?.closed, 'the page of the cancelled render is closed');
    assert.equal(observer.discarded, 1);
    assert.deepEqual(observer.renders, ['cancelled']);
    assert.equal(pool.activeRenders, 0);
    const next = await pool.run(never(), async (page) => page);
    assert.notEqual(next, cancelled);
    assert.equal(factory.pages.length, 2);
  });

  it('refuses at once a request whose deadline has already passed', async () => {
    const { pool, factory } = makePool();
    const controller = new AbortController();
    controller.abort(new DOMException('gone', 'AbortError'));
    await assert.rejects(pool.run(controller.signal, async () => 'never'), { name: 'AbortError' });
    assert.equal(factory.pages.length, 0);
  });
});

describe('page pool: failures', () => {
  it('retries a failed render once on a fresh page, then answers render_failed', async () => {
    const { pool, factory, observer } = makePool({ concurrency: 1 });
    const pagesTried: FakePage[] = [];
    await assert.rejects(
      pool.run(never(), async (page) => {
        pagesTried.push(page);
        throw new Error('Target crashed');
      }),
      (error: unknown) => {
        assert.ok(error instanceof CardError);
        assert.equal(error.kind, 'render_failed');
        assert.match(String((error.cause as Error).message), /Target crashed/);
        return true;
      },
    );
    assert.equal(pagesTried.length, 2);
    assert.notEqual(pagesTried[0], pagesTried[1]);
    assert.ok(pagesTried.every((page) => page.closed), 'both failed pages are closed');
    assert.equal(observer.discarded, 2);
    assert.deepEqual(observer.renders, ['failed', 'failed']);
    assert.equal(factory.renders, 0);
  });

  it('succeeds on the retry when only the first attempt failed', async () => {
    const { pool } = makePool({ concurrency: 1 });
    let attempts = 0;
    const result = await pool.run(never(), async (page) => {
      attempts += 1;
      if (attempts === 1) throw new Error('Target closed');
      return page.id;
    });
    assert.equal(result, 2);
  });

  it('does not retry a CardError from the work, and keeps the page', async () => {
    const { pool, factory, observer } = makePool({ concurrency: 1 });
    let calls = 0;
    let used: FakePage | undefined;
    const refusal = new CardError('content_too_large', 'too tall');
    await assert.rejects(
      pool.run(never(), async (page) => {
        calls += 1;
        used = page;
        throw refusal;
      }),
      (error) => error === refusal,
    );
    assert.equal(calls, 1);
    assert.equal(used?.closed, false);
    assert.equal(observer.discarded, 0);
    assert.equal(factory.renders, 0, 'a refusal is not counted as a render');
    await tick();
    assert.equal(used?.clears, 1, 'the page is cleared before it is reused');
    assert.equal(await pool.run(never(), async (page) => page), used);
  });

  it('does not retry a card its image encoder fails on: the same card fails the same way again, so it is refused naming the format', async () => {
    const { pool, observer } = makePool({ concurrency: 1 });
    // A card wider than WebP allows, captured as PNG and compressed by libvips, which refuses it.
    const box = { x: 0, y: 0, width: 9000, height: 300 };
    const png = await sharp({ create: { width: 18_000, height: 600, channels: 3, background: '#fff' } }).png().toBuffer();
    let attempts = 0;
    const page = { capture: async () => png };
    await assert.rejects(
      pool.run(never(), () => {
        attempts += 1;
        return captureCard(page, box, 2, 'webp');
      }),
      (error: unknown) => {
        assert.ok(error instanceof CardError, String(error));
        assert.equal(error.kind, 'content_too_large');
        assert.match(error.message, /could not be encoded as WebP/);
        assert.match(error.message, /format "png" or "jpeg"/);
        return true;
      },
    );
    assert.equal(attempts, 1, 'the card was drawn again after its encoder failed');
    assert.equal(observer.retried, 0);
  });

  it('does not retry a CardError that left the page drawing (a card over its time), and closes that page', async () => {
    const { pool, observer } = makePool({ concurrency: 1 });
    let used: FakePage | undefined;
    const cutOff = new CardError('content_too_large', 'took too long', { pageLeftBusy: true });
    await assert.rejects(
      pool.run(never(), async (page) => {
        used = page;
        throw cutOff;
      }),
      (error) => error === cutOff,
    );
    assert.equal(used?.closed, true, 'the page still drawing is closed');
    assert.equal(used?.clears, 0, 'it is not cleared for the next request');
    assert.equal(observer.discarded, 1);
    assert.equal(observer.retried, 0);
    assert.notEqual(await pool.run(never(), async (page) => page), used);
  });

  it('retries on a freshly opened page, never on an idle one (a crash may have hit it too)', async () => {
    const { pool, factory } = makePool({ concurrency: 2 });
    // Two idle pages.
    const first = started();
    const second = started();
    const both = Promise.all([pool.run(never(), first.work), pool.run(never(), second.work)]);
    const idle = await Promise.all([first.page, second.page]);
    first.finish.resolve('a');
    second.finish.resolve('b');
    await both;
    await tick();
    const pages: FakePage[] = [];
    await pool.run(never(), async (page) => {
      pages.push(page);
      if (pages.length === 1) throw new Error('the render page crashed');
      return 'ok';
    });
    assert.ok(idle.includes(pages[0]!), 'the first attempt used an idle page');
    assert.ok(!idle.includes(pages[1]!), 'the retry got a page opened for it');
    assert.equal(factory.pages.length, 3);
  });

  it('counts a retry after a crash', async () => {
    const { pool, observer } = makePool({ concurrency: 1 });
    let calls = 0;
    assert.equal(
      await pool.run(never(), async () => {
        if (++calls === 1) throw new Error('the render page crashed');
        return 'second time';
      }),
      'second time',
    );
    assert.equal(observer.retried, 1);
  });

  it('discards a page that cannot be cleared after its render', async () => {
    const { pool, observer } = makePool({ concurrency: 1 });
    const first = await pool.run(never(), async (page) => {
      page.failClear = true;
      return page;
    });
    await tick();
    assert.ok(first.closed);
    assert.equal(observer.discarded, 1);
    assert.notEqual(await pool.run(never(), async (page) => page), first);
  });

  it('retries a request whose page could not be opened', async () => {
    const { pool, factory } = makePool({ concurrency: 1 });
    factory.openFailures.push(new Error('browser is gone'));
    assert.equal(await pool.run(never(), async (page) => page.id), 1);
    assert.equal(pool.openPages, 1);
  });
});

describe('page pool: drain and close', () => {
  it('refuses new work while draining and finishes the work already admitted', async () => {
    const { pool } = makePool({ concurrency: 1 });
    const first = started();
    const running = pool.run(never(), first.work);
    await first.page;
    const queued = pool.run(never(), async () => 'queued');
    pool.beginDrain();
    assert.equal(pool.isDraining, true);
    await assert.rejects(pool.run(never(), async () => 'new'), (error: unknown) => {
      assert.ok(error instanceof CardError);
      assert.equal(error.kind, 'busy');
      assert.match(error.message, /shutting down/);
      return true;
    });
    first.finish.resolve('first');
    assert.equal(await running, 'first');
    assert.equal(await queued, 'queued');
  });

  it('close fails the waiting requests as busy and closes idle pages', async () => {
    const { pool, factory } = makePool({ concurrency: 2 });
    const idlePage = await pool.run(never(), async (page) => page);
    await tick();
    const first = started();
    const second = started();
    const running = [pool.run(never(), first.work), pool.run(never(), second.work)];
    await Promise.all([first.page, second.page]);
    const waiting = pool.run(never(), async () => 'never');
    assert.equal(pool.queueLength, 1);
    await pool.close();
    await assert.rejects(waiting, { name: 'CardError', kind: 'busy' });
    assert.equal(pool.queueLength, 0);
    assert.equal(pool.isDraining, true);
    await assert.rejects(pool.run(never(), async () => 'after close'), { name: 'CardError', kind: 'busy' });
    first.finish.resolve('a');
    second.finish.resolve('b');
    assert.deepEqual(await Promise.all(running), ['a', 'b']);
    await tick();
    assert.ok(
      factory.pages.every((page) => page.closed),
      'pages that finish after close are closed too',
    );
    assert.ok(idlePage.closed);
  });
});

describe('page pool: generations', () => {
  it('never hands out an idle page of a replaced generation', async () => {
    const { pool, factory } = makePool({ concurrency: 2 });
    const old = await pool.run(never(), async (page) => page);
    await tick();
    factory.generation = 2;
    const fresh = await pool.run(never(), async (page) => page);
    assert.notEqual(fresh, old);
    assert.equal(fresh.generation, 2);
    assert.ok(old.closed);
  });

  it('closes the idle pages of a replaced generation on refresh, and a busy one after its render', async () => {
    const { pool, factory } = makePool({ concurrency: 2 });
    const idle = await pool.run(never(), async (page) => page);
    await tick();
    const busy = started();
    // The idle page is taken first; a second request opens a second page.
    const holding = pool.run(never(), async () => {
      await tick(30);
    });
    const running = pool.run(never(), busy.work);
    const busyPage = await busy.page;
    await holding;
    await tick();
    factory.generation = 2;
    pool.refresh();
    assert.ok(idle.closed, 'an idle page of the old generation is closed at once');
    assert.equal(busyPage.closed, false, 'a busy page finishes its render');
    busy.finish.resolve('done');
    assert.equal(await running, 'done');
    await tick();
    assert.ok(busyPage.closed, 'and is closed after it');
    const next = await pool.run(never(), async (page) => page);
    assert.equal(next.generation, 2);
  });

  it('closes a page that was opened for a generation that was replaced meanwhile', async () => {
    const { pool, factory } = makePool({ concurrency: 1 });
    const gate = deferred();
    factory.gate = gate.promise;
    const result = pool.run(never(), async (page) => page);
    await tick();
    factory.generation = 2; // the page being opened belongs to generation 1
    factory.gate = undefined;
    gate.resolve();
    const page = await result;
    assert.equal(page.generation, 2);
    assert.ok(factory.pages[0]!.closed);
    assert.equal(factory.pages[0]!.generation, 1);
    assert.equal(pool.openPages, 1);
  });

  it('never hands out a page of a dead generation, and serves again once a new one is up', async () => {
    const { pool, factory } = makePool({ concurrency: 1 });
    const old = await pool.run(never(), async (page) => page);
    await tick();
    factory.dead = true;
    const gate = deferred();
    factory.gate = gate.promise;
    const waiting = pool.run(never(), async (page) => page);
    await tick();
    assert.ok(old.closed);
    factory.dead = false;
    factory.generation = 2;
    factory.gate = undefined;
    gate.resolve();
    pool.refresh();
    const page = await waiting;
    assert.equal(page.generation, 2);
  });
});

describe('page pool: warm-up', () => {
  it('start() opens one page, and the spare pages once no request has come for a moment', async () => {
    const { pool, factory } = makePool({ concurrency: 3 });
    await pool.start();
    assert.equal(pool.openPages, 1);
    const deadlineAt = performance.now() + 10_000;
    while (pool.openPages < 3 && performance.now() < deadlineAt) await tick(20);
    assert.equal(pool.openPages, 3);
    assert.equal(factory.pages.length, 3);
    assert.deepEqual(factory.warmUps, ['common', 'finished 1', 'all', 'all'], 'the first page warms in part, and whole before the spares open');
    await pool.close();
    assert.ok(factory.pages.every((page) => page.closed));
  });

  it('a request that comes while the first page finishes its warm-up waits for that page, not for a cold one', async () => {
    const { pool, factory } = makePool({ concurrency: 2 });
    const finish = deferred<void>();
    factory.finishGate = finish.promise;
    await pool.start();
    const deadlineAt = performance.now() + 10_000;
    while (factory.finishing === 0 && performance.now() < deadlineAt) await tick(20);
    assert.equal(factory.finishing, 1, 'the pool went on to finish the warm-up once quiet');
    const request = pool.run(never(), async (page) => page.id);
    await tick(50);
    assert.equal(factory.pages.length, 1, 'no cold page was opened for the request');
    assert.equal(pool.queueLength, 0, 'the request is counted as served by the page being warmed');
    finish.resolve();
    assert.equal(await request, 1);
    assert.ok(factory.warmUps.includes('finished 1'));
    await pool.close();
  });

  it('closes a page whose warm-up cannot be finished, and goes on to the spares', async () => {
    const { pool, factory, observer } = makePool({ concurrency: 2 });
    factory.finishFailure = new Error('the page crashed while warming');
    await pool.start();
    const deadlineAt = performance.now() + 10_000;
    while (!factory.pages[0]!.closed && performance.now() < deadlineAt) await tick(20);
    assert.ok(factory.pages[0]!.closed, 'the page that failed its warm-up is closed');
    assert.equal(observer.discarded, 1);
    factory.finishFailure = undefined;
    while (pool.openPages < 2 && performance.now() < deadlineAt) await tick(20);
    assert.deepEqual(factory.warmUps, ['common', 'all', 'all']);
    assert.equal(await pool.run(never(), async (page) => page.id), 3);
    await pool.close();
  });
});

describe('page pool: warm-up when quiet', () => {
  it('warmWhenQuiet() opens no page while requests are in progress elsewhere, then its pages once they are done', async () => {
    let elsewhere = true;
    const { pool, factory } = makePool({ concurrency: 2, busyElsewhere: () => elsewhere });
    pool.warmWhenQuiet();
    await tick(600);
    assert.equal(factory.pages.length, 0, 'a page was warmed while a request was in progress');
    elsewhere = false;
    const deadlineAt = performance.now() + 10_000;
    while (pool.openPages < 2 && performance.now() < deadlineAt) await tick(20);
    assert.equal(pool.openPages, 2);
    await pool.close();
  });

  it('a request that comes before the quiet warm-up opens the page it needs', async () => {
    const { pool, factory } = makePool({ concurrency: 1, busyElsewhere: () => true });
    pool.warmWhenQuiet();
    assert.equal(await pool.run(never(), async (page) => page.id), 1);
    assert.equal(factory.pages.length, 1);
    assert.deepEqual(factory.warmUps, ['none'], 'a page a request waits for is not made to warm up first');
    await pool.close();
  });
});

describe('page pool: deadlines after a garbage collection', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;

  it('fires a request-owned deadline while queued and while rendering, after gc()', async () => {
    const { pool, factory, observer } = makePool({ concurrency: 1 });
    await pool.run(never(), async () => 'an idle page to start from');
    await tick();
    factory.gate = new Promise(() => {});
    const rendering = pool.run(deadline(60), () => new Promise<string>(() => {}));
    const queued = pool.run(deadline(40), async () => 'never');
    const outcomes = Promise.allSettled([rendering, queued]);
    for (let i = 0; i < 3; i++) {
      gc();
      await tick(5);
    }
    const [render, wait] = await outcomes;
    assert.equal(render.status, 'rejected');
    assert.equal((render as PromiseRejectedResult).reason.name, 'TimeoutError');
    assert.equal(wait.status, 'rejected');
    assert.equal((wait as PromiseRejectedResult).reason.name, 'TimeoutError');
    assert.equal(observer.discarded, 1);
    assert.equal(pool.queueLength, 0);
    assert.equal(pool.activeRenders, 0);
  });
});

describe('page pool: its own deadline timer', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

  it('ends a request at requestTimeoutMs, queued or rendering, even when its own signal never fires', async () => {
    const { pool, factory, observer } = makePool({ concurrency: 1, requestTimeoutMs: 40 });
    await pool.run(never(), async () => 'an idle page to start from');
    await tick();
    // The page that replaces the discarded one never opens, so the second request stays queued.
    factory.gate = new Promise(() => {});
    const rendering = pool.run(never(), () => new Promise<string>(() => {}));
    const queued = pool.run(never(), async () => 'never');
    const [render, wait] = await Promise.allSettled([rendering, queued]);
    assert.equal((render as PromiseRejectedResult).reason.name, 'TimeoutError');
    assert.equal((wait as PromiseRejectedResult).reason.name, 'TimeoutError');
    assert.equal(observer.discarded, 1, 'the page of the render is discarded');
    assert.equal(pool.queueLength, 0);
    assert.equal(pool.activeRenders, 0);
  });

  it('still ends a request whose signal is AbortSignal.any of a timeout, after gc()', async () => {
    // On Node 20 the timeout inside AbortSignal.any is held weakly: collected after a gc() in a
    // later job than its creation, it never fires, and without the pool's timer both requests
    // would hang for ever.
    const { pool, factory } = makePool({ concurrency: 1, requestTimeoutMs: 120 });
    await pool.run(never(), async () => 'an idle page to start from');
    await tick();
    factory.gate = new Promise(() => {});
    const rendering = pool.run(AbortSignal.any([AbortSignal.timeout(100)]), () => new Promise<string>(() => {}));
    const queued = pool.run(AbortSignal.any([AbortSignal.timeout(100)]), async () => 'never');
    const outcomes = Promise.allSettled([rendering, queued]);
    for (let i = 0; i < 4; i++) {
      gc();
      await tick(5);
    }
    const [render, wait] = await outcomes;
    assert.equal((render as PromiseRejectedResult).reason.name, 'TimeoutError');
    assert.equal((wait as PromiseRejectedResult).reason.name, 'TimeoutError');
  });

  it('follows the caller signal when it fires first, and leaves no timer behind', async () => {
    // Let the timers of the tests before fire (later than due on a loaded machine).
    for (let waited = 0; waited < 2000 && timers() > 0; waited += 10) await tick(10);
    const { pool } = makePool({ concurrency: 1, requestTimeoutMs: 60_000 });
    const before = timers();
    assert.equal(await pool.run(never(), async () => 'quick'), 'quick');
    await assert.rejects(pool.run(deadline(10), () => new Promise(() => {})), { name: 'TimeoutError' });
    const hungUp = new AbortController();
    const waiting = pool.run(hungUp.signal, () => new Promise(() => {}));
    hungUp.abort(new DOMException('the client closed the connection', 'AbortError'));
    await assert.rejects(waiting, { name: 'AbortError' });
    await tick();
    // At most as many as before: one of the earlier tests' may still have fired meanwhile.
    assert.ok(timers() <= before, 'the timer of each request is cleared when it leaves the pool');
  });
});

describe('page pool: a lane for previews', () => {
  /** The renderer's two lanes (src/cards/render/renderer.ts): two pools on one browser fleet. */
  function lanes() {
    const factory = new FakeFactory();
    const pool = (concurrency: number, queueMax: number) => new PagePool({ factory, concurrency, queueMax, log: silent, observer: new Recorder() });
    return { factory, requests: pool(2, 10), previews: pool(1, 2) };
  }

  it('previews that fill their lane and its queue are refused as busy, while requests still get every page of their own at once', async () => {
    const { factory, requests, previews } = lanes();
    // One preview renders for ever, two wait for it.
    for (let i = 0; i < 3; i++) {
      void previews.run(never(), () => new Promise<string>(() => {}));
      await tick();
    }
    await assert.rejects(previews.run(never(), async () => 'a fourth preview'), (error: CardError) => error.kind === 'busy');
    assert.equal(previews.activeRenders, 1, 'previews render on one page only');
    // Two requests side by side, each on a page of its own, none of them the preview's.
    const first = started();
    const second = started();
    const both = Promise.all([requests.run(never(), first.work), requests.run(never(), second.work)]);
    const pages = await Promise.all([first.page, second.page]);
    assert.equal(requests.activeRenders, 2);
    assert.equal(requests.queueLength, 0, 'no request waits behind a preview');
    assert.equal(new Set(pages).size, 2);
    assert.equal(factory.openCount, 3, 'one page for previews, two for requests');
    first.finish.resolve('a');
    second.finish.resolve('b');
    assert.deepEqual(await both, ['a', 'b']);
  });

  it('a page of one lane is never handed to the other', async () => {
    const { requests, previews } = lanes();
    const previewPage = await previews.run(never(), async (page) => page);
    const requestPages = new Set<FakePage>();
    for (let i = 0; i < 5; i++) requestPages.add(await requests.run(never(), async (page) => page));
    assert.ok(!requestPages.has(previewPage));
    await tick();
    assert.equal(await previews.run(never(), async (page) => page), previewPage, 'the preview lane reuses its own page');
  });
});
