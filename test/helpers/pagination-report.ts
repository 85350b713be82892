// The service's pagination with a report of what each card holds and where, for checks of split
// cards against the page's own geometry. The page side (pagination-report/in-page.ts) runs the
// service's own modules (src/cards/render/paginate/), bundled as the service bundles them, and
// describes the cards they built; the service's script holds none of this.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { paginationInput, useCardMetrics, type PaginationRequest } from '../../src/cards/render/paginate.js';
import type { PaginationInput, PaginationResult } from '../../src/cards/render/paginate/types.js';
import { bundleGlobalName, bundlePageScript } from '../../src/cards/render/pagination-script.js';
import type { RenderPage } from '../../src/cards/render/render-page.js';

export interface CardReport {
  /** Text of the card, without repeated table headers. */
  text: string;
  html: string;
  /** The card's content area, in px from the card's top edge. */
  contentTop: number;
  contentBottom: number;
  /** The line box of every text fragment, and every image, in px from the card's top-left corner. */
  boxes: { top: number; bottom: number; left: number; right: number; kind: string; text: string }[];
  /** Tag of the heading that holds the card's last text or image, or "" when it is not a heading. */
  endsInHeading: string;
  /** The page label drawn in the footer. */
  label: string;
  /**
   * Where the card begins in the document, in words: `p#intro line 4` (the fifth line of that
   * paragraph), `table#t row 2`, `h2#next`, `p#next` (a paragraph from its first line), or `start`
   * for the first card of a section.
   */
  startsAt: string;
}

export interface ReportedPagination extends PaginationResult {
  report: {
    documentText: string;
    /** Height available to content on one card, in px. */
    available: number;
    cards: CardReport[];
  };
}

const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pagination-report', 'in-page.ts');
let script: Promise<string> | undefined;

/** The expression a page evaluates to paginate `input` and describe the cards (see paginate in paginate.ts). */
export async function reportedPaginationCall(input: PaginationInput): Promise<string> {
  script ??= bundlePageScript(entry);
  return `(() => {\n${await script}\nreturn ${bundleGlobalName}.paginateWithReport(${JSON.stringify(input)});\n})()`;
}

/** paginate() of the service, in a render page, with the report. */
export async function paginateWithReport(page: RenderPage, request: PaginationRequest): Promise<ReportedPagination> {
  const expression = await reportedPaginationCall(paginationInput(request));
  await useCardMetrics(page, request);
  return page.evaluate<ReportedPagination>(expression);
}
