// SVG images drawn as PNG by the server (src/cards/images/svg-raster.ts), without a browser or a
// service: the drawing processes are bounded in number and die with their request, and what the
// checks before drawing refuse is refused with its reason, never with a crash.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RemoteImageRefused } from '../src/cards/images/remote-image-fetcher.js';
import { rasterizeSvg, svgLimits } from '../src/cards/images/svg-raster.js';
import { listProcesses } from './helpers/processes.js';

const svgFile = (body: string, size = 50) => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">${body}</svg>`);

/** Stacked filters: librsvg draws this for minutes. */
const slowSvg = () => svgFile(`<filter id="f">${'<feGaussianBlur stdDeviation="300"/><feMorphology radius="100"/>'.repeat(200)}</filter><rect width="2000" height="2000" filter="url(#f)"/>`, 2000);

/** This test process's live drawing processes. */
const drawingProcesses = () => listProcesses().filter((p) => p.ppid === process.pid && p.cmdline.includes('svg-raster-process') && p.state !== 'Z');

describe('drawing SVG images in processes of their own', () => {
  it('draws a plain SVG as a PNG at twice its size', async () => {
    const image = await rasterizeSvg(svgFile('<rect width="50" height="50" fill="red"/>'));
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual([image.width, image.height, image.cssWidth], [100, 100, 50]);
  });

  it('runs at most svgLimits.concurrentDrawings drawings at once, and kills them when their request is cancelled', async () => {
    const request = new AbortController();
    const drawings = Array.from({ length: svgLimits.concurrentDrawings + 2 }, () => rasterizeSvg(slowSvg(), request.signal));
    const settled = Promise.allSettled(drawings);
    // Every drawing that may run has started (a process starts in well under 2 s).
    let most = 0;
    for (let waited = 0; waited < 2500; waited += 250) {
      most = Math.max(most, drawingProcesses().length);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.ok(most >= 1 && most <= svgLimits.concurrentDrawings, `${most} drawing processes at once; the bound is ${svgLimits.concurrentDrawings}`);
    const cancelledAt = performance.now();
    request.abort(new Error('the deadline passed'));
    const outcomes = await settled;
    assert.ok(performance.now() - cancelledAt < 1000, 'the drawings did not stop when their request was cancelled');
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.equal((outcome.reason as Error).message, 'the deadline passed');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(drawingProcesses().length, 0, 'a drawing process outlived its request');
  });

  it('refuses an SVG over a bound with a RemoteImageRefused naming it', async () => {
    await assert.rejects(rasterizeSvg(svgFile('<image href="http://127.0.0.1/x.png"/>')), (error) => error instanceof RemoteImageRefused && /refers to "http/.test(error.message));
  });
});
