// `npm run bench:phrases`: what breaking Chinese and Japanese lines between phrases costs a request
// (src/cards/markdown/cjk-phrases.ts, cjk-phrase-breaks.ts). The step runs in the Markdown worker
// on every document; it is timed alone on the syntax tree of a 10,000-character CJK document and
// of an English one of the same length (which it skips), next to the whole Markdown stage of the
// same documents. Medians of repeated runs in this process, after a warm-up, in CPU time (on a
// machine shared with other work, wall time mostly measures the others). It measures; it asserts nothing.
import fs from 'node:fs';
import type { Root } from 'hast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { rehypeCjkPhraseBreaks } from '../src/cards/markdown/cjk-phrase-breaks.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { longDocument } from './lib/documents.js';
import { median } from './lib/stats.js';

const length = 10_000;
const runs = Number(process.env.BENCH_RUNS ?? 30);

/** The corpus' Chinese and Japanese texts, repeated to `length` characters. */
function cjkDocument(): string {
  const sources = ['zh-hans', 'zh-hant', 'ja'].map((name) => fs.readFileSync(new URL(`../test/fixtures/corpus/${name}.md`, import.meta.url), 'utf8'));
  let document = '';
  while (document.length < length) document += `${sources.join('\n\n')}\n\n`;
  return document.slice(0, document.lastIndexOf('\n\n', length));
}

/** CPU time (user and system, all of this process's threads) since `started`, in ms. */
function cpuMs(started: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}

const toTree = unified().use(remarkParse).use(remarkGfm).use(remarkRehype);
const phraseStep = unified().use(rehypeCjkPhraseBreaks);
const addPhraseBreaks = (tree: Root) => phraseStep.runSync(tree);

async function timeStep(markdown: string): Promise<number> {
  const timings: number[] = [];
  for (let run = 0; run < runs; run++) {
    const tree = (await toTree.run(toTree.parse(markdown))) as Root;
    const started = process.cpuUsage();
    addPhraseBreaks(tree);
    timings.push(cpuMs(started));
  }
  return median(timings);
}

async function timeMarkdownStage(markdown: string): Promise<number> {
  const timings: number[] = [];
  for (let run = 0; run < Math.ceil(runs / 2); run++) {
    const started = process.cpuUsage();
    await renderMarkdown(markdown);
    timings.push(cpuMs(started));
  }
  return median(timings);
}

const documents = { 'CJK (zh-hans, zh-hant, ja)': cjkDocument(), 'English (no CJK)': longDocument(1600, 1).replace(/[^\n -~]+/g, '').slice(0, length) };
// Warm-up: models loaded, ICU's dictionary read, the pipeline's lazy parts built.
for (const markdown of Object.values(documents)) {
  addPhraseBreaks((await toTree.run(toTree.parse(markdown))) as Root);
  await renderMarkdown(markdown);
}
for (const [name, markdown] of Object.entries(documents)) {
  const step = await timeStep(markdown);
  const stage = await timeMarkdownStage(markdown);
  console.log(`${name}, ${markdown.length} characters: phrase breaks ${step.toFixed(1)} ms CPU (median of ${runs}); whole Markdown stage ${stage.toFixed(0)} ms CPU`);
}
