// Benchmark: autoSplit of a 3,000-word document end to end over HTTP (warm service, local
// storage): Markdown in, all cards paginated, captured and stored, URLs out.
// Run with `npm run bench:auto-split` (builds first). Prints figures; it asserts nothing.
import { longDocument } from './lib/documents.js';
import { startServiceProcess } from './lib/service-process.js';
import { median, percentile, timeSequential } from './lib/stats.js';

const requests = Number(process.env.BENCH_REQUESTS ?? 10);
// The default card, and a 3:4 card on which 3,000 words make about ten cards.
const sizes = [
  { width: 440, height: 586 },
  { width: 720, height: 960 },
];

async function main(): Promise<void> {
  const service = await startServiceProcess();
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
      let cards = 0;
      const timings = await timeSequential(requests, async () => {
        cards = await generate(size);
      });
      const middle = median(timings);
      console.log(
        `autoSplit, 3,000 words at ${size.width}×${size.height} (${cards} cards), ${requests} sequential requests: ` +
          `median ${middle.toFixed(0)} ms, p95 ${percentile(timings, 95).toFixed(0)} ms, ${(middle / cards).toFixed(0)} ms per card`,
      );
    }
  } finally {
    await service.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
