// Markdown → sanitized HTML for the inside of a card (`.card-content-inner`).
// One unified pipeline (remark → rehype) so every later feature (math, code highlighting, MDX)
// works on the syntax tree, and the sanitizer sees the final tree rather than a string.
import rehypeRaw from 'rehype-raw';
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { rehypeAnnotateForThemes } from './annotate-for-themes.js';
import { rehypePlaceholderForUnloadedImages } from './placeholder-images.js';
import { sanitizeSchema } from './sanitize-schema.js';

const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRehype, { allowDangerousHtml: true })
  .use(rehypeRaw)
  .use(rehypeSanitize, sanitizeSchema)
  .use(rehypePlaceholderForUnloadedImages)
  .use(rehypeAnnotateForThemes)
  .use(rehypeStringify)
  .freeze();

export interface RenderedMarkdown {
  /** Sanitized HTML to place inside `.card-content-inner`. */
  html: string;
}

export async function renderMarkdown(markdown: string): Promise<RenderedMarkdown> {
  const file = await processor.process(markdown);
  return { html: String(file) };
}
