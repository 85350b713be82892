// Pagination that runs inside the render page, in one evaluation per request: lays the whole
// document out once at the card's content width, reads the geometry of its blocks, lines and table
// rows, chooses the breaks of each section together like a typesetter (optimal-breaks.ts), and
// builds every fixed-size card into #cards
// (README.md, "Split modes", describes the result).
//
// This folder is bundled by esbuild into one script that the page evaluates (pagination-script.ts
// on the service side), so its modules may import each other but nothing outside the folder, and
// must not use timers: the page runs with JavaScript off, where only DOM promises such as
// fonts.ready and img.decode() settle.
import { CardAssembler } from './assemble-card.js';
import { BreakPoints, type Point } from './break-points.js';
import { breakCosts } from './break-rules.js';
import { contentLimit, openCardFrame } from './card-frame.js';
import { CardCosts } from './card-cost.js';
import { CodeWrapRule } from './code-wraps.js';
import { fitBlocks, fitImages } from './fit-to-card.js';
import { breakHeadingsAtPunctuation } from './heading-breaks.js';
import { scaleFurther } from './fit-to-room.js';
import { SectionPlan } from './optimal-breaks.js';
import { PieceReader, type Piece } from './pieces.js';
import { sectionsOf } from './sections.js';
import { sliceTallDiagrams } from './slice-diagrams.js';
import { SqueezeRoom, squeezeCard } from './squeeze.js';
import { stackTallGridLists } from './tall-grid-lists.js';
import { unwrapTallCodeLines } from './tall-code-lines.js';
import type { PaginationInput, PaginationResult } from './types.js';

/** Where a built card begins: at piece `piece` (absent for a clipped section or an empty document), first of its section or not. */
interface CardStart {
  piece?: number;
  sectionStart: boolean;
}

/**
 * The cards as built in the page, with what they were built from: checks of the result (which
 * bundle this folder with an entry of their own) describe each card from these.
 */
export interface BuiltCards extends PaginationResult {
  cards: HTMLElement[];
  starts: CardStart[];
  pieces: Piece[];
  /** Height available to content on one card, in px. */
  available: number;
}

/** The service's entry: the cards' boxes, and how many cards the content needs. */
export async function paginateInPage(input: PaginationInput): Promise<PaginationResult> {
  const { boxes, needed } = await buildCards(input);
  return { boxes, needed };
}

/**
 * The service's entry for cards laid out whole (noSplit): their CJK headings broken at punctuation
 * where it reads better (heading-breaks.ts); true when any changed, so their boxes are read again.
 */
export function breakHeadingsInCards(): boolean {
  let changed = false;
  for (const inner of Array.from(document.querySelectorAll('#cards .card-content-inner'))) changed = breakHeadingsAtPunctuation(inner) || changed;
  return changed;
}

/** Lays the document out, chooses the breaks and builds every card into #cards. */
export async function buildCards(input: PaginationInput): Promise<BuiltCards> {
  const frame = await openCardFrame(input);
  const { root, inner, available } = frame;
  breakHeadingsAtPunctuation(inner);

  // One clipped card per section (hrSplit with overHiddenMode) shows content as it is: nothing scaled.
  const fitToCard = !input.clipSections;
  if (fitToCard) {
    sliceTallDiagrams(inner, available);
    stackTallGridLists(inner, available);
    unwrapTallCodeLines(inner, available);
    fitImages(inner, available);
  }
  const reader = new PieceReader(inner, available);
  let pieces = reader.read();
  if (fitToCard && fitBlocks(pieces, inner, available)) pieces = reader.read();

  const costs = breakCosts(pieces, available);
  const points = new BreakPoints(inner, pieces);
  const codeWraps = new CodeWrapRule(pieces, points);
  const cardCosts = new CardCosts(pieces, costs, available, (c) => codeWraps.penalty(c, costs.penalty[c]!), new SqueezeRoom(pieces, inner));
  const assembler = new CardAssembler(inner, frame.template, root);

  const cards: HTMLElement[] = [];
  const starts: CardStart[] = [];
  const sections = sectionsOf(pieces, inner, input.splitMode);
  let needed = 0;
  for (const section of sections) {
    if (input.clipSections) {
      needed++;
      if (needed <= input.maxCards) {
        cards.push(assembler.build(section.start, section.end));
        starts.push({ sectionStart: true });
      }
      continue;
    }
    const plan = new SectionPlan(pieces, cardCosts, section);
    for (let s = plan.startAt(section.from); s < section.to; ) {
      let option = plan.cardFrom(s);
      needed++;
      if (needed <= input.maxCards) {
        const startPoint: Point = s === section.from ? section.start : points.before(s);
        for (;;) {
          const card = assembler.build(startPoint, option.end === section.to ? section.end : points.before(option.end), option.scaled);
          let overflow = await overflowOf(card);
          if (overflow > 0.5 && option.squeeze !== undefined) {
            squeezeCard(card, overflow + 0.5, option.squeeze);
            overflow = await overflowOf(card);
          }
          if (overflow <= 0.5 || cardCosts.mayOverflow(s, option.end)) {
            cards.push(card);
            starts.push({ piece: s, sectionStart: s === section.from });
            break;
          }
          // The estimate was short of the real card: scale its tail down further while it stays
          // legible, else end the card one candidate earlier.
          card.remove();
          const scaled = option.scaled && scaleFurther(option.scaled, overflow);
          option = scaled ? { ...option, scaled } : plan.cardFrom(s, option.end - 1);
        }
      }
      s = plan.startAt(option.end);
    }
  }
  if (sections.length === 0) {
    needed = 1;
    cards.push(assembler.build({ node: inner, offset: 0 }, { node: inner, offset: 0 }));
    starts.push({ sectionStart: true });
  }

  frame.measureCard.remove();
  if (needed > input.maxCards) {
    root.replaceChildren();
    return { boxes: [], needed, cards: [], starts: [], pieces, available };
  }
  cards.forEach((card, i) => {
    card.querySelector('.page')!.textContent = cards.length > 1 ? `${i + 1}/${cards.length}` : '';
  });
  void root.offsetHeight;
  await document.fonts.ready;

  const boxes = cards.map((card) => {
    const box = card.getBoundingClientRect();
    return { x: box.left + window.scrollX, y: box.top + window.scrollY, width: box.width, height: box.height };
  });
  return { boxes, needed, cards, starts, pieces, available };
}

/** How far a built card's content reaches past its content area, in px (the estimate from the pieces was short). */
async function overflowOf(card: HTMLElement): Promise<number> {
  await Promise.all(Array.from(card.querySelectorAll('img'), (img) => img.decode().catch(() => undefined)));
  const limit = contentLimit(card);
  return card.querySelector('.card-content-inner')!.getBoundingClientRect().bottom - limit.bottom;
}
