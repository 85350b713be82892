// What a render page drew, read through a DevTools session of the test's own (RenderPage.inspect):
// the fonts Chromium used for every text run, and where every ::before / ::after of the cards is.
// Call these after the cards are laid out, before the page is cleared.
import { cardMarkup } from '../../src/cards/render/card-markup.js';
import type { RenderPage } from '../../src/cards/render/render-page.js';
import type { Theme } from '../../src/cards/themes/theme-file.js';
import type { RunningService } from './service.js';

/** Which fonts drew one run of text (a text node, or the generated content of a ::before/::after). */
export interface TextFonts {
  text: string;
  /** Index of the card among the cards on the page. */
  card: number;
  fonts: Array<{ familyName: string; isCustomFont: boolean; glyphCount: number }>;
}

/** Where one ::before / ::after of a card is drawn (see pseudoElementBoxes). */
export interface PseudoElementBox {
  /** Index of the card among the cards on the page. */
  card: number;
  /** Class attribute (or tag name) of the element that generates it. */
  owner: string;
  pseudo: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * The fonts Chromium actually used for every text run of the cards on the page, as CDP's
 * CSS.getPlatformFontsForNode reports them: what proves that no glyph came from a host font or
 * fell back to a tofu box.
 */
export async function textFonts(page: RenderPage): Promise<TextFonts[]> {
  const session = await page.inspect();
  try {
    await session.send('DOM.enable');
    await session.send('CSS.enable');
    const { root } = await session.send('DOM.getDocument', { depth: -1 });
    const runs: Array<{ nodeId: number; text: string; card: number }> = [];
    let card = -1;
    const visit = (node: typeof root, insideCards: boolean, isCard: boolean): void => {
      if (isCard && node.nodeType === 1) card++;
      const inside = insideCards || node.attributes?.join(' ').includes('id cards') === true;
      if (inside && node.nodeType === 3 && node.nodeValue?.trim()) runs.push({ nodeId: node.nodeId, text: node.nodeValue, card });
      for (const pseudo of node.pseudoElements ?? []) if (inside) runs.push({ nodeId: pseudo.nodeId, text: `::${pseudo.pseudoType} of <${node.localName}>`, card });
      // The children of #cards are the cards.
      for (const child of node.children ?? []) visit(child, inside, inside && !insideCards);
    };
    visit(root, false, false);
    // Asked all at once: DevTools answers them in order, without a round trip each (a title cut
    // into phrases is thousands of text nodes).
    const answers = await Promise.all(runs.map((run) => session.send('CSS.getPlatformFontsForNode', { nodeId: run.nodeId })));
    return runs.flatMap((run, index) => {
      const { fonts } = answers[index]!;
      return fonts.length > 0 ? [{ text: run.text, card: run.card, fonts: fonts.map(({ familyName, isCustomFont, glyphCount }) => ({ familyName, isCustomFont, glyphCount })) }] : [];
    });
  } finally {
    await session.detach().catch(() => {});
  }
}

/**
 * The border box of every ::before / ::after drawn in the cards on the page, in CSS px relative to
 * the page's top-left corner, with the card it belongs to and the class of the element that
 * generates it. Theme decorations are drawn this way (themes/README.md), so this is what shows
 * whether they stay inside the card and clear of the text.
 */
export async function pseudoElementBoxes(page: RenderPage): Promise<PseudoElementBox[]> {
  const session = await page.inspect();
  try {
    await session.send('DOM.enable');
    await session.send('Runtime.evaluate', { expression: 'window.scrollTo(0, 0)' });
    const { root } = await session.send('DOM.getDocument', { depth: -1 });
    const found: Array<{ nodeId: number; card: number; owner: string; pseudo: string }> = [];
    let cardIndex = -1;
    const visit = (node: typeof root, insideCards: boolean, depth: number): void => {
      const attributes = node.attributes ?? [];
      const className = attributes[attributes.indexOf('class') + 1] ?? '';
      if (insideCards && depth === 0 && node.nodeType === 1) cardIndex++;
      if (insideCards) for (const pseudo of node.pseudoElements ?? []) found.push({ nodeId: pseudo.nodeId, card: cardIndex, owner: attributes.includes('class') ? className : node.localName, pseudo: pseudo.pseudoType ?? '' });
      const isCards = attributes.join(' ').includes('id cards');
      for (const child of node.children ?? []) visit(child, insideCards || isCards, isCards ? 0 : insideCards ? depth + 1 : depth);
    };
    visit(root, false, 0);
    // Asked all at once, as in textFonts: no round trip per decoration.
    const models = await Promise.all(found.map((item) => session.send('DOM.getBoxModel', { nodeId: item.nodeId }).catch(() => undefined)));
    const boxes: PseudoElementBox[] = [];
    for (const [index, item] of found.entries()) {
      const model = models[index];
      if (!model) continue;
      const quad = model.model.border;
      const xs = [quad[0]!, quad[2]!, quad[4]!, quad[6]!];
      const ys = [quad[1]!, quad[3]!, quad[5]!, quad[7]!];
      boxes.push({ card: item.card, owner: item.owner, pseudo: item.pseudo, left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) });
    }
    return boxes;
  } finally {
    await session.detach().catch(() => {});
  }
}

/**
 * `runs` (in document order) with the consecutive runs that together spell one of `texts` joined
 * into one, their fonts combined: a Chinese or Japanese block is split into several text nodes at
 * its line-break points (<wbr>, src/cards/markdown/cjk-phrase-breaks.ts), one title into several runs.
 */
export function joinRuns(runs: TextFonts[], texts: string[]): TextFonts[] {
  const joined: TextFonts[] = [];
  for (let start = 0; start < runs.length; start++) {
    let text = '';
    for (let end = start; end < runs.length && texts.some((candidate) => candidate.startsWith(text + runs[end]!.text)); end++) {
      text += runs[end]!.text;
      if (texts.includes(text)) {
        joined.push({ text, card: runs[start]!.card, fonts: runs.slice(start, end + 1).flatMap((run) => run.fonts) });
        start = end;
        break;
      }
    }
  }
  return joined;
}

/**
 * A 440-px card of `contentHtml` in each of `themes` (its default mode), laid out as the cards of
 * one render page of the service, and `script` evaluated for each card, the card element named
 * `card`; the answers in the order of `themes`. A theme's rules apply to its own card alone, so
 * the cards beside it change nothing, and one layout costs a fraction of one per theme.
 */
export async function inEachTheme<T>(service: RunningService, themes: readonly Theme[], contentHtml: string, script: string): Promise<T[]> {
  const cards = themes.map((theme) => cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml }));
  const answers = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
    await page.layout(cards.join(''));
    return page.evaluate<T[]>(`[...document.querySelectorAll('#cards > .card')].map((card) => ${script})`);
  });
  if (answers.length !== themes.length) throw new Error(`${answers.length} cards answered for ${themes.length} themes`);
  return answers;
}
