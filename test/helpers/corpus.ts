// The corpus: real documents that were not written for cardwright. The READMEs of packages the
// service installs, read from node_modules at run time (so they change when the packages do), and
// the texts of test/fixtures/corpus/ in eight scripts. Used by test/corpus.test.ts and by
// scripts/corpus.ts, which draws docs/corpus.jpg.
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';
import type { FaultKind } from './typesetting-report.js';

export interface CorpusDocument {
  name: string;
  markdown: string;
}

/** READMEs with tables, code, badges, HTML and long words, each a different author's Markdown. */
export const corpusPackages = ['fastify', 'pino', 'katex', 'ioredis', 'lru-cache', 'prom-client'];

/** The sizes the corpus is laid out at: the default card, Instagram's portrait, Xiaohongshu's, and the smallest. */
export const corpusSizes = [
  { width: 440, height: 586 },
  { width: 1080, height: 1350 },
  { width: 1242, height: 1660 },
  { width: 200, height: 200 },
];

/**
 * Layouts the rotation of themes and sizes (test/corpus.test.ts) does not reach, laid out as well
 * because their cards once needed fixing by hand: pino's README in minimal with autoSplit at the
 * default size left a card a third empty under its list of links and put the last two links on
 * the next card.
 */
export const corpusPinned = [{ document: 'pino README', theme: 'minimal', splitMode: 'autoSplit', width: 440, height: 586 }] as const;

/**
 * Where break rules collide (README.md, "Split modes"): at 200×200 a README's heading, the sentence
 * introducing a code block and the block's first lines can be more than a card, so one rule gives
 * way to another. The corpus test lays every README out at that size too and requires none of the
 * other faults there; `npm run corpus -- --smallest` counts these in every theme (docs/performance.md,
 * "What is left at 200×200").
 */
export const collisionKinds: readonly FaultKind[] = [
  'paragraph leaves one line on a card',
  'introduction last on a card',
  'card left more than a third empty',
  'block cut though its rest fits',
];

/**
 * Every README at 200×200 in a theme of its own (the rotation gives them the larger sizes): among
 * them the themes whose headings take most of such a card, and for prom-client's README, which
 * needs more than the 50 cards a request may make in the roomier themes, a plain one.
 */
export const corpusSmallest = [
  { document: 'fastify README', theme: 'business' },
  { document: 'pino README', theme: 'pop-art' },
  { document: 'katex README', theme: 'japanese-magazine' },
  { document: 'ioredis README', theme: 'dreamy' },
  { document: 'lru-cache README', theme: 'art-deco' },
  { document: 'prom-client README', theme: 'minimalist' },
] as const;

/** The texts in eight scripts, by file name. */
export const corpusLanguages = ['zh-hans', 'zh-hant', 'ja', 'ko', 'ar', 'he', 'th', 'hi'];

/**
 * At most this many characters of a README, cut at a heading: a whole README (ioredis's is 70,000
 * characters) would be more cards than one request may make.
 */
const maxReadmeLength = 6000;

export function corpusDocuments(): CorpusDocument[] {
  const readmes = corpusPackages.map((name) => {
    const text = fs.readFileSync(path.join(projectRoot, 'node_modules', name, 'README.md'), 'utf8');
    return { name: `${name} README`, markdown: cutAtHeading(text, maxReadmeLength) };
  });
  const texts = corpusLanguages.map((name) => ({
    name,
    markdown: fs.readFileSync(path.join(projectRoot, 'test', 'fixtures', 'corpus', `${name}.md`), 'utf8'),
  }));
  return [...readmes, ...texts];
}

function cutAtHeading(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit);
  const lastHeading = head.lastIndexOf('\n#');
  return lastHeading > limit / 3 ? head.slice(0, lastHeading) : head.slice(0, head.lastIndexOf('\n\n'));
}
