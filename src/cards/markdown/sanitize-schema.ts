// What raw HTML inside Markdown may keep. Starts from GitHub's rules (hast-util-sanitize's default:
// no script, style element, event handler, frame, object, embed, form, input other than a disabled
// checkbox, base, meta or link) and allows what card authors need for looks: inline `style`,
// <mark>, <u>, <span>, <small>, <center>, and class names. No <svg>: a GitHub alert's icon is
// added after sanitizing (alert-icons.ts).
// Pages that show user content run with JavaScript off and no network, so `style` cannot fetch or
// execute anything; the sanitizer is still the first wall, not the only one (see clean-inline-styles.ts).
import { defaultSchema } from 'rehype-sanitize';
import type { Options as SanitizeSchema } from 'rehype-sanitize';

const base = defaultSchema;

// <source srcset> inside <picture> names images that no step fetches through the SSRF guard or
// turns into a placeholder (those steps know only <img src>): <source> goes, its <picture> stays
// as a wrapper, and the <img> inside it follows the rules of every other image.
const { source: _source, ...baseAttributes } = base.attributes ?? {};

export const sanitizeSchema: SanitizeSchema = {
  ...base,
  tagNames: [...(base.tagNames ?? []).filter((name) => name !== 'source'), 'mark', 'u', 'span', 'small', 'center'],
  attributes: {
    ...baseAttributes,
    '*': [...(base.attributes?.['*'] ?? []), 'style', 'className'],
    // language-* for highlighting; math-* are remark-math's markers for inline and display formulas.
    // The fence's meta string (title, line numbers) is read by the code block step after sanitizing.
    code: [['className', /^language-./, 'math-inline', 'math-display'], 'dataMeta'],
    span: ['className', 'style'],
  },
  // These elements go with their content: a <style> block's CSS would otherwise show up as text.
  strip: ['script', 'style'],
  // Only these URL schemes survive; `javascript:`, `vbscript:`, `file:` and `data:text/html` are dropped.
  protocols: {
    ...base.protocols,
    href: ['http', 'https', 'mailto', 'tel'],
    src: ['http', 'https', 'data'],
  },
};
