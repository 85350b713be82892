// Generated front matter and hashtag text, checked in-process (no browser, a few seconds): bad
// YAML is a 400 that names its line (or the size or alias bound it broke), never another error, and
// never a process warning in the service's log; hashtag text of any shape renders, and a chip is
// always `#` and a word, never inside code, a link or a heading.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { CardError } from '../src/cards/errors.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { checkRequest } from '../src/cards/request/check.js';

const keys = fc.constantFrom(
  'title', 'subtitle', 'author', 'handle', 'avatar', 'date', 'tags', 'cover', 'signature', 'end',
  'width', 'height', 'theme', 'splitMode', 'scale', 'fontFamily', 'fontScale', 'hashtags', 'format', 'markdown',
  '键', '__proto__', 'constructor', '<<', '? complex', '"quoted key"', 'a b', '0', 'true', '- list',
);
const scalar = fc.oneof(
  fc.constantFrom(
    '1e999', '-1e999', '9007199254740993', '0x1F', '.inf', '.nan', '~', 'null', 'yes', '2026-11-23', '"', "'", '|', '>',
    '&a x', '*a', '*b', '!!js/function x', '!foo bar', '{a: 1}', '[1, [2, [3]]]', '{', '[', '\t', '#', '---', '...',
    '"@x"', '"\\u0000"', '"\\ud800"', 'a: b: c', '%YAML 1.1', '{[a]: b}', 'data:image/png;base64,AAAA',
  ),
  fc.string({ maxLength: 30, unit: 'grapheme' }),
  fc.integer().map(String),
  fc.double().map(String),
);
const line = fc.oneof(
  fc.tuple(keys, scalar).map(([key, value]) => `${key}: ${value}`),
  fc.tuple(keys, scalar).map(([key, value]) => `${key}:\n  - ${value}\n  - ${value}`),
  fc.tuple(keys, scalar).map(([key, value]) => `${key}:\n  nested:\n    deep: ${value}`),
  fc.tuple(keys, scalar).map(([key, value]) => `${key}: &a ${value}`),
  fc.constantFrom(
    'x: &a [1,2,3,4,5,6,7,8,9,10]\ny: [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]', '<<: *a', '\ttitle: tab', 'title:\ttab', '# comment', '',
    '---', '...', '%TAG ! tag:x,2000:', 'title: |\n  multi\n  line', '? [a, b]\n: c', '{a: 1}: b',
  ),
  fc.string({ maxLength: 40, unit: 'grapheme' }),
);
const document = fc
  .tuple(fc.constantFrom('', '\uFEFF'), fc.array(line, { maxLength: 8 }), fc.constantFrom('\n', '\r\n'), fc.constantFrom('---', '...', '--- '))
  .map(([bom, lines, eol, close]) => `${bom}---${eol}${lines.join(eol)}${eol}${close}${eol}# body\n\ntext #标签`);

const hashtagText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '#', '#中文', '#tag', ' ', '\n', '*', '_', '**', '`', 'https://x.y/#a', '[l](#x)', '#1', 'a#b', '，', '\u200d', '#\u0301',
        '#😀', '#ا', '#한국어', '$#x$', '  \n', '\\#x', '# ', '## #h', '```\n#c\n```\n', '<a href="#x">#y</a>', '<code>#z</code>',
      ),
      fc.string({ maxLength: 6, unit: 'grapheme' }),
    ),
    { maxLength: 25 },
  )
  .map((parts) => parts.join(''));

describe('front matter and hashtags under generated input', () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  after(() => process.off('warning', onWarning));

  it('answers bad front matter with a 400 naming its line or bound, never another error or a logged warning', async () => {
    fc.assert(
      fc.property(document, (markdown) => {
        try {
          checkRequest({ markdown });
        } catch (error) {
          assert.ok(error instanceof CardError && error.kind === 'invalid_request', `not a 400 for ${JSON.stringify(markdown)}: ${error}`);
          assert.match(error.message, /front matter (at line \d+|is not valid YAML at line \d+|is \d+ characters|is not accepted)/, JSON.stringify(markdown));
        }
      }),
      { numRuns: 3000 },
    );
    // Node delivers process warnings on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([...new Set(warnings)], []);
  });

  it('renders any hashtag text, with chips of # and a word only outside code, links and headings', async () => {
    await fc.assert(
      fc.asyncProperty(hashtagText, async (markdown) => {
        const { html } = await renderMarkdown(markdown);
        for (const chip of html.matchAll(/<span class="hashtag">([^<]*)<\/span>/g)) assert.match(chip[1]!, /^#[\p{L}\p{M}\p{N}_-]+$/u, JSON.stringify(markdown));
        // No chip inside code, a link or a heading.
        assert.doesNotMatch(html, /<(code|a|h[1-6])\b[^>]*>(?:(?!<\/\1>).)*class="hashtag"/s, JSON.stringify(markdown));
      }),
      { numRuns: 400 },
    );
  });
});
