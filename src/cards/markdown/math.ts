// Math with KaTeX, rendered on the server into HTML + CSS; the page only needs KaTeX's stylesheet
// and fonts, both supplied by the service (the page has no network).
import fs from 'node:fs';
import path from 'node:path';
import type { Element, Root } from 'hast';
import type { Options as KatexOptions } from 'rehype-katex';
import { visit, EXIT } from 'unist-util-visit';
import type { VFile } from 'vfile';
import { reportProgress } from './progress.js';
import { nodeModulesDir } from '../../paths.js';

/**
 * KaTeX settings for untrusted input: no \href/\url/\htmlStyle (trust off), user sizes capped at
 * 20 em and macro expansion at 1,000 steps so a formula cannot blow up the layout or the CPU.
 * A bad formula is drawn as its source in the error colour instead of failing the request
 * (rehype-katex retries it with throwOnError off).
 */
export const katexOptions: KatexOptions = {
  output: 'html',
  errorColor: '#cc0000',
  strict: 'ignore',
  trust: false,
  maxSize: 20,
  maxExpand: 1000,
};

const mathClasses = ['language-math', 'math-inline', 'math-display'];

/**
 * rehype: renders the formulas of a document with rehype-katex. KaTeX is imported by the first
 * document that has a formula, so the service starts (and plain documents render) without it.
 */
export function rehypeMath() {
  return async (tree: Root, file: VFile) => {
    let hasMath = false;
    visit(tree, 'element', (node: Element) => {
      const classes = Array.isArray(node.properties.className) ? node.properties.className : [];
      if (!classes.some((name) => mathClasses.includes(String(name)))) return undefined;
      hasMath = true;
      return EXIT;
    });
    if (!hasMath) return;
    const { default: rehypeKatex } = await import('rehype-katex');
    reportProgress(file, 'rendering the math formulas');
    rehypeKatex(katexOptions)(tree, file);
    reportProgress(file, 'building the HTML');
  };
}

const katexDist = path.join(nodeModulesDir, 'katex', 'dist');

/** KaTeX's stylesheet with its fonts pointed at the renderer's font route (woff2 only). */
export function katexCss(): string {
  const css = fs.readFileSync(path.join(katexDist, 'katex.min.css'), 'utf8');
  return css.replace(
    /src:url\(fonts\/([A-Za-z0-9_-]+)\.woff2\) format\("woff2"\)[^;}]*/g,
    (_, name: string) => `src:url(/fonts/katex/files/${name}.woff2) format("woff2")`,
  );
}

/** Maps `/fonts/katex/files/<KaTeX font>.woff2` to the katex package's file, or undefined. */
export function resolveKatexFontFile(urlPath: string): string | undefined {
  const match = /^\/fonts\/katex\/files\/(KaTeX_[A-Za-z0-9-]+\.woff2)$/.exec(urlPath);
  return match?.[1] ? path.join(katexDist, 'fonts', match[1]) : undefined;
}
