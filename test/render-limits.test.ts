// What one request may cost the browser, without a browser: the device-pixel and byte budgets and
// the time limit of one drawing step, with the messages a client gets (the service-level cases are
// in hostile-render.test.ts).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CardError } from '../src/cards/errors.js';
import { type BrowserWork, RendererStalled, whyNotDrawing } from '../src/cards/render/drawing-progress.js';
import { ByteBudget, checkPixels, withinStepTime, type RenderLimits } from '../src/cards/render/render-limits.js';

const limits: RenderLimits = { maxPixels: 200_000_000, maxBytes: 64 * 1024 * 1024, stepTimeoutMs: 50 };
const card = (width: number, height: number) => ({ x: 0, y: 0, width, height });

describe('device pixels of a request', () => {
  it('refuses cards that would total more than the limit, saying how many and by how much', () => {
    // 12 cards of 2,000 × 1,900 CSS px at scale 3: 34.2 million device pixels each.
    const boxes = Array.from({ length: 12 }, () => card(2000, 1900));
    assert.throws(
      () => checkPixels(boxes, 3, limits, { scale: 3 }),
      (error: CardError) =>
        error.kind === 'content_too_large' &&
        error.message === 'The 12 cards would total 410 million device pixels at scale 3; the limit is 200 million per request. Use a smaller size or scale, or split the Markdown into several requests.',
    );
  });

  it('names one card as one, and passes what is within the limit, answering the total', () => {
    assert.throws(() => checkPixels([card(2000, 4000)], 3, { ...limits, maxPixels: 50_000_000 }, { scale: 3 }), { message: /^The card would have 72 million device pixels at scale 3; the limit is 50 million/ });
    assert.equal(checkPixels([card(440, 586), card(440, 586)], 2, limits, { scale: 2 }), 2 * 880 * 1172);
  });
});

describe('bytes of a request', () => {
  it('counts the images as they come and refuses the one that goes over, naming the card and the total', () => {
    const budget = new ByteBudget({ ...limits, maxBytes: 1024 * 1024 }, 4);
    budget.add(600_000, 1);
    assert.throws(
      () => budget.add(600_000, 2),
      (error: CardError) => error.kind === 'content_too_large' && /^The images reached 1\.1 MB with card 2 of 4; the limit is 1 MB per request\. Use format "jpeg" or "webp"/.test(error.message),
    );
  });
});

describe('time of one drawing step', () => {
  it('cuts a step off at its limit with a 400 naming the likely cause, and tells the pool the page is still busy', async () => {
    const started = performance.now();
    await assert.rejects(withinStepTime(new Promise(() => {}), limits, 'Drawing card 3 of 8'), (error: CardError) => {
      assert.equal(error.kind, 'content_too_large');
      assert.equal(error.pageLeftBusy, true);
      assert.match(error.message, /^Drawing card 3 of 8 took longer than 50 ms and was stopped\. Heavy CSS effects .* or very large images are the likely cause/);
      return true;
    });
    assert.ok(performance.now() - started < 1000);
  });

  it('passes a step that is in time, and its failure as it is', async () => {
    assert.equal(await withinStepTime(Promise.resolve('done'), limits, 'x'), 'done');
    const failure = new Error('the page crashed');
    await assert.rejects(withinStepTime(Promise.reject(failure), limits, 'x'), (error) => error === failure);
  });
});

// The check that tells a frozen renderer from a busy one reads the CPU of a browser's process group
// in /proc; here real processes, each the leader of a group of its own, stand for browsers.
describe('a step over its time while the browser draws nothing', { skip: !fs.existsSync('/proc/self/stat') && 'no /proc here' }, () => {
  const children: ChildProcess[] = [];
  /** A process in a process group of its own (so its pid is its group's id), standing for a page's browser. */
  const leader = (script: string): BrowserWork & { browserGroup: number } => {
    const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
    children.push(child);
    return { browserGroup: child.pid!, waitingOnBrowser: true };
  };
  let busy: BrowserWork;
  let idle: BrowserWork;
  let stopped: BrowserWork & { browserGroup: number };
  before(() => {
    busy = leader('while :; do :; done');
    idle = leader('exec sleep 60');
    stopped = leader('exec sleep 60');
    process.kill(stopped.browserGroup, 'SIGSTOP');
  });
  after(() => {
    // The whole group: nothing may be left behind, stopped or not.
    for (const child of children) process.kill(-child.pid!, 'SIGKILL');
  });

  it('is drawing while its processes use the CPU, and not when they use none or are stopped', async () => {
    assert.equal(await whyNotDrawing(busy), undefined);
    assert.match((await whyNotDrawing(idle)) ?? '', /^its processes used 0\.0\d s of CPU in 0\.\d s$/);
    assert.equal(await whyNotDrawing(stopped), `Chromium process ${stopped.browserGroup} is stopped`);
    // Unknown (no pid): taken to be drawing, as before the check existed.
    assert.equal(await whyNotDrawing({ browserGroup: undefined, waitingOnBrowser: true }), undefined);
    // A step that waits for the server's own work (compressing a capture), not the browser's, is not the browser's fault.
    assert.equal(await whyNotDrawing({ ...idle, waitingOnBrowser: false }), undefined);
  });

  it('fails the step as a fault of the machine, not a 400, when the browser draws nothing', async () => {
    await assert.rejects(withinStepTime(new Promise(() => {}), limits, 'Drawing card 3 of 8', stopped), (error) => {
      assert.ok(error instanceof RendererStalled && !(error instanceof CardError));
      assert.equal(error.message, `Drawing card 3 of 8 did not finish within 50 ms and the browser made no progress: Chromium process ${stopped.browserGroup} is stopped`);
      return true;
    });
    await assert.rejects(withinStepTime(new Promise(() => {}), limits, 'Drawing the card', idle), RendererStalled);
    // A browser busy drawing is the card's doing: the 400 naming heavy CSS, as without a browser to watch.
    await assert.rejects(withinStepTime(new Promise(() => {}), limits, 'Drawing the card', busy), (error: CardError) => error.kind === 'content_too_large' && error.pageLeftBusy);
  });
});
