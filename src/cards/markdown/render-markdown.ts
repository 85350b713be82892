// Markdown (or MDX) → sanitized HTML for the inside of a card (`.card-content-inner`).
// One unified pipeline (remark → rehype) so every feature works on the syntax tree and the
// sanitizer sees the final tree rather than a string. The order matters:
//   parse (+ MDX, checked and mapped to HTML) → GFM, math, ==mark==, :emoji: → HTML tree
//   → raw HTML parsed → SANITIZED → inline styles cleaned
//   → trusted output added after the sanitizer: KaTeX, Mermaid diagrams, Shiki code blocks, hashtag chips, fetched images
//   → placeholders for images that could not be fetched → images marked block or inline → attributes for themes
//   → line-break points between Chinese and Japanese phrases.
import rehypeRaw from 'rehype-raw';
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkCjkFriendly from 'remark-cjk-friendly';
import remarkCjkFriendlyGfmStrikethrough from 'remark-cjk-friendly-gfm-strikethrough';
import remarkFlexibleMarkers from 'remark-flexible-markers';
import remarkGemoji from 'remark-gemoji';
import remarkGfm from 'remark-gfm';
import { remarkAlert } from 'remark-github-blockquote-alert';
import remarkMath from 'remark-math';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified, type PluggableList } from 'unified';
import { VFile } from 'vfile';
import type { ImageSource } from '../images/remote-image-fetcher.js';
import { defaultMarkdown } from '../request/schema.js';
import { rehypeAlertIcons } from './alert-icons.js';
import { rehypeAnnotateForThemes } from './annotate-for-themes.js';
import { AskingPassEnded, rehypeEndOnceDiagramsAsked, rehypeEndOnceImagesAsked } from './asking-pass.js';
import { rehypeMarkBlankDocument } from './blank-document.js';
import { rehypeCleanInlineStyles } from './clean-inline-styles.js';
import { rehypeDropEmptyTables } from './empty-tables.js';
import { rehypeCjkEmphasis } from './cjk-emphasis.js';
import { rehypeMarkCjkBlocks } from './cjk-blocks.js';
import { rehypeCjkPhraseBreaks } from './cjk-phrase-breaks.js';
import { rehypeUprightCjkRuns } from './cjk-upright.js';
import { remarkJoinCjkLines } from './cjk-line-breaks.js';
import { rehypeCodeBlocks, remarkKeepCodeMeta } from './code-blocks.js';
import { precheckMarkdown, rehypeDepthLimit, remarkDocumentLimits, tooDeepError } from './document-limits.js';
import { rehypeMarkHanRepertoire } from './han-repertoire.js';
import { rehypeLongWordBreaks } from './long-word-breaks.js';
import { rehypeImageLayout } from './image-layout.js';
import { rehypeHashtags } from './hashtags.js';
import { rehypeInlineRemoteImages, type RemoteImageContext } from './inline-remote-images.js';
import { rehypeMath } from './math.js';
import { rehypeMermaidDiagrams, type DiagramDrawer } from './mermaid-diagrams.js';
// Imported statically: this module runs in the Markdown workers (markdown-pool.ts), where the
// test runner's TypeScript loader resolves static imports of source files but not dynamic ones.
import { remarkSafeMdx } from './mdx-components.js';
import { mdxSyntaxError } from './mdx-errors.js';
import type { ProgressListener } from './progress.js';
import { rehypeDropDecorativePlaceholdersInLines, rehypePlaceholderForUnloadedImages } from './placeholder-images.js';
import { sanitizeSchema } from './sanitize-schema.js';
import { rehypeTextDirection } from './text-direction.js';
import { rehypeKeepThaiRepetitionMark } from './thai-repetition-mark.js';

const markdownFeatures: PluggableList = [
  remarkGfm,
  // `**中文**，` and `~~中文~~。` next to CJK punctuation parse as emphasis, as a CJK reader expects.
  remarkCjkFriendly,
  remarkCjkFriendlyGfmStrikethrough,
  remarkMath,
  // `==text==` → <mark>.
  remarkFlexibleMarkers,
  remarkGemoji,
  // GitHub alerts (`> [!NOTE]`, TIP, IMPORTANT, WARNING, CAUTION) → div.markdown-alert with a
  // title (octicon + label); themes colour them (themes/_base.css, docs/themes.md).
  remarkAlert,
  remarkKeepCodeMeta,
  remarkJoinCjkLines,
];

const htmlSteps: PluggableList = [
  // The footnote back-link is a text arrow drawn by the text face: ↩ exists only in the colour
  // emoji face, and a variation selector after it is drawn by no bundled face.
  [remarkRehype, { allowDangerousHtml: true, footnoteBackContent: '↑' }],
  rehypeRaw,
  rehypeDepthLimit,
  [rehypeSanitize, sanitizeSchema],
  rehypeDropEmptyTables,
  rehypeAlertIcons,
  rehypeCleanInlineStyles,
  rehypeMath,
  // Before the code blocks: a diagram that cannot be drawn leaves its source as a code block.
  rehypeMermaidDiagrams,
  // A first pass that asked ends at one of these two (asking-pass.ts).
  rehypeEndOnceDiagramsAsked,
  rehypeCodeBlocks,
  rehypeHashtags,
  rehypeInlineRemoteImages,
  rehypeEndOnceImagesAsked,
  rehypePlaceholderForUnloadedImages,
  rehypeImageLayout,
  rehypeDropDecorativePlaceholdersInLines,
  rehypeAnnotateForThemes,
  rehypeTextDirection,
  rehypeMarkHanRepertoire,
  rehypeCjkEmphasis,
  rehypeMarkCjkBlocks,
  rehypeKeepThaiRepetitionMark,
  // Last of the text steps but one: the others read the text as written, without its <wbr> break points.
  rehypeCjkPhraseBreaks,
  // After the blocks are marked (only blocks mostly in another script need their CJK runs marked),
  // and after the break points, which must see a word like "Biome은" whole to keep it whole.
  rehypeUprightCjkRuns,
  // After every step that reads a text node's words whole.
  rehypeLongWordBreaks,
  rehypeMarkBlankDocument,
  rehypeStringify,
];

const markdownProcessor = unified()
  .use(remarkParse)
  // Right after parsing, before any step walks the tree recursively.
  .use(remarkDocumentLimits)
  .use(markdownFeatures)
  .use(htmlSteps)
  .freeze();

async function buildMdxProcessor() {
  const { default: remarkMdx } = await import('remark-mdx');
  return unified().use(remarkParse).use(remarkMdx).use(remarkDocumentLimits).use(remarkSafeMdx).use(markdownFeatures).use(htmlSteps).freeze();
}

/** The MDX processor, built (remark-mdx imported) by the first mdxMode request. */
let mdxProcessor: ReturnType<typeof buildMdxProcessor> | undefined;
const getMdxProcessor = () => (mdxProcessor ??= buildMdxProcessor());

export interface RenderMarkdownOptions {
  /** Parse as MDX with the fixed component set (docs/api.md#mdx). */
  mdxMode?: boolean;
  /** Draw `#tag` as tag chips (hashtags.ts); on unless false. */
  hashtags?: boolean;
  /**
   * Fetches http(s) images through the SSRF guard and draws SVG images as PNG; without it every
   * remote or SVG image is a placeholder.
   */
  remoteImages?: ImageSource;
  /** False: http(s) images are placeholders, only SVGs are asked of remoteImages. Default: true. */
  fetchRemote?: boolean;
  /**
   * Called (in the worker pool, on the caller's thread) before each image the service fetches or
   * draws: every remote image of the parsed document, whatever syntax wrote it, and every SVG in a
   * data: URL (drawn in a process of its own); what it throws (or rejects with) becomes the
   * document's failure.
   */
  beforeImage?: () => void | Promise<void>;
  /** Draws ```mermaid fences in the request's theme; without it they stay code blocks. */
  diagrams?: DiagramDrawer;
  /** The request's deadline; image fetches stop when it aborts. */
  signal?: AbortSignal;
  /** Told each stage the document enters (see progress.ts). */
  progress?: ProgressListener;
  /**
   * Whether the document has asked remoteImages or diagrams for something it will be rendered again
   * with: the pass then ends after the step that asked, with no HTML (asking-pass.ts).
   */
  endOnceAsked?: () => boolean;
}

export interface RenderedMarkdown {
  /** Sanitized HTML to place inside `.card-content-inner`. */
  html: string;
  /** Remote images that were drawn as placeholders, and why (for the log, not the client). */
  imageFailures: { src: string; reason: string }[];
  /** The CPU time the document took in the Markdown workers, in ms (set by markdown-pool.ts). */
  cpuMs?: number;
}

/**
 * Renders a document. Throws CardError invalid_request for MDX that cannot be shown safely and for
 * documents over a bound of document-limits.ts.
 */
export async function renderMarkdown(markdown: string, options: RenderMarkdownOptions = {}): Promise<RenderedMarkdown> {
  precheckMarkdown(markdown);
  const remoteImages: RemoteImageContext = { fetcher: options.remoteImages, fetchRemote: options.fetchRemote ?? true, signal: options.signal, failures: [] };
  const file = new VFile({
    value: markdown,
    data: {
      remoteImages,
      hashtags: options.hashtags !== false,
      ...(options.diagrams ? { diagrams: options.diagrams } : {}),
      ...(options.progress ? { progress: options.progress } : {}),
      ...(options.endOnceAsked ? { endOnceAsked: options.endOnceAsked } : {}),
    },
  });
  try {
    options.progress?.('parsing the Markdown');
    const processor = options.mdxMode ? await getMdxProcessor() : markdownProcessor;
    const result = await processor.process(file);
    // Nothing to see (white space, empty raw HTML): the default heading, as for empty Markdown.
    if (result.data.blankDocument && markdown !== defaultMarkdown) return { html: String(await markdownProcessor.process(defaultMarkdown)), imageFailures: remoteImages.failures };
    return { html: String(result), imageFailures: remoteImages.failures };
  } catch (error) {
    if (error instanceof AskingPassEnded) return { html: '', imageFailures: remoteImages.failures };
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw tooDeepError();
    throw options.mdxMode ? mdxSyntaxError(error) : error;
  }
}
