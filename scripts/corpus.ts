// `npm run corpus`: renders the corpus (test/helpers/corpus.ts: package READMEs from node_modules
// and texts in eight scripts) through the real pipeline, each document in each split mode in a
// different theme exactly as test/corpus.test.ts does, and its pinned pairings, plus the sizes
// that are hard on themes (200×200, and 1080×1440 with fontScale), and composes a contact sheet, docs/corpus.jpg, to look
// at by eye: tables, small print, scripts, truncation and decorations at work. It then prints how
// many faults of each kind the cards' own layout shows (test/helpers/typesetting-report.ts: the
// kinds test/corpus.test.ts requires none of), and each fault.
//
// With --sweep it lays out instead every built-in theme at each size of the corpus
// (corpusSizes: 440×586, 1080×1350, 1242×1660, 200×200) in autoSplit, the documents rotating
// through them, and a few hrSplit and noSplit pairings at each size: READMEs at 200×200 in many
// themes, where test/corpus.test.ts lays each out in one. With --smallest, every README in every
// built-in theme at 200×200 in autoSplit, the size where the break rules collide most.
//
//   npm run corpus                          docs/corpus.jpg
//   npm run corpus -- --tiles out/          also keep every card as out/<n>-<document>-<theme>-<mode>-<card>.png
//   npm run corpus -- --sweep --out sweep.jpg
//   npm run corpus -- --smallest --out smallest.jpg
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import sharp from 'sharp';
import { contactSheet } from './lib/contact-sheet.js';
import { createCards, normalizeRequest } from '../src/cards/index.js';
import { splitModes } from '../src/cards/request/schema.js';
import { loadCommandConfig } from '../src/config.js';
import { projectRoot } from '../src/paths.js';
import { renderGeometryWith } from '../test/helpers/card-geometry.js';
import { corpusDocuments, corpusPinned, corpusSizes } from '../test/helpers/corpus.js';
import { countByKind, typesettingFaults, type Fault } from '../test/helpers/typesetting-report.js';

const { values: args } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(projectRoot, 'docs', 'corpus.jpg') },
    tiles: { type: 'string' },
    columns: { type: 'string', default: '10' },
    sweep: { type: 'boolean', default: false },
    smallest: { type: 'boolean', default: false },
  },
});
const columns = Number(args.columns);
/** Tiles are drawn at this width on the sheet, whatever the card's size. */
const tileWidth = 330;
/** A growing (noSplit) card is shown down to this height on the sheet. */
const maxTileHeight = 900;
/** Cards shown per request: enough to see a split and its continuation. */
const cardsPerRequest = 2;
const labelHeight = 26;
const gap = 16;
const sheetBackground = '#e8eaee';

interface Job {
  label: string;
  body: Record<string, unknown>;
}

const cards = createCards({ settings: { ...loadCommandConfig(), renderConcurrency: 1, renderCache: undefined }, log: pino({ level: 'warn' }) });
const builtin = cards.themes.themes.filter((theme) => theme.builtin);
const documents = corpusDocuments();
const jobs: Job[] = args.sweep ? sweepJobs() : args.smallest ? smallestJobs() : corpusJobs();

/** A document in a theme and split mode at a size of its own, labelled with all four. */
function sizedJob(document: { name: string; markdown: string }, theme: string, splitMode: string, size: { width: number; height: number }): Job {
  return { label: `${document.name} · ${theme} · ${splitMode} · ${size.width}×${size.height}`, body: { markdown: document.markdown, theme, splitMode, ...size } };
}

/** Each document in each split mode in a different theme, as test/corpus.test.ts; the pinned pairings; the hard sizes. */
function corpusJobs(): Job[] {
  const jobs: Job[] = [];
  for (const [d, document] of documents.entries()) {
    for (const [m, splitMode] of splitModes.entries()) {
      const theme = builtin[(d * splitModes.length + m) % builtin.length]!;
      jobs.push({ label: `${document.name} · ${theme.id} · ${splitMode}`, body: { markdown: document.markdown, theme: theme.id, splitMode } });
    }
  }
  // The pairings the rotation misses (corpusPinned), at their own sizes.
  for (const { document: name, theme, splitMode, ...size } of corpusPinned) {
    jobs.push(sizedJob(documents.find((document) => document.name === name)!, theme, splitMode, size));
  }
  // The sizes that are hard on decorations, in a few themes, and overHiddenMode's last whole line.
  const readme = documents[0]!.markdown;
  const lruCache = documents.find((document) => document.name.startsWith('lru-cache'))!.markdown;
  const excerpt = lruCache.slice(0, lruCache.lastIndexOf('\n\n', 900));
  for (const theme of ['cyberpunk', 'notebook', 'japanese-magazine', 'social-purple', 'darktech', 'coil-notebook']) {
    jobs.push({ label: `200×200 · ${theme}`, body: { markdown: excerpt, theme, width: 200, height: 200, splitMode: 'autoSplit' } });
    jobs.push({ label: `1080×1440 fontScale 2.5 · ${theme}`, body: { markdown: readme, theme, width: 1080, height: 1440, fontScale: 2.5, overHiddenMode: true } });
  }
  return jobs;
}

/** Every theme at every corpus size in autoSplit, the documents rotating; three hrSplit and three noSplit pairings per size. */
function sweepJobs(): Job[] {
  const jobs: Job[] = [];
  for (const [t, theme] of builtin.entries()) {
    for (const [s, size] of corpusSizes.entries()) jobs.push(sizedJob(documents[(t * corpusSizes.length + s) % documents.length]!, theme.id, 'autoSplit', size));
  }
  for (const [s, size] of corpusSizes.entries()) {
    for (const [m, splitMode] of ['hrSplit', 'noSplit'].entries()) {
      for (let k = 0; k < 3; k++) {
        const i = s * 6 + m * 3 + k;
        jobs.push(sizedJob(documents[(i * 7 + 3) % documents.length]!, builtin[(i * 5 + 2) % builtin.length]!.id, splitMode, size));
      }
    }
  }
  return jobs;
}

/** Every README in every built-in theme at 200×200, in autoSplit. */
function smallestJobs(): Job[] {
  const readmes = documents.filter((document) => document.name.endsWith('README'));
  return readmes.flatMap((document) => builtin.map((theme) => sizedJob(document, theme.id, 'autoSplit', { width: 200, height: 200 })));
}

async function label(text: string): Promise<Buffer> {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${tileWidth}" height="${labelHeight}"><text x="0" y="17" font-family="monospace" font-size="12" font-weight="700" fill="#22262e">${escaped}</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const started = Date.now();
await cards.start();
const tiles: Array<{ png: Buffer; height: number }> = [];
const faults: Fault[] = [];
const refused: string[] = [];
try {
  for (const [n, job] of jobs.entries()) {
    const request = normalizeRequest({ scale: 1, format: 'png', ...job.body });
    const rendered = await cards.render(request, AbortSignal.timeout(120_000)).catch((error: Error) => error);
    if (rendered instanceof Error) {
      // A sweep may ask a size a document does not fit (more cards than a request may make).
      refused.push(`${job.label}: ${rendered.message}`);
      continue;
    }
    const { images } = rendered;
    const geometry = await renderGeometryWith(cards, { ...request, markdown: request.markdown }, { lines: true });
    faults.push(...typesettingFaults(geometry.cards, geometry.blocks, job.label, request.splitMode));
    for (const [i, image] of images.slice(0, cardsPerRequest).entries()) {
      if (args.tiles) {
        fs.mkdirSync(args.tiles, { recursive: true });
        const stem = `${n}-${job.label.replace(/[^\w]+/g, '-')}-${i + 1}`.replace(/-+/g, '-');
        fs.writeFileSync(path.join(args.tiles, `${stem}.png`), image.data);
      }
      const card = await sharp(image.data).resize({ width: tileWidth }).toBuffer({ resolveWithObject: true });
      const height = Math.min(card.info.height, maxTileHeight);
      const cropped = await sharp(card.data).extract({ left: 0, top: 0, width: tileWidth, height }).png().toBuffer();
      const tile = await sharp({ create: { width: tileWidth, height: height + labelHeight, channels: 3, background: sheetBackground } })
        .composite([{ input: await label(`${job.label}${images.length > 1 ? ` ${i + 1}/${images.length}` : ''}`), left: 0, top: 0 }, { input: cropped, left: 0, top: labelHeight }])
        .png()
        .toBuffer();
      tiles.push({ png: tile, height: height + labelHeight });
    }
  }
} finally {
  await cards.close();
}

fs.mkdirSync(path.dirname(args.out), { recursive: true });
const sheet = contactSheet(tiles, { tileWidth, columns, gap, background: sheetBackground });
const info = await (args.out.endsWith('.png') ? sheet.png() : sheet.jpeg({ quality: 78, mozjpeg: true })).toFile(args.out);
console.log(`${tiles.length} cards from ${jobs.length} requests → ${path.relative(process.cwd(), args.out)} ${info.width}×${info.height}, ${(info.size / 1024).toFixed(0)} KiB, ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log('\nFaults by kind (test/helpers/typesetting-report.ts):');
for (const [kind, count] of Object.entries(countByKind(faults))) console.log(`${String(count).padStart(5)}  ${kind}`);
for (const fault of faults) console.log(`  ${fault.kind}: ${fault.message}`);
if (refused.length > 0) console.log(`\nRefused (${refused.length}):\n${refused.map((line) => `  ${line}`).join('\n')}`);
