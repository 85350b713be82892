// Checks of split cards that need the page's own geometry: runs the service's pagination on one of
// its warm pages, exactly as a request would, with the report of pagination-report.ts, and offers
// the checks every split fixture must pass.
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { renderMarkdown } from '../../src/cards/markdown/render-markdown.js';
import { paginateWithReport, type ReportedPagination } from './pagination-report.js';
import type { RenderPage } from '../../src/cards/render/render-page.js';
import type { RunningService } from './service.js';

export interface SplitRequest {
  markdown: string;
  splitMode: 'autoSplit' | 'hrSplit';
  overHiddenMode?: boolean;
  width?: number;
  height?: number;
  scale?: number;
  /** The fontScale the layout is made at (the service lowers it below 320 px, resolve.ts); 1 unless given. */
  fontScale?: number;
  theme?: string;
  themeMode?: string;
}

/** The pagination of `request` with what each card holds and where. */
export async function splitLayout(service: RunningService, request: SplitRequest): Promise<ReportedPagination> {
  return service.app.cards.renderer.run(AbortSignal.timeout(30_000), (page) => splitLayoutIn(page, service, request));
}

/** The same, in a render page the caller holds, whose cards can then be inspected further. */
export async function splitLayoutIn(page: RenderPage, service: RunningService, request: SplitRequest): Promise<ReportedPagination> {
  const { theme, mode } = service.app.cards.themes.resolve(request.theme, request.themeMode);
  const { html } = await renderMarkdown(request.markdown);
  return paginateWithReport(page, {
      theme,
      mode,
      width: request.width ?? 440,
      height: request.height ?? 586,
      scale: request.scale ?? 2,
      fontScale: request.fontScale,
      splitMode: request.splitMode,
      overHiddenMode: request.overHiddenMode ?? false,
      contentHtml: html,
  });
}

const withoutSpace = (text: string) => text.replace(/\s+/g, '');

/** The checks every split result must pass: nothing cut, lost, doubled or stranded. */
export function assertWellSplit(result: ReportedPagination, name: string): void {
  const report = result.report!;
  assert.equal(report.cards.length, result.needed, `${name}: every needed card is built`);
  report.cards.forEach((card, index) => {
    const where = `${name}, card ${index + 1}`;
    assert.ok(card.boxes.length > 0, `${where} is not empty`);
    for (const box of card.boxes) {
      // One pixel of tolerance for the rounding of glyph positions to layout units.
      assert.ok(
        box.top >= card.contentTop - 1 && box.bottom <= card.contentBottom + 1,
        `${where}: ${box.kind} "${box.text}" spans ${box.top.toFixed(1)}–${box.bottom.toFixed(1)}, outside the content area ${card.contentTop.toFixed(1)}–${card.contentBottom.toFixed(1)}`,
      );
    }
    if (index < report.cards.length - 1) assert.equal(card.endsInHeading, '', `${where} ends with a heading`);
    assert.equal(card.label, report.cards.length > 1 ? `${index + 1}/${report.cards.length}` : '', `${where} page label`);
  });
  assert.equal(
    withoutSpace(report.cards.map((card) => card.text).join('')),
    withoutSpace(report.documentText),
    `${name}: the cards' text joined is the document's text`,
  );
}

/** A PNG of `width`×`height` pixels in two colours, as a `data:` URI. */
export function pngDataUri(width: number, height: number): string {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const band = Math.floor(y / 100) % 2 === 0;
      png.data[i] = band ? 30 : 220;
      png.data[i + 1] = band ? 120 : 60;
      png.data[i + 2] = band ? 200 : 60;
      png.data[i + 3] = 255;
    }
  }
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}
