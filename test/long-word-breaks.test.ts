// Long URLs, paths and identifiers in running text get break points where a reader expects them
// (src/cards/markdown/long-word-breaks.ts), and nothing else changes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { splitAtBreakPoints } from '../src/cards/markdown/long-word-breaks.js';

describe('break points in long words', () => {
  it('breaks URLs after their separators, identifiers at their case changes, and never between digits', () => {
    assert.deepEqual(splitAtBreakPoints('see https://www.npmjs.com/~davidmarkclements now'), ['see https://', 'www.', 'npmjs.', 'com/', '~davidmarkclements now']);
    assert.deepEqual(splitAtBreakPoints('maxConcurrentRequests'), ['max', 'Concurrent', 'Requests']);
    assert.deepEqual(splitAtBreakPoints('node_modules/fastify/README.md'), ['node_', 'modules/', 'fastify/', 'README.', 'md']);
    // Numbers and dates stay whole; so do words under 16 characters.
    assert.deepEqual(splitAtBreakPoints('released 2026-11-26 as 10.11.12345678'), ['released 2026-11-26 as 10.11.12345678']);
    assert.deepEqual(splitAtBreakPoints('e-mail and camelCase'), ['e-mail and camelCase']);
  });

  it('puts <wbr> into text and inline code, not into formulas', async () => {
    // Code blocks have break points of their own (code-wrap.ts), which this step leaves alone.
    const { html } = await renderMarkdown('Read https://example.com/docs/getting-started and `someVeryLongIdentifier`.\n\n$x_{verylongsubscriptname}$');
    assert.match(html, /https:\/\/<wbr>example\.<wbr>com\/<wbr>docs\/<wbr>getting-<wbr>started/);
    assert.match(html, /<code>some<wbr>Very<wbr>Long<wbr>Identifier<\/code>/);
    assert.doesNotMatch(html.slice(html.indexOf('katex')), /<wbr>/);
  });

  it('loses no character: the pieces always join back into the text (fast-check)', () => {
    const alphabet = fc.constantFrom(...'abcXYZ019/._~?&=#-:% 中文'.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 80 }), (characters) => {
        const text = characters.join('');
        const pieces = splitAtBreakPoints(text);
        assert.equal(pieces.join(''), text);
        assert.ok(text === '' || pieces.every((piece) => piece !== ''), 'no empty piece');
      }),
    );
  });
});
