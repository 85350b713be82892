// The Markdown workers in two lanes (src/cards/markdown/markdown-pool.ts): a document keeps its
// worker while it waits for its images and diagrams, so previews (no key needed) may hold all
// workers but one, and wait for them in a bounded queue of their own; two pools in one process (two
// cores) each keep their own settings. Real worker threads, no browser.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CardError } from '../src/cards/errors.js';
import type { FetchedImage, ImageSource } from '../src/cards/images/remote-image-fetcher.js';
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

describe('Markdown workers: previews never hold the last one', () => {
  const pool = new MarkdownPool({ threads: 2, cpuLimitMs: 10_000, queueMax: 8, previewQueueMax: 1 });
  after(() => pool.close());

  it('a request is turned into HTML at once while previews wait on slow images, and a preview beyond their queue is busy', async () => {
    const images = new HeldImages();
    const preview = (n: number) => pool.render(`# Preview ${n}\n\n![slow](http://img.example/${n}.png)`, { remoteImages: images, lane: 'previews' });
    const first = preview(1);
    await until(() => images.asked.length === 1);
    // The second waits for the previews' worker, the third finds their queue full.
    const second = preview(2);
    await assert.rejects(preview(3), (error: unknown) => {
      assert.ok(error instanceof CardError);
      assert.equal(error.kind, 'busy');
      assert.match(error.message, /open to previews is busy/);
      return true;
    });
    const request = await pool.render('# Paid for\n\nText.', { lane: 'requests' });
    assert.match(request.html, /Paid for/);
    assert.equal(images.asked.length, 1, 'the second preview was let into a worker while the first held one');
    images.release();
    const answers = await Promise.all([first, second]);
    assert.deepEqual(
      answers.map((answer) => /data:image\/png/.test(answer.html)),
      [true, true],
    );
  });

  it('a preview whose deadline passes while it waits for a worker is answered at once, and never runs', async () => {
    const images = new HeldImages();
    const holding = pool.render('![slow](http://img.example/held.png)', { remoteImages: images, lane: 'previews' });
    await until(() => images.asked.length === 1);
    const deadline = new AbortController();
    const waiting = pool.render('![never](http://img.example/never.png)', { remoteImages: images, lane: 'previews', signal: deadline.signal });
    deadline.abort(new Error('the deadline passed'));
    await assert.rejects(waiting, /the deadline passed/);
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
