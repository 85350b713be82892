// Pagination that runs inside the render page, in one evaluation per request: lays the whole
// document out once at the card's content width, reads the geometry of its blocks, lines and table
// rows, chooses the breaks like a typesetter, and builds every fixed-size card into #cards
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
import { BreakChooser } from './choose-break.js';
import { CodeWrapRule } from './code-wraps.js';
import { fitBlocks, fitImages } from './fit-to-card.js';
import { PieceReader } from './pieces.js';
import { describeCard, describeStart } from './report.js';
import { sectionsOf } from './sections.js';
import type { PaginationInput, PaginationReport, PaginationResult } from './types.js';

/**
 * Set by the bundler: true only in the reporting build used by tests. Everything that depends on
 * it is dropped from the service's build as dead code.
 */
declare const PAGINATION_REPORT: boolean;

export async function paginateInPage(input: PaginationInput): Promise<PaginationResult> {
  const frame = await openCardFrame(input);
  const { root, inner, available } = frame;
  const documentText = PAGINATION_REPORT && input.report ? inner.textContent ?? '' : '';

  // One clipped card per section (hrSplit with overHiddenMode) shows content as it is: nothing scaled.
  const fitToCard = !input.clipSections;
  if (fitToCard) fitImages(inner, available);
  const reader = new PieceReader(inner, available);
  let pieces = reader.read();
  if (fitToCard && fitBlocks(pieces, inner, available)) pieces = reader.read();

  const costs = breakCosts(pieces, available);
  const points = new BreakPoints(inner, pieces);
  const codeWraps = new CodeWrapRule(pieces, points);
  const chooser = new BreakChooser(pieces, costs, available, (c) => codeWraps.penalty(c, costs.penalty[c]!));
  const assembler = new CardAssembler(inner, frame.template, root);

  const cards: HTMLElement[] = [];
  const starts: string[] = [];
  const sections = sectionsOf(pieces, inner, input.splitMode);
  let needed = 0;
  for (const section of sections) {
    if (input.clipSections) {
      needed++;
      if (needed <= input.maxCards) {
        cards.push(assembler.build(section.start, section.end));
        if (PAGINATION_REPORT) starts.push('start');
      }
      continue;
    }
    let s = section.from;
    while (s < section.to) {
      while (s < section.to && pieces[s]!.rule) s++;
      if (s >= section.to) break;
      let c = chooser.choose(section, s, section.to);
      needed++;
      if (needed <= input.maxCards) {
        const startPoint: Point = s === section.from ? section.start : points.before(s);
        for (;;) {
          const card = assembler.build(startPoint, c === section.to ? section.end : points.before(c));
          if (c === s + 1 || !(await overflows(card))) {
            cards.push(card);
            if (PAGINATION_REPORT) starts.push(describeStart(pieces, s, s === section.from));
            break;
          }
          // The estimate was short of the real card: break one candidate earlier.
          card.remove();
          c = chooser.choose(section, s, c - 1);
        }
      }
      s = c;
    }
  }
  if (sections.length === 0) {
    needed = 1;
    cards.push(assembler.build({ node: inner, offset: 0 }, { node: inner, offset: 0 }));
    if (PAGINATION_REPORT) starts.push('start');
  }

  const report: PaginationReport | undefined = PAGINATION_REPORT && input.report ? { documentText, available, cards: [] } : undefined;
  frame.measureCard.remove();
  if (needed > input.maxCards) {
    root.replaceChildren();
    return { boxes: [], needed, report };
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
  if (PAGINATION_REPORT && report) {
    cards.forEach((card, i) => {
      report.cards.push(describeCard(card, starts[i]!));
    });
  }
  return { boxes, needed, report };
}

/** Whether a built card's content reaches past its content area (the estimate from the pieces was short). */
async function overflows(card: HTMLElement): Promise<boolean> {
  await Promise.all(Array.from(card.querySelectorAll('img'), (img) => img.decode().catch(() => undefined)));
  const limit = contentLimit(card);
  return card.querySelector('.card-content-inner')!.getBoundingClientRect().bottom > limit.bottom + 0.5;
}
