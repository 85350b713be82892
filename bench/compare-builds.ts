// Compares builds of several checkouts (another commit's `git worktree`, built with `npm run build`)
// on the figures a refactor must not make worse: start to ready, CPU until ready, a content-rich
// card's warm time, and memory (PSS) at ready, once idle, and after mixed cards, with where that
// memory is, by kind of process. The builds are started in turn, round after round, so the machine's
// load weighs on each alike.
//
//   npm run bench:compare -- ../before ../after .   (each a checkout with node_modules and dist/)
//
// BENCH_ROUNDS (default 3) starts of each build; BENCH_MEMORY_CARDS (default 400) mixed cards before
// memory is read.
import path from 'node:path';
import { codeAndMathCard, defaultCard, representativeSet } from './lib/documents.js';
import { pssByKind, treePssMb } from './lib/memory.js';
import { startServiceProcess } from './lib/service-process.js';
import { median } from './lib/stats.js';

const builds = process.argv.slice(2).map((dir) => path.resolve(dir));
if (builds.length === 0) builds.push(process.cwd());
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const memoryCards = Number(process.env.BENCH_MEMORY_CARDS ?? 400);
const clients = 4;

interface Run {
  readyMs: number;
  cpuAtReady: number;
  warmMs: number;
  pssReady: number;
  pssIdle: number;
  pssAfter: number;
  cardsPerSecond: number;
  kinds: ReturnType<typeof pssByKind>;
}
const runs = new Map<string, Run[]>(builds.map((build) => [build, []]));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function ok(response: Response): Promise<void> {
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

let variant = 0;
for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    const service = await startServiceProcess({}, 'node', build);
    try {
      const pssReady = treePssMb(service.pid);
      // What the service opens once it is quiet (spare pages, the previews' browser) opens now.
      await sleep(5000);
      const pssIdle = treePssMb(service.pid);
      const warm: number[] = [];
      for (const document of representativeSet) {
        for (let i = 0; i < 8; i++) {
          const started = performance.now();
          await ok(await service.generate({ markdown: document.markdown(variant++) }));
          if (i >= 2) warm.push(performance.now() - started);
        }
      }
      let sent = 0;
      const loadStarted = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (sent < memoryCards) {
            const i = sent++;
            const body =
              i % 5 === 4 ? defaultCard(variant++) : i % 5 === 3 ? codeAndMathCard(variant++) : { markdown: representativeSet[i % 4]!.markdown(variant++) };
            await ok(await service.generate(body));
          }
        }),
      );
      const run: Run = {
        readyMs: service.startToReadyMs,
        cpuAtReady: service.cpuAtReady.service + service.cpuAtReady.descendants,
        warmMs: median(warm),
        pssReady,
        pssIdle,
        pssAfter: treePssMb(service.pid),
        cardsPerSecond: memoryCards / ((performance.now() - loadStarted) / 1000),
        kinds: pssByKind(service.pid),
      };
      runs.get(build)!.push(run);
      console.log(
        `round ${round + 1} ${path.basename(build)}: ready ${run.readyMs.toFixed(0)} ms, CPU ${run.cpuAtReady.toFixed(2)} s, warm ${run.warmMs.toFixed(0)} ms, ` +
          `${run.cardsPerSecond.toFixed(1)} cards/s, PSS ${run.pssReady.toFixed(0)} / ${run.pssIdle.toFixed(0)} / ${run.pssAfter.toFixed(0)} MB`,
      );
    } finally {
      await service.stop();
    }
  }
}

const range = (values: number[], digits = 0) => {
  const low = Math.min(...values).toFixed(digits);
  const high = Math.max(...values).toFixed(digits);
  return `${median(values).toFixed(digits)} (${low === high ? low : `${low}–${high}`})`;
};
console.log(`\nmedian (range) of ${rounds} starts each; memory after ${memoryCards} mixed cards, ${clients} clients\n`);
console.log('| build | start to ready, ms | CPU until ready, s | warm rich card, ms | mixed cards/s, 4 clients | PSS at ready, MB | PSS idle, MB | PSS after cards, MB |');
console.log('|---|---|---|---|---|---|---|---|');
for (const [build, list] of runs) {
  const of = (pick: (run: Run) => number, digits = 0) => range(list.map(pick), digits);
  console.log(
    `| ${path.basename(build)} | ${of((r) => r.readyMs)} | ${of((r) => r.cpuAtReady, 2)} | ${of((r) => r.warmMs)} | ${of((r) => r.cardsPerSecond, 1)} | ${of((r) => r.pssReady)} | ${of((r) => r.pssIdle)} | ${of((r) => r.pssAfter)} |`,
  );
}
for (const [build, list] of runs) {
  console.log(`\n${path.basename(build)}, memory after the cards by kind of process (last round):`);
  for (const row of list[list.length - 1]!.kinds) console.log(`  ${row.kind.padEnd(52)} ×${row.processes}  ${row.pssMb.toFixed(0)} MB`);
}
