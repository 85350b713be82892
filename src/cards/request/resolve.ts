// A request with its theme and mode resolved, once per request: createCards (index.ts) resolves it
// as the request arrives, and the stages of the pipeline, the preview and the render cache key all
// read this one answer instead of asking the registry again.
import type { ThemeChoice, ThemeRegistry } from '../themes/registry.js';
import type { CardRequest } from './schema.js';

/** The request, its theme and mode, and the warnings of the request as a whole. */
export interface ResolvedRequest extends ThemeChoice {
  request: CardRequest;
}

/** Resolves the request's theme and mode: a 400 for an unknown theme, a warning for a mode the theme lacks. */
export function resolveRequest(themes: ThemeRegistry, request: CardRequest): ResolvedRequest {
  const choice = themes.resolve(request.theme, request.themeMode);
  return { request, ...choice, warnings: [...choice.warnings, ...weChatModeWarnings(request), ...frontMatterWarnings(request)] };
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
