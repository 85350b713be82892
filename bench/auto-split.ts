// Benchmark: autoSplit of a 3,000-word document end to end over HTTP (warm service, local
// storage): Markdown in, all cards paginated, captured and stored, URLs out.
// Run with `npm run bench:auto-split` (builds first). Prints figures; it asserts nothing.
//
// Given checkouts (another commit's `git worktree` with node_modules and `npm run build` done),
// it compares their builds in one run: each build's service is started in turn, round after round,
// so the machine's load weighs on each alike.
//
//   npm run bench:auto-split -- ../before .
//
// BENCH_REQUESTS (default 10) timed requests per size and round; BENCH_ROUNDS (default 1) rounds.
import path from 'node:path';
import { longDocument } from './lib/documents.js';
import { startServiceProcess } from './lib/service-process.js';
import { median, percentile, timeSequential } from './lib/stats.js';

const requests = Number(process.env.BENCH_REQUESTS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const builds = process.argv.slice(2).map((dir) => path.resolve(dir));
if (builds.length === 0) builds.push(process.cwd());
// The default card, and a 3:4 card on which 3,000 words make about ten cards.
const sizes = [
  { width: 440, height: 586 },
  { width: 720, height: 960 },
];

/** Per build and size: the timed requests of every round, and the cards each request made. */
const results = new Map<string, { timings: number[]; cards: Set<number> }>();

async function measure(build: string): Promise<void> {
  const service = await startServiceProcess({}, 'node', build);
  try {
    // Each request changes a little text (the variant), so a render cache never answers it.
    let variant = 0;
    const generate = async (size: { width: number; height: number }) => {
      const response = await service.generate({ markdown: longDocument(3000, variant++), splitMode: 'autoSplit', ...size });
      const body = (await response.json()) as { images?: unknown[]; message?: string };
      if (!response.ok || !body.images) throw new Error(`request failed with ${response.status}: ${body.message}`);
      return body.images.length;
    };
    for (const size of sizes) {
      for (let i = 0; i < 2; i++) await generate(size);
      const key = `${path.relative(process.cwd(), build) || '.'} ${size.width}×${size.height}`;
      const result = results.get(key) ?? { timings: [], cards: new Set<number>() };
      results.set(key, result);
      result.timings.push(
        ...(await timeSequential(requests, async () => {
          result.cards.add(await generate(size));
        })),
      );
    }
  } finally {
    await service.stop();
  }
}

async function main(): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const build of builds) await measure(build);
  }
  for (const [key, { timings, cards }] of results) {
    const middle = median(timings);
    const count = [...cards].join('/');
    console.log(
      `${key}: autoSplit, 3,000 words (${count} cards), ${timings.length} sequential requests: ` +
        `median ${middle.toFixed(0)} ms, p95 ${percentile(timings, 95).toFixed(0)} ms, ${(middle / Math.max(...cards)).toFixed(0)} ms per card`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
