// `npm run bench`: the performance figures of cardwright on this machine, end to end over HTTP
// with local storage, each against its target and against two naive baselines measured in the
// same run, each launching a browser per request: the fixed one (markdown-it and a plain
// stylesheet on the system's fonts, lib/fixed-naive-render.ts), which the targets are set
// against, and one rendering the service's own markup in its shell with every bundled face
// (lib/naive-render.ts), which slows down as the service's shell grows.
// Compare ratios rather than milliseconds: the baseline moves with the machine's load as much as
// the service does. Bounded: a few minutes. Prints a table and writes JSON to
// bench/results/latest.json (and a dated copy). It measures; it asserts nothing.
//
// Knobs: BENCH_SECONDS (throughput phase, default 20), BENCH_MEMORY_CARDS (mixed cards rendered
// before memory is read, default 2000), BENCH_WARM (warm requests per representative card, default 15).
// BENCH_ONLY=startup measures only the start-up rows (start to ready, the first request right after
// ready, `npm start` to ready) over BENCH_STARTS fresh starts (default 5), with the CPU time the
// service and Chromium used until ready, and BENCH_NPM_STARTS (default 3) of `npm start`; it writes
// bench/results/startup-latest.json; no naive baseline. It takes a minute or two, so before/after comparisons can be made in one sitting.
// BENCH_ONLY=memory measures only the memory rows (BENCH_MEMORY_CARDS mixed cards, then a preview)
// and writes bench/results/memory-latest.json: memory moves little with the machine's load.
import fs from 'node:fs';
import path from 'node:path';
import { codeAndMathCard, defaultCard, longDocument, representativeSet } from './lib/documents.js';
import { pssByKind, treePssMb } from './lib/memory.js';
import { startUpRows } from './lib/start-up-rows.js';
import { fixedNaiveRenderer } from './lib/fixed-naive-render.js';
import { naiveRenderer } from './lib/naive-render.js';
import { measureCaptureFloor } from './lib/capture-floor.js';
import { pageOpeningMs } from './lib/page-opening.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { median, percentile, timeSequential } from './lib/stats.js';

const throughputSeconds = Number(process.env.BENCH_SECONDS ?? 20);
const memoryCards = Number(process.env.BENCH_MEMORY_CARDS ?? 2000);
const warmPerCard = Number(process.env.BENCH_WARM ?? 15);
const clients = 4;

interface Figure {
  name: string;
  value: number;
  unit: string;
  target: string;
  /** Undefined for a figure shown for reference, without a target of its own. */
  met?: boolean;
  /** How many times better than the service-shell naive baseline of this run (higher is better), where one compares. */
  vsNaive?: number;
  /** The same against the fixed naive baseline. */
  vsFixed?: number;
  note?: string;
}

interface GenerateAnswer {
  images: Array<{ url: string; width?: number; height?: number }>;
}

async function ok(response: Response): Promise<GenerateAnswer> {
  const body = await response.json();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body as GenerateAnswer;
}

const figures: Figure[] = [];
function add(figure: Figure): void {
  figures.push(figure);
  const ratio =
    figure.vsNaive === undefined ? '  (no naive equivalent)' : `  ×${(figure.vsFixed ?? Number.NaN).toFixed(1)} vs fixed naive, ×${figure.vsNaive.toFixed(1)} vs service-shell naive`;
  const value = figure.unit === 'ms' && figure.value >= 1000 ? `${(figure.value / 1000).toFixed(2)} s` : `${figure.value.toFixed(1)} ${figure.unit}`;
  console.log(`${figure.met === undefined ? '    ' : figure.met ? 'met ' : 'MISS'}  ${figure.name}: ${value} (target ${figure.target})${ratio}${figure.note ? `  — ${figure.note}` : ''}`);
}

/** A representative card by round robin, with a variant no earlier request used. */
let nextVariant = 1;
function richCard(index: number): { markdown: string } {
  const document = representativeSet[index % representativeSet.length]!;
  return { markdown: document.markdown(nextVariant++) };
}

/**
 * Memory over mixed cards (representative, trivial, code and math), sampled in batches so "flat"
 * compares the middle of the run with its end; then with the previews' browser open too. Adds
 * its figures; returns the samples and the memory by kind of process.
 */
async function memoryRows(service: ServiceProcess): Promise<Record<string, unknown>> {
  const samples: Array<{ cards: number; pssMb: number }> = [];
  let rendered = 0;
  const batches = 4;
  for (let batch = 0; batch < batches; batch++) {
    const size = Math.ceil(memoryCards / batches);
    let sent = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (sent < size) {
          const i = sent++;
          const body = i % 5 === 4 ? defaultCard(nextVariant++) : i % 5 === 3 ? codeAndMathCard(nextVariant++) : richCard(i);
          await ok(await service.generate(body));
        }
      }),
    );
    rendered += size;
    samples.push({ cards: rendered, pssMb: treePssMb(service.pid) });
  }
  const last = samples[samples.length - 1]!;
  const middle = samples[Math.floor((samples.length - 1) / 2)]!;
  const growth = last.pssMb - middle.pssMb;
  const byKind = pssByKind(service.pid);
  add({
    name: `memory (PSS, service + Chromium) after ${last.cards} mixed cards`,
    value: last.pssMb,
    unit: 'MB',
    target: '≤ 600 MB, flat',
    met: last.pssMb <= 600 && growth < 0.1 * last.pssMb,
    note:
      `samples ${samples.map((s) => `${s.cards}:${s.pssMb.toFixed(0)}`).join(' ')}; ${growth >= 0 ? '+' : ''}${growth.toFixed(0)} MB over the second half; ` +
      byKind.map((row) => `${row.kind} ×${row.processes} ${row.pssMb.toFixed(0)} MB`).join(', '),
  });
  // Previews render in a Chromium of their own, launched when the web page is opened or by the
  // first preview: the same service's memory once it is open and has drawn a preview.
  await ok(await service.preview(richCard(0)));
  const withPreviews = treePssMb(service.pid);
  add({
    name: 'memory (PSS) with the previews\' browser open too',
    value: withPreviews,
    unit: 'MB',
    target: 'for reference',
    note: `${withPreviews - last.pssMb >= 0 ? '+' : ''}${(withPreviews - last.pssMb).toFixed(0)} MB for the previews' browser and page`,
  });
  return { memorySamples: samples, memoryByKind: byKind };
}

/** `clients` loops sending representative cards until `seconds` pass; counts cards and errors. */
async function throughput(service: ServiceProcess, seconds: number) {
  const deadline = performance.now() + seconds * 1000;
  let sent = 0;
  let cards = 0;
  let errors = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const response = await service.generate(richCard(sent++));
        await response.arrayBuffer();
        if (response.ok) cards++;
        else errors++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { cards, errors, latencies, cardsPerSecond: cards / ((performance.now() - started) / 1000) };
}

async function main(): Promise<void> {
  console.log('The representative set (440 px wide at 2×, noSplit: each card as tall as its content):');
  for (const document of representativeSet) console.log(`  - ${document.name}: ${document.renders}`);

  console.log('\nnaive baseline: launching a browser per request …');
  const naive = await naiveRenderer();
  const naiveRich: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (const document of representativeSet) naiveRich.push(...(await timeSequential(1, () => naive.render(document.markdown(-1 - round)).then(() => {}))));
  }
  const naiveTrivial = await timeSequential(4, (i) => naive.render(defaultCard(-1 - i).markdown).then(() => {}));
  await naive.close();
  const naiveRichMedian = median(naiveRich);
  const naiveTrivialMedian = median(naiveTrivial);
  console.log(`naive baseline: representative card median ${naiveRichMedian.toFixed(0)} ms (p95 ${percentile(naiveRich, 95).toFixed(0)}), trivial card ${naiveTrivialMedian.toFixed(0)} ms`);
  const fixed = await fixedNaiveRenderer();
  const fixedRich: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (const document of representativeSet) fixedRich.push(...(await timeSequential(1, () => fixed.render(document.markdown(-1 - round)).then(() => {}))));
  }
  const fixedTrivial = await timeSequential(4, (i) => fixed.render(defaultCard(-1 - i).markdown).then(() => {}));
  const fixedMedian = median(fixedRich);
  const fixedTrivialMedian = median(fixedTrivial);
  console.log(`fixed naive baseline: representative card median ${fixedMedian.toFixed(0)} ms (p95 ${percentile(fixedRich, 95).toFixed(0)}), trivial card ${fixedTrivialMedian.toFixed(0)} ms\n`);
  /** Both ratios of a time (lower is better) to a baseline time. */
  const ratios = (ms: number, naive = naiveRichMedian, fixedMs = fixedMedian) => ({ vsNaive: naive / ms, vsFixed: fixedMs / ms });

  // Start-up as in production, then the first request at once: a code block and math, which load
  // Shiki and KaTeX on first use unless they were warmed.
  const service = await startServiceProcess();
  const results: Record<string, unknown> = {};
  /** Device px height of each representative card and of the autoSplit cards, for the capture floor. */
  const representativeHeights = new Map<string, number>();
  let autoSplitCard = { cards: 0, height: 0 };
  try {
    const firstStarted = performance.now();
    await ok(await service.generate(codeAndMathCard(0)));
    const firstRequestMs = performance.now() - firstStarted;

    // Warm figures, each representative card in turn so they share the machine's moods.
    const perDocument = new Map<string, number[]>(representativeSet.map((document) => [document.name, []]));
    await timeSequential(2 * representativeSet.length, async (i) => void (await ok(await service.generate(richCard(i)))));
    const richTimings: number[] = [];
    for (let round = 0; round < warmPerCard; round++) {
      for (const document of representativeSet) {
        const started = performance.now();
        const answer = await ok(await service.generate({ markdown: document.markdown(nextVariant++) }));
        const ms = performance.now() - started;
        representativeHeights.set(document.name, answer.images[0]?.height ?? 0);
        perDocument.get(document.name)!.push(ms);
        richTimings.push(ms);
      }
    }
    const codeAndMath = await timeSequential(warmPerCard, async (i) => void (await ok(await service.generate(codeAndMathCard(i + 1)))));
    const trivial = await timeSequential(warmPerCard * 2, async () => void (await ok(await service.generate(defaultCard(nextVariant++)))));

    const richMedian = median(richTimings);
    const richP95 = percentile(richTimings, 95);
    add({
      name: 'content-rich card (the representative set), warm, median',
      value: richMedian,
      unit: 'ms',
      target: '≥ 9× fixed naive',
      met: fixedMedian / richMedian >= 9,
      ...ratios(richMedian),
    });
    add({ name: 'content-rich card, warm, p95', value: richP95, unit: 'ms', target: 'for reference', ...ratios(richP95) });
    for (const [name, timings] of perDocument) {
      add({ name: `  ${name}, median`, value: median(timings), unit: 'ms', target: 'part of the set above', ...ratios(median(timings)), note: `p95 ${percentile(timings, 95).toFixed(0)} ms` });
    }
    add({ name: 'trivial card ("# Hello"), warm, median', value: median(trivial), unit: 'ms', target: 'for reference', ...ratios(median(trivial), naiveTrivialMedian, fixedTrivialMedian) });
    const codeAndMathMedian = median(codeAndMath);
    add({
      name: 'first request right after ready, with code and math',
      value: firstRequestMs,
      unit: 'ms',
      target: `≤ 2× its warm median (${(2 * codeAndMathMedian).toFixed(0)} ms)`,
      met: firstRequestMs <= 2 * codeAndMathMedian,
      ...ratios(firstRequestMs),
      note: `warm median of the same card ${codeAndMathMedian.toFixed(0)} ms`,
    });

    const identical = richCard(0);
    await ok(await service.generate(identical));
    const cached = await timeSequential(30, async () => void (await ok(await service.generate(identical))));
    add({ name: 'identical repeated request (render cache)', value: median(cached), unit: 'ms', target: '≤ 5 ms', met: median(cached) <= 5, ...ratios(median(cached)) });

    // About 30 cards of prose, lists, quotes, code and tables.
    {
      let cards = 0;
      await ok(await service.generate({ markdown: longDocument(2400, 0, true), splitMode: 'autoSplit' }));
      const split = await timeSequential(5, async (i) => {
        const answer = await ok(await service.generate({ markdown: longDocument(2400, i + 1, true), splitMode: 'autoSplit' }));
        cards = answer.images.length;
        autoSplitCard = { cards, height: answer.images[0]?.height ?? 0 };
      });
      add({
        name: `autoSplit, prose + code + tables (${cards} cards), median`,
        value: median(split),
        unit: 'ms',
        target: `≤ 1.5× one fixed naive render (${(1.5 * fixedMedian).toFixed(0)} ms)`,
        met: median(split) <= 1.5 * fixedMedian,
        ...ratios(median(split), cards * naiveRichMedian, cards * fixedMedian),
        note: `${(median(split) / cards).toFixed(0)} ms per card; ratios against a launch per card; ${(median(split) / fixedMedian).toFixed(2)}× one fixed naive render`,
      });
    }

    // A noSplit long image of about 40,000 device px: captured in tiles and joined by libvips.
    {
      let height = 0;
      const pssBefore = treePssMb(service.pid);
      let pssPeak = pssBefore;
      const sampler = setInterval(() => (pssPeak = Math.max(pssPeak, treePssMb(service.pid))), 100);
      const long = await timeSequential(3, async (i) => {
        const answer = await ok(await service.generate({ markdown: longDocument(3650, i), splitMode: 'noSplit' }));
        height = answer.images[0]?.height ?? 0;
      }).finally(() => clearInterval(sampler));
      add({
        name: `noSplit long image (880×${height || '?'} device px), median`,
        value: median(long),
        unit: 'ms',
        target: '≤ 2.5 s, memory bound documented',
        met: median(long) <= 2500,
        note: `PSS of service + Chromium ${pssBefore.toFixed(0)} MB before, ${pssPeak.toFixed(0)} MB at the peak (README: under 150 MB growth for 40,000 px)`,
      });
    }

    const load = await throughput(service, throughputSeconds);
    add({
      name: `throughput, ${clients} clients, representative cards, ${throughputSeconds} s`,
      value: load.cardsPerSecond,
      unit: 'cards/s',
      target: `≥ 15 × (1 s ÷ fixed naive) = ${(15_000 / fixedMedian).toFixed(1)} cards/s, 0 errors`,
      met: load.cardsPerSecond >= 15_000 / fixedMedian && load.errors === 0,
      vsNaive: load.cardsPerSecond / (1000 / naiveRichMedian),
      vsFixed: load.cardsPerSecond / (1000 / fixedMedian),
      note: `${load.cards} cards, ${load.errors} errors, p50 ${median(load.latencies).toFixed(0)} ms, p95 ${percentile(load.latencies, 95).toFixed(0)} ms`,
    });

    Object.assign(results, await memoryRows(service));
    results.readyMs = service.startToReadyMs;
  } finally {
    await service.stop();
  }

  await captureFloorRows([...representativeHeights.values()], autoSplitCard, fixedMedian, ratios, naiveRichMedian);

  // Start-up: production (`node dist/server.js`) and `npm start` on a built tree (which checks
  // that dist/ is up to date and then starts the same thing). Median of three each.
  const startUp = async (how: 'node' | 'npm start') => {
    const timings = [results.readyMs as number];
    for (let i = 0; i < 2; i++) {
      const started = await startServiceProcess({}, how);
      timings.push(started.startToReadyMs);
      await started.stop();
    }
    return how === 'node' ? timings : timings.slice(1);
  };
  const nodeReady = await startUp('node');
  const npmReady = await startUp('npm start');
  add({
    name: '`node dist/server.js` to ready (browser warm), median',
    value: median(nodeReady),
    unit: 'ms',
    target: `≤ 2× one fixed naive render (${(2 * fixedMedian).toFixed(0)} ms)`,
    met: median(nodeReady) <= 2 * fixedMedian,
    ...ratios(median(nodeReady)),
    note: `runs ${nodeReady.map((ms) => ms.toFixed(0)).join(', ')} ms; naive: one launch and render`,
  });
  add({
    name: '`npm start` to ready with a built tree, median',
    value: median(npmReady),
    unit: 'ms',
    target: '≤ 2.0 s',
    met: median(npmReady) <= 2000,
    ...ratios(median(npmReady)),
    note: `runs ${npmReady.map((ms) => ms.toFixed(0)).join(', ')} ms`,
  });

  const opening = await pageOpeningMs(5);
  add({
    name: 'opening a render page on a warm browser (no warm-up card), median',
    value: median(opening),
    unit: 'ms',
    target: '≤ 200 ms',
    met: median(opening) <= 200,
    note: `runs ${opening.map((ms) => ms.toFixed(0)).join(', ')} ms`,
  });

  const report = {
    date: new Date().toISOString(),
    note: 'ratios vs the naive baseline come from this run; absolute figures move with the machine’s load',
    loadAverage: loadAverage(),
    representativeSet: representativeSet.map(({ name, renders }) => ({ name, renders })),
    naiveBaseline: { representativeMedianMs: naiveRichMedian, trivialMedianMs: naiveTrivialMedian, samplesMs: naiveRich },
    fixedNaiveBaseline: { representativeMedianMs: fixedMedian, trivialMedianMs: fixedTrivialMedian, samplesMs: fixedRich },
    figures,
    ...results,
  };
  const folder = path.join('bench', 'results');
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'latest.json');
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  fs.copyFileSync(file, path.join(folder, `${report.date.replace(/[:.]/g, '-')}.json`));
  const targets = figures.filter((figure) => figure.met !== undefined);
  console.log(`\n${targets.filter((f) => f.met).length}/${targets.length} targets met; results written to ${file}`);
}

/**
 * What Chromium alone costs to capture cards of the same sizes holding nothing but white
 * (lib/capture-floor.ts), after the service has stopped: the bound on every per-card ratio.
 */
async function captureFloorRows(
  representativeHeights: number[],
  autoSplit: { cards: number; height: number },
  fixedMedian: number,
  ratios: (ms: number) => { vsNaive: number; vsFixed: number },
  naiveMedian: number,
): Promise<void> {
  const cssHeights = representativeHeights.filter((height) => height > 0).map((height) => height / 2);
  const floor = await measureCaptureFloor(cssHeights, { rounds: 8, pages: 2, seconds: 10 });
  add({
    name: "Chromium's capture floor: a white card of each representative card's size, warm, median",
    value: floor.medianMs,
    unit: 'ms',
    target: `for reference: the ×9 target leaves ${(fixedMedian / 9).toFixed(0)} ms a card`,
    ...ratios(floor.medianMs),
    note: `Chromium's CPU ${floor.chromiumCpuMsPerCard.toFixed(0)} ms a capture; the ratio is the most any Chromium capture can reach`,
  });
  add({
    name: 'capture floor, white cards of those sizes, one loop on each of 2 pages',
    value: floor.cardsPerSecond,
    unit: 'cards/s',
    target: `for reference: the throughput target is ${(15_000 / fixedMedian).toFixed(1)} cards/s`,
    vsNaive: floor.cardsPerSecond / (1000 / naiveMedian),
    vsFixed: floor.cardsPerSecond / (1000 / fixedMedian),
    note: 'no Markdown, layout, storage or HTTP',
  });
  if (autoSplit.cards > 0) {
    const splitFloor = await measureCaptureFloor([autoSplit.height / 2], { rounds: 8, pages: 2, seconds: 5 });
    add({
      name: `capture floor, ${autoSplit.cards} white cards of the autoSplit size (880×${autoSplit.height})`,
      value: autoSplit.cards * splitFloor.medianMs,
      unit: 'ms',
      target: `for reference: the autoSplit target is ${(1.5 * fixedMedian).toFixed(0)} ms`,
      note: `one after another on one page (the service's way); on 2 pages at once ${((autoSplit.cards / splitFloor.cardsPerSecond) * 1000).toFixed(0)} ms`,
    });
  }
}

/** BENCH_ONLY=memory: the memory rows alone, on a service of their own. */
async function memoryOnly(): Promise<void> {
  const service = await startServiceProcess();
  try {
    const report = { date: new Date().toISOString(), loadAverage: loadAverage(), ...(await memoryRows(service)), figures };
    const file = path.join('bench', 'results', 'memory-latest.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`results written to ${file}`);
  } finally {
    await service.stop();
  }
}

function loadAverage(): number[] | undefined {
  return fs.existsSync('/proc/loadavg') ? fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number) : undefined;
}

const only = process.env.BENCH_ONLY;
(only === 'startup' ? startUpRows(Number(process.env.BENCH_STARTS ?? 5), warmPerCard, Number(process.env.BENCH_NPM_STARTS ?? 3)) : only === 'memory' ? memoryOnly() : main()).catch((error) => {
  console.error(error);
  process.exit(1);
});
