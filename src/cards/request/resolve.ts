// A request with its theme and mode resolved, once per request: createCards (index.ts) resolves it
// as the request arrives, and the stages of the pipeline, the preview and the render cache key all
// read this one answer instead of asking the registry again.
import type { ThemeChoice, ThemeRegistry } from '../themes/registry.js';
import { limits, type CardRequest } from './schema.js';

/** The request, its theme and mode, and the warnings of the request as a whole. */
export interface ResolvedRequest extends ThemeChoice {
  request: CardRequest;
}

/** Resolves the request's theme and mode: a 400 for an unknown theme, a warning for a mode the theme lacks. */
export function resolveRequest(themes: ThemeRegistry, request: CardRequest): ResolvedRequest {
  const choice = themes.resolve(request.theme, request.themeMode);
  const laidOut = { ...request, fontScale: layoutFontScale(request) };
  return { request: laidOut, ...choice, warnings: [...choice.warnings, ...weChatModeWarnings(request), ...frontMatterWarnings(request)] };
}

/**
 * The smallest card, in CSS px, that the themes are drawn for. Their header, footer, padding and
 * type are sized for cards of about 320–1080 px; on a 200×200 card they left room for one line of
 * text or none (empty cards, headings under the footer, the page label stacked letter by letter).
 */
export const smallestLayout = { width: 320, height: 320 } as const;

/**
 * The request's fontScale, lowered for a card smaller than smallestLayout: the card is then laid
 * out at that size and drawn scaled down to the requested one (see cardGeometry), like a thumbnail
 * of a normal card. Never below the smallest fontScale a request may ask for (0.5), so the text of
 * a 100 px badge stays legible: it is laid out at 200 px. A weChatMode image is as tall as its
 * content, so only its width counts.
 */
export function layoutFontScale(request: Pick<CardRequest, 'width' | 'height' | 'fontScale'> & { weChatMode?: boolean }): number {
  const byWidth = request.width / smallestLayout.width;
  const byHeight = request.weChatMode ? Number.POSITIVE_INFINITY : request.height / smallestLayout.height;
  return Math.min(request.fontScale, Math.max(limits.fontScale.min, Math.min(byWidth, byHeight)));
}

/** Front-matter keys that set nothing (a blog's `layout:` or `categories:`) are ignored, and told. */
function frontMatterWarnings(request: CardRequest): string[] {
  const ignored = request.creator?.ignoredKeys ?? [];
  return ignored.length === 0 ? [] : [`The front matter keys ${ignored.map((key) => JSON.stringify(key)).join(', ')} set nothing and were ignored.`];
}

/** weChatMode makes one image of the content's height, so a split mode or overHiddenMode does not apply. */
function weChatModeWarnings(request: CardRequest): string[] {
  if (!request.weChatMode) return [];
  const ignored = [...(request.splitMode !== 'noSplit' ? [`splitMode "${request.splitMode}"`] : []), ...(request.overHiddenMode ? ['overHiddenMode'] : [])];
  return ignored.length === 0 ? [] : [`weChatMode makes one image as tall as the content; ${ignored.join(' and ')} did not apply.`];
}
