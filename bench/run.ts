// `npm run bench`: the performance figures of cardwright on this machine, end to end over HTTP
// with local storage, each against its target and against a naive baseline (a browser launched
// per request rendering the same card). Bounded: a few minutes. Prints a table and writes JSON
// to bench/results/latest.json. It measures; it asserts nothing.
//
// Knobs: BENCH_SECONDS (throughput phase, default 30), BENCH_MEMORY_CARDS (cards rendered after
// the throughput phase while memory is sampled, default 1000).
import fs from 'node:fs';
import path from 'node:path';
import { defaultCard, longDocument } from './lib/documents.js';
import { treePssMb } from './lib/memory.js';
import { naiveRenderer } from './lib/naive-render.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { median, percentile, timeSequential } from './lib/stats.js';

const throughputSeconds = Number(process.env.BENCH_SECONDS ?? 30);
const memoryCards = Number(process.env.BENCH_MEMORY_CARDS ?? 1000);
const clients = 4;

interface Figure {
  name: string;
  value: number;
  unit: string;
  target: string;
  met: boolean;
  /** How many times better than the naive baseline (higher is better), when comparable. */
  vsBaseline?: number;
  note?: string;
}

async function ok(response: Response): Promise<any> {
  const body = await response.json();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** `clients` loops sending default cards until `seconds` pass; counts cards and errors. */
async function throughput(service: ServiceProcess, seconds: number, firstVariant: number) {
  const deadline = performance.now() + seconds * 1000;
  let variant = firstVariant;
  let cards = 0;
  let errors = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const response = await service.generate(defaultCard(variant++));
        await response.arrayBuffer();
        if (response.ok) cards++;
        else errors++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { cards, errors, latencies, cardsPerSecond: cards / ((performance.now() - started) / 1000), nextVariant: variant };
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  const add = (figure: Figure) => {
    figures.push(figure);
    const ratio = figure.vsBaseline ? `  ×${figure.vsBaseline.toFixed(1)} vs naive` : '';
    console.log(`${figure.met ? 'met ' : 'MISS'}  ${figure.name}: ${figure.value.toFixed(1)} ${figure.unit} (target ${figure.target})${ratio}${figure.note ? `  — ${figure.note}` : ''}`);
  };

  console.log('naive baseline: launching a browser per request …');
  const naive = await naiveRenderer();
  const naiveTimings = await timeSequential(8, async (i) => {
    await naive(defaultCard(i).markdown);
  });
  const naiveMedian = median(naiveTimings);
  console.log(`naive baseline: median ${naiveMedian.toFixed(0)} ms per card, p95 ${percentile(naiveTimings, 95).toFixed(0)} ms`);

  const service = await startServiceProcess();
  try {
    const firstStarted = performance.now();
    await ok(await service.generate(defaultCard(0)));
    const firstRequestMs = performance.now() - firstStarted;

    let variant = 1;
    await timeSequential(10, async () => void (await ok(await service.generate(defaultCard(variant++)))));
    const warm = await timeSequential(60, async () => void (await ok(await service.generate(defaultCard(variant++)))));
    const warmMedian = median(warm);

    add({ name: 'process start to ready (browser warm)', value: service.startToReadyMs, unit: 'ms', target: '≤ 1500', met: service.startToReadyMs <= 1500 });
    add({
      name: 'first request after ready',
      value: firstRequestMs,
      unit: 'ms',
      target: `≤ 2× warm median (${(2 * warmMedian).toFixed(0)})`,
      met: firstRequestMs <= 2 * warmMedian,
    });
    add({ name: 'one default card, warm, median', value: warmMedian, unit: 'ms', target: '≤ 60', met: warmMedian <= 60, vsBaseline: naiveMedian / warmMedian });
    const warmP95 = percentile(warm, 95);
    add({ name: 'one default card, warm, p95', value: warmP95, unit: 'ms', target: '≤ 100', met: warmP95 <= 100 });

    const identical = defaultCard(-1);
    await ok(await service.generate(identical));
    const cached = await timeSequential(50, async () => void (await ok(await service.generate(identical))));
    add({ name: 'identical repeated request (render cache)', value: median(cached), unit: 'ms', target: '≤ 5', met: median(cached) <= 5, vsBaseline: naiveMedian / median(cached) });

    // The target was set for "a 3,000-word document (about 10 cards)"; at the default card size
    // 3,000 words make several times as many cards, so both are measured: the document as named,
    // and a shorter one that makes about ten cards.
    for (const words of [3000, 850]) {
      let cards = 0;
      const split = await timeSequential(5, async (i) => {
        const body = await ok(await service.generate({ markdown: longDocument(words, i), splitMode: 'autoSplit' }));
        cards = body.images.length;
      }).catch((error: Error) => {
        console.log(`autoSplit of ${words} words not measured: ${error.message}`);
        return [] as number[];
      });
      if (split.length === 0) continue;
      add({
        name: `autoSplit, ${words.toLocaleString('en')} words (${cards} cards), median`,
        value: median(split),
        unit: 'ms',
        target: '≤ 1000',
        met: median(split) <= 1000,
        note: `${(median(split) / cards).toFixed(0)} ms per card`,
      });
    }

    const pssBefore = treePssMb(service.pid);
    const load = await throughput(service, throughputSeconds, variant);
    variant = load.nextVariant;
    add({
      name: `throughput, ${clients} clients, ${throughputSeconds} s`,
      value: load.cardsPerSecond,
      unit: 'cards/s',
      target: '≥ 25, no errors',
      met: load.cardsPerSecond >= 25 && load.errors === 0,
      vsBaseline: load.cardsPerSecond / (1000 / naiveMedian),
      note: `${load.cards} cards, ${load.errors} errors, p50 ${median(load.latencies).toFixed(0)} ms, p95 ${percentile(load.latencies, 95).toFixed(0)} ms`,
    });

    // Memory is sampled over `memoryCards` more cards after the throughput phase, in batches, so
    // "not growing" compares the middle of a long run with its end.
    let rendered = 60 + 11 + 1 + load.cards;
    const samples: Array<{ cards: number; pssMb: number }> = [{ cards: 0, pssMb: pssBefore }, { cards: rendered, pssMb: treePssMb(service.pid) }];
    const batches = 4;
    for (let batch = 0; batch < batches; batch++) {
      const size = Math.ceil(memoryCards / batches);
      await Promise.all(
        Array.from({ length: clients }, async (_, client) => {
          for (let i = client; i < size; i += clients) await ok(await service.generate(defaultCard(variant + i)));
        }),
      );
      variant += size;
      rendered += size;
      samples.push({ cards: rendered, pssMb: treePssMb(service.pid) });
    }
    const last = samples[samples.length - 1]!;
    const middle = samples[Math.floor(samples.length / 2)]!;
    const growth = last.pssMb - middle.pssMb;
    add({
      name: `memory (PSS, node + browser) after ${last.cards} cards`,
      value: last.pssMb,
      unit: 'MB',
      target: '≤ 700, not growing',
      met: last.pssMb <= 700 && growth < 0.1 * last.pssMb,
      note: `samples ${samples.map((s) => `${s.cards}:${s.pssMb.toFixed(0)}`).join(' ')}; +${growth.toFixed(0)} MB over the second half`,
    });

    const results = { date: new Date().toISOString(), naiveBaselineMedianMs: naiveMedian, figures, memorySamples: samples };
    const file = path.join('bench', 'results', 'latest.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\n${figures.filter((f) => f.met).length}/${figures.length} targets met; results written to ${file}`);
  } finally {
    await service.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
