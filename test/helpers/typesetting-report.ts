// What a creator would fix by hand before posting a carousel, found on the cards' own layout
// (card-geometry.ts and line-breaks.ts read it from the page): each fault has a kind, so the corpus
// test can require none of each and `npm run corpus` can print how many of each it found.
import { layoutProblems, type CardGeometry } from './card-geometry.js';
import type { SplitMode } from '../../src/cards/render/render-cards.js';
import { breaksInside, shortLastLine, wordBoundaries, type BlockLines } from './line-breaks.js';

export const faultKinds = [
  'text or decoration out of place',
  'table word broken',
  'empty frame',
  'card left more than a third empty',
  'block cut though its rest fits',
  'heading last on a card',
  'introduction last on a card',
  'card of one line',
  'paragraph leaves one line on a card',
  'one- or two-character last line',
  'word broken in a title or tag',
  'text under the minimum size',
] as const;
export type FaultKind = (typeof faultKinds)[number];

export interface Fault {
  kind: FaultKind;
  message: string;
}

/** Titles and tags: text that must never break inside a word. */
const titleBlock = /^(h1|h2|h3)(\.|$)|hashtag/;
/** A paragraph or item that introduces what follows it. */
const introduction = /[:：]\s*$/;

/**
 * The faults of one request's cards, laid out with `splitMode`. Only autoSplit cards are held to
 * a fill: with hrSplit a short section is its author's choice.
 */
export function typesettingFaults(cards: CardGeometry[], blocks: BlockLines[], label: string, splitMode: SplitMode): Fault[] {
  const split = splitMode !== 'noSplit';
  const faults: Fault[] = [];
  const add = (kind: FaultKind, message: string) => faults.push({ kind, message: `${label}, ${message}` });
  const pitch = linePitch(cards);
  cards.forEach((card, index) => {
    const where = `card ${index + 1}`;
    for (const problem of layoutProblems(card, where)) add('text or decoration out of place', problem);
    for (const broken of card.brokenWords.filter((word) => !word.allowed)) add('table word broken', `${where}: table word "${broken.word}" broken`);
    for (const frame of card.emptyFrames) add('empty frame', `${where}: ${frame} holds no line of its content`);
    for (const text of card.smallText) add('text under the minimum size', `${where}: ${text}`);
    const last = index === cards.length - 1;
    if (splitMode === 'autoSplit' && !last) {
      const used = (card.contentBottom - card.content.top) / (card.content.bottom - card.content.top);
      // A card is never less than 40% full (README.md, "Split modes"). A card of ten lines or more is
      // held to two thirds: keeping a heading and two lines of a paragraph together costs it at most
      // three lines. A card of fewer lines (200×200) can lose half its room to that rule.
      const fewLines = (card.content.bottom - card.content.top) / pitch < 10;
      if (used < (fewLines ? 0.4 : 2 / 3 - 0.05)) {
        add('card left more than a third empty', `${where}: ${Math.round((1 - used) * 100)}% of the card is left empty before the next card`);
      }
    }
    const next = cards[index + 1]?.continuedBlock;
    // The rest of a list, paragraph or quote that goes on to the next card would have fitted under
    // it here, and could end this card (it introduces nothing). One px of rounding allowed.
    if (split && next && !introduction.test(next.text) && next.height <= card.content.bottom - card.contentBottom - 1) {
      add('block cut though its rest fits', `${where}: the rest of ${next.name} (${Math.round(next.height)} px) goes on to the next card, though ${Math.round(card.content.bottom - card.contentBottom)} px are left empty`);
    }
    const rows = new Set(card.lines.map((line) => Math.round(line.top)));
    if (split && cards.length > 1 && rows.size <= 1 && !card.hasPicture) add('card of one line', `${where} holds only "${card.lines[0]?.text ?? ''}"`);
    const onCard = blocks.filter((candidate) => candidate.card === index);
    // A card of headings alone is a title card (a long title at 200×200 fills one, or a title with its
    // logo or badge), not a heading left behind.
    const titleCard = onCard.every((block) => isHeading(block)) && !card.pictureOutsideHeadings;
    for (const block of onCard) {
      const text = JSON.stringify(block.text.trim().slice(0, 30));
      if (split && !last && block.lastOnCard && !block.continues) {
        if (isHeading(block) && !titleCard) add('heading last on a card', `${where} ends with the heading ${text}`);
        else if (/^(p|li)(\.|$)/.test(block.block) && introduction.test(block.text)) add('introduction last on a card', `${where} ends with ${text}, which introduces what follows`);
      }
      // A paragraph cut by a break keeps at least two lines on each side of it (no widow, no orphan).
      if (/^(p|li)(\.|$)/.test(block.block) && !block.holdsList && block.lines.length === 1 && (block.continues || block.continued)) {
        add('paragraph leaves one line on a card', `${where}: ${text} ${block.continues ? 'begins with one line at the foot of the card' : 'ends with one line at the head of the card'}`);
      }
      if (/^(p|li)(\.|$)/.test(block.block) && !block.continues && shortLastLine(block)) add('one- or two-character last line', `${where}: ${text} ends on the line "${block.lines.at(-1)}"`);
      if (titleBlock.test(block.block)) {
        for (const broken of breaksInside(block, wordBoundaries(localeOf(block.text)))) add('word broken in a title or tag', `${where}: ${block.block} broken at "${broken}"`);
      }
    }
  });
  return faults;
}

/** The distance from one line of body text to the next, the commonest among the cards (CSS px). */
function linePitch(cards: CardGeometry[]): number {
  const pitches = new Map<number, number>();
  for (const card of cards) {
    const tops = [...new Set(card.lines.filter((line) => !line.heading).map((line) => Math.round(line.top)))].sort((a, b) => a - b);
    for (let i = 1; i < tops.length; i++) {
      const pitch = tops[i]! - tops[i - 1]!;
      if (pitch > 0) pitches.set(pitch, (pitches.get(pitch) ?? 0) + 1);
    }
  }
  return [...pitches].sort((a, b) => b[1] - a[1])[0]?.[0] ?? Infinity;
}

const isHeading = (block: BlockLines) => /^h[1-6](\.|$)/.test(block.block);

/** The locale whose dictionary segments `text`'s words: Japanese for kana, Korean for Hangul, else Chinese. */
function localeOf(text: string): string {
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return 'ja';
  if (/\p{Script=Hangul}/u.test(text)) return 'ko';
  return 'zh';
}

/** How many faults of each kind, every kind named (zero included). */
export function countByKind(faults: Fault[]): Record<FaultKind, number> {
  const counts = Object.fromEntries(faultKinds.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  for (const fault of faults) counts[fault.kind]++;
  return counts;
}
