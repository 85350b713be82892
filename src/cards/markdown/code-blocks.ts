// Fenced code blocks → highlighted code in a window frame, as the reference service draws them:
// a macOS-style header (three dots, optional title, language label), Shiki colours, optional
// line numbers and highlighted lines. Options come from the fence's meta string:
//   ```ts title="app.ts" showLineNumbers {2,4-5}
// Shiki's highlighter is created once per process and each language is loaded the first time a
// document uses it; an unknown language is shown as plain text, never an error. It runs the
// grammars on Shiki's JavaScript regex engine, not its Oniguruma WebAssembly build: the same colours
// for every language measured, about as fast, and none of the WebAssembly memory that Oniguruma
// grows and never gives back (docs/performance.md, Shiki's regex engine; bench/shiki-engines.ts).
// A grammar with a pattern the JavaScript engine cannot run (AutoHotkey v2's, in Shiki 4.6) is
// highlighted by Oniguruma instead, loaded only then. The common languages' patterns are
// translated for the engine at build time (regex-translations.ts).
import type { Element, ElementContent, Parents, Root } from 'hast';
import type { Root as MdastRoot } from 'mdast';
import type { BundledLanguage, Highlighter } from 'shiki';
import { visit } from 'unist-util-visit';
import { markHighlightedCode } from './highlighted-code.js';
import { readableReplacements } from './code-colours.js';
import { addCodeBreakPoints, alignedLineWidth, markLineIndents } from './code-wrap.js';
import type { VFile } from 'vfile';
import { checkHighlightList, highlightList } from './document-limits.js';
import { reportProgress } from './progress.js';
import { loadRegexTranslations, patternTranslator } from './regex-translations.js';

/**
 * Token colours for light and dark code panels: every token carries both as CSS variables
 * (`--shiki-light`, `--shiki-dark`) and the theme's `--code-panel` picks one (themes/_base.css).
 */
const shikiThemes = { light: 'github-light', dark: 'github-dark' } as const;

type Shiki = typeof import('shiki');
interface LoadedShiki {
  shiki: Shiki;
  highlighter: Highlighter;
  /** The same highlighter on Oniguruma, created for the first language the JavaScript engine cannot run. */
  oniguruma?: Promise<Highlighter>;
  /** Languages whose grammar the JavaScript engine refused: Oniguruma highlights them. */
  onigurumaLanguages: Set<string>;
  /** Per Shiki theme, its colours that read below WCAG AA on a panel of their kind, and their replacements. */
  colorReplacements: Record<string, Record<string, string>>;
}

let loaded: Promise<LoadedShiki> | undefined;
/** Shiki is imported on the first code block, so documents without code never pay for it. */
const getShiki = (): Promise<LoadedShiki> => (loaded ??= loadShiki());

/**
 * Shiki's JavaScript regex engine, with each grammar pattern's translation taken from the build's
 * file when it holds one (regex-translations.ts), else translated now, as the engine would.
 */
export async function createCodeRegexEngine() {
  const [{ createJavaScriptRegexEngine }, translated, translatePattern] = await Promise.all([
    import('shiki/engine/javascript'),
    loadRegexTranslations(),
    patternTranslator(),
  ]);
  return createJavaScriptRegexEngine({ regexConstructor: (pattern) => translated(pattern) ?? translatePattern(pattern) });
}

async function loadShiki(): Promise<LoadedShiki> {
  const [shiki, engine] = await Promise.all([import('shiki'), createCodeRegexEngine()]);
  const created = await shiki.createHighlighter({ themes: Object.values(shikiThemes), langs: [], engine });
  const colorReplacements = {
    [shikiThemes.light]: readableReplacements(created.getTheme(shikiThemes.light), 'light'),
    [shikiThemes.dark]: readableReplacements(created.getTheme(shikiThemes.dark), 'dark'),
  };
  return { shiki, highlighter: created, onigurumaLanguages: new Set(), colorReplacements };
}

/**
 * remark: keeps the fence's meta string (which the HTML step would otherwise drop) as a
 * `data-meta` attribute on the <code>, where the highlighter finds it after sanitizing.
 */
export function remarkKeepCodeMeta() {
  return (tree: MdastRoot) => {
    visit(tree, 'code', (node) => {
      if (!node.meta) return;
      node.data = { ...node.data, hProperties: { ...node.data?.hProperties, dataMeta: node.meta } };
    });
  };
}

export interface CodeMeta {
  title?: string;
  /** First line number when line numbers are on. */
  lineNumbersFrom?: number;
  highlightedLines: Set<number>;
}

/** Reads `title="…"`, `showLineNumbers` / `showLineNumbers{10}` / `lineNumbers` and `{1,3-5}`. */
export function parseCodeMeta(meta: string): CodeMeta {
  const title = /\btitle=(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(meta);
  const numbers = /\b(?:showLineNumbers|lineNumbers)(?:\{(\d{1,6})\})?/.exec(meta);
  const highlightedLines = new Set<number>();
  const withoutTitle = title ? meta.replace(title[0], '') : meta;
  checkHighlightList(withoutTitle);
  for (const range of highlightList(withoutTitle) ?? []) {
    const [from, to] = range.split('-').map((part) => Number(part.trim()));
    if (!from) continue;
    for (let line = from; line <= Math.min(to || from, from + 10_000); line++) highlightedLines.add(line);
  }
  return {
    title: (title?.[1] ?? title?.[2] ?? title?.[3])?.trim() || undefined,
    lineNumbersFrom: numbers ? Number(numbers[1] ?? 1) : undefined,
    highlightedLines,
  };
}

/** rehype: replaces every `pre > code` with the framed, highlighted block. Runs after sanitizing. */
export function rehypeCodeBlocks() {
  return async (tree: Root, file: VFile) => {
    const blocks: { pre: Element; code: Element; parent: Parents }[] = [];
    visit(tree, 'element', (node: Element, _index, parent) => {
      const code = node.tagName === 'pre' ? node.children.find((child): child is Element => child.type === 'element' && child.tagName === 'code') : undefined;
      if (code && parent) blocks.push({ pre: node, code, parent });
    });
    if (blocks.length === 0) return;
    reportProgress(file, 'loading the code highlighter');
    const shiki = await getShiki();
    for (const { pre, code, parent } of blocks) {
      const line = pre.position?.start.line;
      reportProgress(file, `highlighting the ${languageOf(code) ?? 'plain'} code block${line ? ` at line ${line}` : ''}`);
      const index = parent.children.indexOf(pre);
      if (index >= 0) parent.children[index] = await frameCodeBlock(shiki, code);
    }
    reportProgress(file, 'building the HTML');
  };
}

async function frameCodeBlock(loaded: LoadedShiki, code: Element): Promise<Element> {
  const written = languageOf(code);
  const language = written ? await loadLanguage(loaded.shiki, loaded.highlighter, written) : undefined;
  const meta = parseCodeMeta(typeof code.properties.dataMeta === 'string' ? code.properties.dataMeta : '');
  const source = textOf(code).replace(/\n$/, '');
  const highlighted = await highlightCode(loaded, source, language?.id ?? 'text');
  const alignedWidth = alignedLineWidth(source);
  if (alignedWidth === undefined) {
    markLineIndents(highlighted);
    addCodeBreakPoints(highlighted);
  }

  const lines = highlighted.children.filter((child): child is Element => child.type === 'element');
  lines.forEach((line, position) => {
    if (!meta.highlightedLines.has(position + 1)) return;
    delete line.properties.class;
    line.properties.className = ['line', 'highlighted'];
  });
  const preClasses = ['shiki', ...(meta.lineNumbersFrom !== undefined ? ['line-numbers'] : []), ...(alignedWidth !== undefined ? ['code-aligned'] : [])];
  const styles = [
    ...(meta.lineNumbersFrom !== undefined && meta.lineNumbersFrom !== 1 ? [`--line-start: ${meta.lineNumbersFrom - 1}`] : []),
    ...(alignedWidth !== undefined ? [`--code-line-ems: ${alignedWidth}`] : []),
  ];
  const header: ElementContent[] = [
    span('code-dots', [span('code-dot'), span('code-dot'), span('code-dot')]),
    ...(meta.title ? [span('code-title', [{ type: 'text', value: meta.title }])] : []),
    ...(written ? [span('code-lang', [{ type: 'text', value: language?.name ?? written }])] : []),
  ];
  // The header sits inside the <pre>, so a theme's code block style (background, radius,
  // padding) frames header and code together.
  return markHighlightedCode({
    type: 'element',
    tagName: 'pre',
    properties: {
      className: ['code-block', ...preClasses],
      ...(language ? { dataLanguage: language.id } : {}),
      ...(styles.length > 0 ? { style: styles.join('; ') } : {}),
    },
    children: [
      { type: 'element', tagName: 'div', properties: { className: ['code-header'] }, children: header },
      { type: 'element', tagName: 'code', properties: {}, children: highlighted.children },
    ],
  });
}

/**
 * Shiki's `code` element for the source: one `span.line` per line, tokens coloured by CSS variables.
 * The JavaScript engine translates a grammar's patterns as it meets them and throws on one it cannot
 * run; that language then goes to Oniguruma, and a grammar that fails there too gives plain text.
 */
async function highlightCode(loaded: LoadedShiki, source: string, language: string): Promise<Element> {
  if (language !== 'text' && !loaded.onigurumaLanguages.has(language)) {
    const highlighted = tryHighlight(loaded.highlighter, loaded.colorReplacements, source, language);
    if (highlighted) return highlighted;
    loaded.onigurumaLanguages.add(language);
  }
  if (language !== 'text') {
    loaded.oniguruma ??= createOnigurumaHighlighter(loaded.shiki);
    const highlighted = await loaded.oniguruma
      .then(async (oniguruma) => {
        await oniguruma.loadLanguage(language as BundledLanguage);
        return tryHighlight(oniguruma, loaded.colorReplacements, source, language);
      })
      .catch(() => undefined);
    if (highlighted) return highlighted;
  }
  return tryHighlight(loaded.highlighter, loaded.colorReplacements, source, 'text') ?? plainCode(source);
}

async function createOnigurumaHighlighter(shiki: Shiki): Promise<Highlighter> {
  const { createOnigurumaEngine } = await import('shiki/engine/oniguruma');
  return shiki.createHighlighter({ themes: Object.values(shikiThemes), langs: [], engine: createOnigurumaEngine(import('shiki/wasm')) });
}

function tryHighlight(highlighter: Highlighter, colorReplacements: LoadedShiki['colorReplacements'], source: string, language: string): Element | undefined {
  try {
    primeOnce(highlighter, language);
    const root = highlighter.codeToHast(source, { lang: language, themes: shikiThemes, defaultColor: false, colorReplacements });
    const pre = root.children[0] as Element;
    return pre.children[0] as Element;
  } catch {
    return undefined;
  }
}

/** Languages that have had their throw-away highlight (see primeOnce). */
const primedLanguages = new WeakMap<Highlighter, Set<string>>();

/**
 * Shiki 4.6 may give the first highlight in a language the wrong light palette (every token one
 * colour), so the first card with code after a start looked different from the same card a moment
 * later. One throw-away highlight per language makes every real one right.
 */
function primeOnce(highlighter: Highlighter, language: string): void {
  if (language === 'text') return;
  let primed = primedLanguages.get(highlighter);
  if (!primed) {
    primed = new Set();
    primedLanguages.set(highlighter, primed);
  }
  if (primed.has(language)) return;
  highlighter.codeToHast('x', { lang: language, themes: shikiThemes, defaultColor: false });
  primed.add(language);
}

function plainCode(source: string): Element {
  return {
    type: 'element',
    tagName: 'code',
    properties: {},
    children: source
      .split('\n')
      .flatMap((line, index): ElementContent[] => [...(index > 0 ? [{ type: 'text' as const, value: '\n' }] : []), span('line', [{ type: 'text', value: line }])]),
  };
}

async function loadLanguage(shiki: Shiki, highlighter: Highlighter, written: string): Promise<{ id: string; name: string } | undefined> {
  const key = written.toLowerCase();
  if (!Object.hasOwn(shiki.bundledLanguages, key)) return undefined;
  const info = shiki.bundledLanguagesInfo.find((candidate) => candidate.id === key || candidate.aliases?.includes(key));
  if (!info) return undefined;
  try {
    await highlighter.loadLanguage(key as BundledLanguage);
  } catch {
    return undefined;
  }
  return { id: key, name: info.name };
}

function languageOf(code: Element): string | undefined {
  const classes = Array.isArray(code.properties.className) ? code.properties.className : [];
  const language = classes.map(String).find((name) => name.startsWith('language-'));
  return language ? language.slice('language-'.length).slice(0, 40) : undefined;
}

function textOf(node: Element): string {
  return node.children.map((child) => (child.type === 'text' ? child.value : child.type === 'element' ? textOf(child) : '')).join('');
}

function span(className: string, children: ElementContent[] = []): Element {
  return { type: 'element', tagName: 'span', properties: { className: [className] }, children };
}
