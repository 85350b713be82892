// What raw HTML inside Markdown may keep. Starts from GitHub's rules (hast-util-sanitize's default)
// and allows what card authors need for looks: inline `style`, <mark>, <u>, <font>-free spans.
// Pages that show user content run with JavaScript off and no network, so `style` cannot fetch or
// execute anything; the sanitizer is still the first wall, not the only one.
import { defaultSchema } from 'rehype-sanitize';
import type { Options as SanitizeSchema } from 'rehype-sanitize';

const base = defaultSchema;

export const sanitizeSchema: SanitizeSchema = {
  ...base,
  tagNames: [...(base.tagNames ?? []), 'mark', 'u', 'span', 'small', 'center'],
  attributes: {
    ...base.attributes,
    '*': [...(base.attributes?.['*'] ?? []), 'style', 'className'],
    code: [['className', /^language-./]],
    span: ['className', 'style'],
  },
  // Only these URL schemes survive; `javascript:`, `vbscript:` and `data:text/html` links are dropped.
  protocols: {
    ...base.protocols,
    href: ['http', 'https', 'mailto', 'tel'],
    src: ['http', 'https', 'data'],
  },
};
