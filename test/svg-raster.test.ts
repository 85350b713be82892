// SVG images drawn as PNG by the server (src/cards/images/svg-raster.ts), without a browser or a
// service: the drawing processes are bounded in number and die with their request, and what the
// checks before drawing refuse is refused with its reason, never with a crash.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { RemoteImageRefused } from '../src/cards/images/remote-image-fetcher.js';
import { SvgRasterizer, svgLimits } from '../src/cards/images/svg-raster.js';
import { eventually, listProcesses } from './helpers/processes.js';

const svgFile = (body: string, size = 50) => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">${body}</svg>`);

/** Stacked filters: librsvg draws this for minutes. */
const slowSvg = () => svgFile(`<filter id="f">${'<feGaussianBlur stdDeviation="300"/><feMorphology radius="100"/>'.repeat(200)}</filter><rect width="2000" height="2000" filter="url(#f)"/>`, 2000);

/** The live drawing processes started for `service` (its drawing hosts' children), and its hosts. */
function drawingsOf(service: number) {
  const all = listProcesses().filter((p) => p.state !== 'Z');
  const hosts = all.filter((p) => p.ppid === service && p.cmdline.includes('svg-drawing-host-process'));
  const drawings = all.filter((p) => hosts.some((host) => host.pid === p.ppid) && p.cmdline.includes('svg-raster-process'));
  return { hosts, drawings };
}

/** This test process's live drawing processes. */
const drawingProcesses = () => drawingsOf(process.pid).drawings;

describe('drawing SVG images in processes of their own', () => {
  const svgImages = new SvgRasterizer();

  it('draws a plain SVG as a PNG at twice its size', async () => {
    const image = await svgImages.rasterize(svgFile('<rect width="50" height="50" fill="red"/>'));
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual([image.width, image.height, image.cssWidth], [100, 100, 50]);
  });

  it('never forks the service for a drawing: its drawing host starts each one', async () => {
    // Forking copies the parent's page tables: at the service's size, 80–230 ms of its event loop per drawing.
    const request = new AbortController();
    const drawing = svgImages.rasterize(slowSvg(), request.signal).catch(() => undefined);
    try {
      assert.ok(await eventually(() => drawingProcesses().length === 1, 5000), 'the drawing started');
      const [started] = listProcesses().filter((p) => p.cmdline.includes('svg-raster-process') && p.state !== 'Z' && [process.pid, svgImages.drawingHostPid].includes(p.ppid));
      assert.equal(started?.ppid, svgImages.drawingHostPid, 'the drawing is a child of the host, not of the service');
    } finally {
      request.abort(new Error('done'));
      await drawing;
    }
  });

  it('runs at most svgLimits.concurrentDrawings drawings at once, and kills them when their request is cancelled', async () => {
    const request = new AbortController();
    const drawings = Array.from({ length: svgLimits.concurrentDrawings + 2 }, () => svgImages.rasterize(slowSvg(), request.signal));
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

  it('two cores in one process keep their own drawing limits: each draws its one SVG at a time, side by side', async () => {
    const cores = [new SvgRasterizer({ concurrentDrawings: 1, concurrentPreviewDrawings: 1 }), new SvgRasterizer({ concurrentDrawings: 1, concurrentPreviewDrawings: 1 })];
    const request = new AbortController();
    // Two slow drawings per core: one runs (until svgLimits.timeoutSeconds), one waits for its turn.
    const drawings = cores.flatMap((core) => [core.rasterize(slowSvg(), request.signal), core.rasterize(slowSvg(), request.signal)]);
    const seen: number[] = [];
    try {
      for (let waited = 0; waited < 4000 && !seen.includes(2); waited += 50) {
        seen.push(drawingProcesses().length);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      request.abort(new Error('done'));
      await Promise.allSettled(drawings);
    }
    assert.ok(seen.includes(2), `at most ${Math.max(...seen)} drawing at once: the two cores shared one limit`);
    assert.ok(Math.max(...seen) <= 2, `${Math.max(...seen)} drawings at once: a core drew more than its one`);
  });

  it('close() kills the drawings under way: a stopping service leaves none behind', async () => {
    const core = new SvgRasterizer({ concurrentDrawings: 1, concurrentPreviewDrawings: 1 });
    const drawing = core.rasterize(slowSvg());
    drawing.catch(() => undefined);
    assert.ok(await eventually(() => drawingProcesses().length === 1, 3000), 'the drawing started');
    const closedAt = performance.now();
    core.close();
    await assert.rejects(drawing, /shutting down/);
    assert.ok(await eventually(() => drawingProcesses().length === 0, 1000), 'the drawing process outlived close()');
    assert.ok(performance.now() - closedAt < 1000);
  });

  it('a drawing and its host end within 2 s when the service is killed (SIGKILL)', async () => {
    // A stand-in for the service: it starts one slow drawing, then is killed without any chance to clean up.
    // A script file, not -e: the drawing process is started with this process's own flags. The
    // module is named .js: compiled for the run (scripts/compile-tests.mjs), or mapped to its .ts by tsx.
    const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svg-parent-')), 'service.mjs');
    fs.writeFileSync(
      script,
      `import { SvgRasterizer } from ${JSON.stringify(new URL('../src/cards/images/svg-raster.js', import.meta.url).href)};
       new SvgRasterizer().rasterize(Buffer.from(process.argv[2])).catch(() => undefined);
       setInterval(() => {}, 1000);`,
    );
    const service = spawn(process.execPath, [...process.execArgv, script, slowSvg().toString('utf8')], { stdio: 'ignore' });
    const serviceExited = new Promise((resolve) => service.once('exit', resolve));
    const ownDrawings = () => drawingsOf(service.pid!).drawings;
    let drawingPid: number | undefined;
    let hostPid: number | undefined;
    try {
      // Drawing, past loading Node, tsx and sharp: a second of CPU.
      const drawingUnderWay = () => ownDrawings().find((p) => p.cpuSeconds >= 1);
      assert.ok(await eventually(() => drawingUnderWay() !== undefined, 20_000), 'the stand-in service started a drawing');
      drawingPid = drawingUnderWay()?.pid;
      hostPid = drawingsOf(service.pid!).hosts[0]?.pid;
    } finally {
      service.kill('SIGKILL');
      await serviceExited;
      fs.rmSync(path.dirname(script), { recursive: true, force: true });
    }
    const alive = (pid?: number) => listProcesses().some((p) => p.pid === pid && p.state !== 'Z');
    const ended = await eventually(() => !alive(drawingPid) && !alive(hostPid), 2000);
    for (const pid of [drawingPid, hostPid]) if (alive(pid)) process.kill(pid!, 'SIGKILL');
    assert.ok(ended, 'the drawing process or its host kept running after the service was killed');
  });

  const refusedFor = (pattern: RegExp) => (error: unknown) => {
    assert.ok(error instanceof RemoteImageRefused, String(error));
    assert.match(error.message, pattern);
    return true;
  };

  it('refuses an SVG over a bound with a RemoteImageRefused naming it', async () => {
    await assert.rejects(svgImages.rasterize(svgFile('<image href="http://127.0.0.1/x.png"/>')), refusedFor(/refers to "http/));
  });

  it('refuses an SVG inside the SVG, whether its data: URL says SVG, nothing or text', async () => {
    const inner = Buffer.from(svgFile('<rect width="5" height="5"/>')).toString('base64');
    for (const type of ['image/svg+xml', '', 'text/plain', ' image/svg+xml']) {
      await assert.rejects(svgImages.rasterize(svgFile(`<image href="data:${type};base64,${inner}" width="5" height="5"/>`)), refusedFor(/holds another SVG image/), type);
    }
    // A raster image inside is drawn.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    const drawn = await svgImages.rasterize(svgFile(`<image href="data:image/png;base64,${png}" width="5" height="5"/>`));
    assert.equal(drawn.mimeType, 'image/png');
  });

  it('refuses an entity that holds elements, which the element count cannot see', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "&#60;rect width='1' height='1'/&#62;">]><svg xmlns="http://www.w3.org/2000/svg" width="5" height="5">&a;&a;&a;</svg>`;
    await assert.rejects(svgImages.rasterize(Buffer.from(bomb)), refusedFor(/entity holding elements/));
  });

  it('refuses elements nested deeper than svgLimits.maxDepth, written or through <use>, without overflowing the stack', async () => {
    const nested = svgFile(`${'<g>'.repeat(svgLimits.maxDepth + 5)}<rect width="1" height="1"/>${'</g>'.repeat(svgLimits.maxDepth + 5)}`);
    await assert.rejects(svgImages.rasterize(nested), refusedFor(/more than 1,000 levels deep/));
    // A chain of <use>, each pointing at the one before it: shallow as written, deep as drawn.
    const chain = Array.from({ length: 1_500 }, (_, i) => (i === 0 ? '<rect id="u0" width="1" height="1"/>' : `<use id="u${i}" href="#u${i - 1}"/>`)).join('');
    await assert.rejects(svgImages.rasterize(svgFile(`<use href="#u1499"/><defs>${chain}</defs>`)), refusedFor(/levels deep/));
    // Comments are not elements: a commented-out deep nest is drawn.
    const commented = await svgImages.rasterize(svgFile(`<!--${'<g>'.repeat(2000)}--><rect width="5" height="5"/>`));
    assert.equal(commented.mimeType, 'image/png');
  });
});
