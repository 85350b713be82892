// The Markdown workers in two lanes (src/cards/markdown/markdown-pool.ts): a document waits for its
// images and diagrams with no worker held; previews (no key needed) may hold all workers but one,
// and wait for them in a bounded queue of their own; two pools in one process (two cores) each keep
// their own settings. Real worker threads, no browser.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CardError } from '../src/cards/errors.js';
import type { FetchedImage, ImageSource } from '../src/cards/images/remote-image-fetcher.js';
import { CpuBudget, threadCpuMs } from '../src/cards/markdown/cpu-budget.js';
import { MarkdownPool } from '../src/cards/markdown/markdown-pool.js';
import { redPng } from './helpers/local-image-server.js';

/** Answers every image once `release()` is called: a slow image server. */
class HeldImages implements ImageSource {
  readonly asked: string[] = [];
  private released!: () => void;
  private readonly gate = new Promise<void>((resolve) => {
    this.released = resolve;
  });
  async fetch(source: string): Promise<FetchedImage> {
    this.asked.push(source);
    await this.gate;
    return { mimeType: 'image/png', bytes: redPng, width: 20, height: 10 };
  }
  release(): void {
    this.released();
  }
}

const until = async (condition: () => boolean) => {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** The promise, or a failure once `ms` have passed without it. */
const within = <T>(ms: number, promise: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

describe('Markdown workers: previews never hold the last one', () => {
  const pool = new MarkdownPool({ threads: 2, cpuLimitMs: 10_000, queueMax: 8, previewQueueMax: 1 });
  before(() => pool.warmUp());
  after(() => pool.close());

  it("a preview waiting for slow images holds no worker: another preview and a request are turned into HTML meanwhile", async () => {
    const images = new HeldImages();
    const slow = pool.render('# Preview 1\n\n![slow](http://img.example/1.png)', { remoteImages: images, lane: 'previews' });
    await until(() => images.asked.length === 1);
    // Previews have one worker of the two: the slow preview's wait does not hold it.
    const other = await within(10_000, pool.render("# Another client's note", { lane: 'previews' }));
    assert.match(other.html, /Another client/);
    const request = await within(10_000, pool.render('# Paid for\n\nText.', { lane: 'requests' }));
    assert.match(request.html, /Paid for/);
    images.release();
    assert.match((await slow).html, /data:image\/png/);
  });

  it('previews beyond the ones in the worker and their queue are busy at once', async () => {
    const previews = await Promise.allSettled([1, 2, 3].map((n) => pool.render(`# Preview ${n}`, { lane: 'previews' })));
    assert.deepEqual(
      previews.map((preview) => preview.status),
      ['fulfilled', 'fulfilled', 'rejected'],
    );
    const busy = (previews[2] as PromiseRejectedResult).reason;
    assert.ok(busy instanceof CardError && busy.kind === 'busy', String(busy));
    assert.match(busy.message, /open to previews is busy/);
  });

  it('a preview whose deadline passes while it waits for a worker is answered at once, and never runs', async () => {
    const images = new HeldImages();
    // Its first pass takes the previews' worker; the next preview waits for it.
    const holding = pool.render('![slow](http://img.example/held.png)', { remoteImages: images, lane: 'previews' });
    const deadline = new AbortController();
    const waiting = pool.render('![never](http://img.example/never.png)', { remoteImages: images, lane: 'previews', signal: deadline.signal });
    deadline.abort(new Error('the deadline passed'));
    await assert.rejects(waiting, /the deadline passed/);
    await until(() => images.asked.length === 1);
    images.release();
    await holding;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(images.asked, ['http://img.example/held.png']);
  });
});

describe('Markdown pools of two cores in one process', () => {
  const strict = new MarkdownPool({ threads: 1, cpuLimitMs: 50, queueMax: 2 });
  const lenient = new MarkdownPool({ threads: 1, cpuLimitMs: 20_000, queueMax: 2 });
  after(() => Promise.all([strict.close(), lenient.close()]));

  it('each keeps its own CPU budget: the same document is stopped by one and rendered by the other', async () => {
    // The strict pool's worker may itself be stopped while it loads the pipeline on a busy machine
    // (its first document counts that CPU too); it is replaced, and the budget is what is tested.
    await Promise.all([strict.warmUp().catch(() => undefined), lenient.warmUp()]);
    // Some 15,000 characters of lists, emphasis and links: several times 50 ms of CPU, far below 20 s.
    const document = Array.from({ length: 200 }, (_, n) => `- item **${n}** with *emphasis* and [a link](https://example.com/${n}) \`code\``).join('\n');
    const [stopped, rendered] = await Promise.allSettled([strict.render(document), lenient.render(document)]);
    assert.equal(stopped.status, 'rejected');
    assert.ok(stopped.reason instanceof CardError && stopped.reason.kind === 'content_too_large', String(stopped.reason));
    assert.match(stopped.reason.message, /more than 50 ms of CPU time/);
    assert.equal(rendered.status, 'fulfilled', rendered.status === 'rejected' ? String(rendered.reason) : '');
    assert.match(rendered.value.html, /<strong>199<\/strong>/);
  });
});

describe("a document's CPU budget", () => {
  // This test's own thread, by its kernel id, as a worker reports its own.
  const threadId = fs.existsSync('/proc/thread-self') ? Number(fs.readlinkSync('/proc/thread-self').split('/').pop()) : undefined;
  /**
   * Uses at least `ms` of this thread's CPU time, read as the budget reads it: the process's time
   * would also count its other threads, and on a busy machine the thread's own ticks fall short of it.
   */
  const burn = (ms: number) => {
    const start = threadCpuMs(threadId!)!;
    while (threadCpuMs(threadId!)! - start < ms);
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('counts both passes of a document: the second is stopped once the two together go past it', { skip: threadId === undefined && 'no per-thread CPU time here' }, async () => {
    const budget = new CpuBudget(150);
    let stops = 0;
    budget.start(threadId, () => stops++);
    burn(100);
    // The budget reads the thread's time every 50 ms.
    await pause(120);
    budget.end();
    assert.equal(budget.expired, false, 'one pass of 100 ms is within 150 ms');
    budget.start(threadId, () => stops++);
    burn(100);
    await pause(120);
    budget.end();
    assert.equal(budget.expired, true, 'the second pass of 100 ms takes the document past 150 ms');
    assert.equal(stops, 1);
  });
});
