// The start-up rows of `npm run bench` alone (BENCH_ONLY=startup, see bench/run.ts): `starts`
// fresh starts of `node dist/server.js`, each timed to ready (/health answers), with the CPU time
// the service (all its threads) and Chromium used until then, then the first request right after
// ready (a code block and math, which load Shiki and KaTeX on first use) and the warm median of the
// same card on that service; then `npmStarts` runs of `npm start` on the built tree. Medians, and every run.
import fs from 'node:fs';
import path from 'node:path';
import { codeAndMathCard } from './documents.js';
import { startServiceProcess } from './service-process.js';
import { median } from './stats.js';

interface StartRun {
  readyMs: number;
  serviceCpuSeconds: number;
  chromiumCpuSeconds: number;
  firstRequestMs: number;
  warmMedianMs: number;
}

async function timedGenerate(generate: (body: unknown) => Promise<Response>, body: unknown): Promise<number> {
  const started = performance.now();
  const response = await generate(body);
  const text = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
  return performance.now() - started;
}

export async function startUpRows(starts: number, warmRequests: number, npmStartRuns: number): Promise<void> {
  const runs: StartRun[] = [];
  for (let run = 0; run < starts; run++) {
    const service = await startServiceProcess();
    try {
      const firstRequestMs = await timedGenerate(service.generate, codeAndMathCard(0));
      const warm: number[] = [];
      for (let i = 1; i <= warmRequests; i++) warm.push(await timedGenerate(service.generate, codeAndMathCard(i)));
      runs.push({
        readyMs: service.startToReadyMs,
        serviceCpuSeconds: service.cpuAtReady.service,
        chromiumCpuSeconds: service.cpuAtReady.descendants,
        firstRequestMs,
        warmMedianMs: median(warm),
      });
      const last = runs.at(-1)!;
      console.log(
        `start ${run + 1}: ready ${last.readyMs.toFixed(0)} ms (CPU until ready: service ${last.serviceCpuSeconds.toFixed(2)} s, Chromium ${last.chromiumCpuSeconds.toFixed(2)} s), ` +
          `first request ${last.firstRequestMs.toFixed(0)} ms, warm median ${last.warmMedianMs.toFixed(0)} ms`,
      );
    } finally {
      await service.stop();
    }
  }
  const npmStarts: number[] = [];
  for (let run = 0; run < npmStartRuns; run++) {
    const service = await startServiceProcess({}, 'npm start');
    npmStarts.push(service.startToReadyMs);
    await service.stop();
  }
  const of = (key: keyof StartRun) => median(runs.map((run) => run[key]));
  const summary = {
    readyMs: of('readyMs'),
    serviceCpuSeconds: of('serviceCpuSeconds'),
    chromiumCpuSeconds: of('chromiumCpuSeconds'),
    firstRequestMs: of('firstRequestMs'),
    warmMedianMs: of('warmMedianMs'),
    npmStartReadyMs: npmStarts.length > 0 ? median(npmStarts) : undefined,
  };
  console.log(
    `\nmedians of ${starts} starts: \`node dist/server.js\` to ready ${summary.readyMs.toFixed(0)} ms (target ≤ 1,200), ` +
      `CPU until ready: service ${summary.serviceCpuSeconds.toFixed(2)} s, Chromium ${summary.chromiumCpuSeconds.toFixed(2)} s; ` +
      `first request ${summary.firstRequestMs.toFixed(0)} ms (target ≤ 2× warm: ${(2 * summary.warmMedianMs).toFixed(0)} ms); ` +
      (summary.npmStartReadyMs === undefined ? '' : `\`npm start\` to ready ${summary.npmStartReadyMs.toFixed(0)} ms (target ≤ 2,000; runs ${npmStarts.map((ms) => ms.toFixed(0)).join(', ')})`),
  );
  const report = {
    date: new Date().toISOString(),
    loadAverage: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number),
    summary,
    runs,
    npmStartsMs: npmStarts,
  };
  const folder = path.join('bench', 'results');
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'startup-latest.json'), `${JSON.stringify(report, null, 2)}\n`);
}
