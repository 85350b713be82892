// The service's heaps collect garbage before it piles up (src/http/heap-growth.ts): a process that
// parses DevTools-sized messages (1.5 MB of base64 text each, as a capture arrives) with 60 MB
// kept live reaches a much lower peak heap with limitHeapGrowth() than with V8's default growth, on
// the main thread and in a worker thread already running when the limit is set.
// Each variant runs in a process of its own: V8's flags are the whole process's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { it } from 'node:test';

const heapGrowth = new URL('../src/http/heap-growth.js', import.meta.url).href;

/** The workload: capture-sized messages parsed with 60 MB kept live; prints the peak heap in MB. */
const workload = `
  const v8 = await import('node:v8');
  const message = (i) => '{"id":' + i + ',"result":{"data":"' + String.fromCharCode(65 + (i % 26)).repeat(1_500_000) + '"}}';
  const live = [];
  for (let i = 0; i < 40; i++) live.push(JSON.parse(message(i)).result.data);
  let peak = 0;
  for (let i = 0; i < 600; i++) {
    const { data } = JSON.parse(message(i)).result;
    if (data.length === 0) throw new Error('empty');
    peak = Math.max(peak, v8.getHeapStatistics().used_heap_size);
  }
  report(live.length && peak / 1048576);`;

/**
 * The workload's peak heap on the main thread, or (`inWorker`) in a worker thread started before
 * limitHeapGrowth() is called, as the service's Markdown workers are.
 */
function peakHeapMb(limited: boolean, inWorker = false): number {
  const script = inWorker
    ? `
    const { Worker } = await import('node:worker_threads');
    const { limitHeapGrowth } = await import(${JSON.stringify(heapGrowth)});
    const worker = new Worker(${JSON.stringify(`const { parentPort } = await import('node:worker_threads'); const report = (mb) => parentPort.postMessage(mb); parentPort.once('message', async () => { ${workload} });`)}, { eval: true, type: 'module' });
    await new Promise((resolve) => worker.once('online', resolve));
    if (${limited}) limitHeapGrowth();
    worker.postMessage('go');
    console.log(await new Promise((resolve) => worker.once('message', resolve)));
    await worker.terminate();`
    : `
    const { limitHeapGrowth } = await import(${JSON.stringify(heapGrowth)});
    if (${limited}) limitHeapGrowth();
    const report = (mb) => console.log(mb);
    ${workload}`;
  // process.execArgv: under tsx the child loads the TypeScript module as this file does.
  return Number(execFileSync(process.execPath, [...process.execArgv, '--input-type=module', '-e', script], { encoding: 'utf8' }).trim());
}

it('keeps the heap of a process that takes in capture-sized messages near what is live', () => {
  const unlimited = peakHeapMb(false);
  const limited = peakHeapMb(true);
  // About 110 MB against 220-230 MB on the development machine, with 60 MB live.
  assert.ok(limited < unlimited * 0.7, `peak heap ${limited.toFixed(0)} MB limited, ${unlimited.toFixed(0)} MB by V8's default`);
  assert.ok(limited < 150, `peak heap ${limited.toFixed(0)} MB with 60 MB live`);
});

it('holds a worker thread that was already running when the limit was set (the service sets it once ready)', () => {
  const unlimited = peakHeapMb(false, true);
  const limited = peakHeapMb(true, true);
  assert.ok(limited < unlimited * 0.7, `worker's peak heap ${limited.toFixed(0)} MB limited after its start, ${unlimited.toFixed(0)} MB by V8's default`);
  assert.ok(limited < 150, `worker's peak heap ${limited.toFixed(0)} MB with 60 MB live`);
});
