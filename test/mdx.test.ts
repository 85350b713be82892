// mdxMode through the real service: components render (checked in HTML and pixels), and nothing
// in a document is ever evaluated: expressions, import and export are 400s that say where.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { countNear } from './helpers/images.js';
import { countWhere, renderCard } from './helpers/rendered-card.js';
import { startService, type RunningService } from './helpers/service.js';

const fixturesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'markdown');
const componentsDocument = fs.readFileSync(path.join(fixturesDir, 'components.mdx'), 'utf8');

describe('mdxMode', () => {
  let service: RunningService;
  before(async () => {
    // The default settings: no test here fetches an image, so the file shares the warm service of
    // its lane's group (test/lanes.mjs).
    service = await startService();
  });
  after(async () => service.close());

  const rejected = async (markdown: string) => {
    const { status, json } = await service.generate({ markdown, mdxMode: true });
    assert.equal(status, 400, JSON.stringify(json));
    assert.equal(json.error, 'invalid_request');
    return json.message as string;
  };

  it('maps the components to HTML', async () => {
    const { html } = await renderMarkdown(componentsDocument, { mdxMode: true });
    assert.match(html, /<span class="mdx-font" style="font-size: 20px; color: green">Big green words<\/span>/);
    assert.match(html, /<span class="badge" style="--badge-color: #d0312d">NEW<\/span>/);
    assert.match(html, /<mark class="highlight" style="--highlight-color: skyblue">marked<\/mark>/);
    assert.match(html, /<div class="callout callout-tip"><div class="callout-title">Try this<\/div>\s*<p dir="auto">Callouts hold <strong>Markdown<\/strong>.<\/p>\s*<\/div>/);
    assert.match(html, /<div class="callout callout-danger"><div class="callout-title">Danger<\/div>Do not do this.<\/div>/);
    assert.match(html, /<div class="columns columns-2"><div class="column">\s*<p dir="auto">Left column<\/p>\s*<\/div><div class="column">\s*<p dir="auto">Right column<\/p>/);
    assert.match(html, /<div class="columns columns-3"><div class="column">One<\/div><div class="column">Two<\/div><div class="column">Three<\/div><\/div>/);
    assert.match(html, /<div class="spacer" style="height: 24px"><\/div>/);
    assert.match(html, /<div class="center">Centred text<\/div>/);
  });

  it('draws the components', async () => {
    const png = await renderCard(service, { markdown: componentsDocument, mdxMode: true }, 'mdx-components');
    assert.ok(countNear(png, [0, 128, 0], 30) > 300, 'green <font> text');
    assert.ok(countNear(png, [0x1a, 0x8f, 0x4c], 12) > 200, 'the tip callout border');
    assert.ok(countNear(png, [0xd0, 0x31, 0x2d], 12) > 200, 'the danger callout and the badge');
    // Columns: text on both halves of the card in the same rows.
    const rowsWithTextOnBothHalves = Array.from({ length: png.height }, (_, y) => y).filter((y) => {
      const dark = (x0: number, x1: number) => {
        for (let x = x0; x < x1; x++) {
          const i = (y * png.width + x) * 4;
          if (png.data[i]! < 90 && png.data[i + 1]! < 90 && png.data[i + 2]! < 90) return true;
        }
        return false;
      };
      return dark(60, 400) && dark(460, 820);
    });
    assert.ok(rowsWithTextOnBothHalves.length > 20, `${rowsWithTextOnBothHalves.length} rows with two columns of text`);
    assert.ok(countWhere(png, (r, g, b) => b > 200 && r < 200 && g > 180) > 200, 'the sky-blue highlight');
  });

  it('renders <font size color> as the reference service documents it, plus Markdown and math inside MDX', async () => {
    const { status } = await service.generate({ markdown: '<font size="20" color="green">Hello World</font>\n\n**bold** $x^2$ :rocket:', mdxMode: true });
    assert.equal(status, 200);
    const { html } = await renderMarkdown('<font size="3" face="Noto Serif SC, serif">a</font> **b** $x^{2}$ :rocket: ==m==', { mdxMode: true });
    assert.match(html, /font-size: 16px; font-family: &#x27;Noto Serif SC&#x27;, serif/);
    assert.match(html, /<strong>b<\/strong>/);
    assert.match(html, /class="katex"/);
    assert.match(html, /🚀/);
    assert.match(html, /<mark[^>]*>m<\/mark>/);
  });

  it('passes HTML elements through the sanitizer', async () => {
    const { html } = await renderMarkdown('<div style="color: red; background: url(x)">a <span className="x">b</span></div>\n\n<img src="javascript:alert(1)" alt="pic" />', { mdxMode: true });
    assert.match(html, /<div style="color: red">a <span class="x">b<\/span><\/div>/);
    assert.match(html, /<span class="image-placeholder" role="img" aria-label="pic">pic<\/span>/);
    assert.doesNotMatch(html, /javascript|url\(/);
  });

  it('never evaluates an expression: {process.exit()} is a 400 naming line, column and the escape', async () => {
    const message = await rejected('# Title\n\nHello {process.exit()} world');
    assert.match(message, /\{process\.exit\(\)\}/);
    assert.match(message, /line 3, column 7/);
    assert.match(message, /\\\{/);
    assert.match(message, /backticks/);
  });

  it('refuses import and export statements', async () => {
    assert.match(await rejected("import fs from 'fs'\n\n# Hi"), /import or export.*line 1/);
    assert.match(await rejected('# Hi\n\nexport const x = 1'), /import or export.*line 3/);
    assert.match(await rejected('export const x'), /import or export.*line 1/);
  });

  it('refuses expressions in props, spread props and flow expressions', async () => {
    assert.match(await rejected('<font size={20}>a</font>'), /size=\{20\} is an expression.*size="20"/);
    assert.match(await rejected('<Badge {...props}>a</Badge>'), /\{\.\.\.props\}.*line 1, column 8/);
    assert.match(await rejected('{globalThis.secret}'), /never evaluates expressions.*line 1, column 1/);
  });

  it('answers an unknown component with the list of known ones', async () => {
    const message = await rejected('Text\n\n<Chart data="1,2,3" />');
    assert.match(message, /Unknown MDX component <Chart> at line 3, column 1/);
    for (const name of ['font', 'Columns', 'Column', 'Callout', 'Badge', 'Highlight', 'Center', 'Spacer']) assert.ok(message.includes(`<${name}>`), name);
    assert.match(await rejected('<script>alert(1)</script>'), /Unknown MDX component <script>/);
  });

  it('answers an MDX syntax error with line, column and a hint', async () => {
    const message = await rejected('# Sums\n\nWhen a<b the sum is small');
    assert.match(message, /MDX syntax error at line 3, column \d+/);
    assert.match(message, /Hint: a bare < or \{ is the usual cause/);
    assert.match(await rejected('Unclosed {brace'), /line 1, column \d+.*Hint/);
  });

  it('validates prop values so no CSS can be injected through them', async () => {
    assert.match(await rejected('<font color="red; background: url(https://example.com)">a</font>'), /color="red; background: url\(https:\/\/example.com\)" is not accepted; use a CSS colour/);
    assert.match(await rejected('<font size="20px; position: fixed">a</font>'), /size=.* is not accepted/);
    assert.match(await rejected("<font face=\"x'; color: red\">a</font>"), /face=.* is not accepted/);
    assert.match(await rejected('<Spacer size="9999" />'), /size="9999" is not accepted; use a number of px from 0 to 400/);
    assert.match(await rejected('<Callout type="info">a</Callout>'), /type="info" is not accepted; use note, tip, warning, danger/);
    assert.match(await rejected('<Badge colour="red">a</Badge>'), /<Badge> at line 1, column 1 has no prop "colour"; it accepts color/);
  });

  it('checks the structure of columns', async () => {
    assert.match(await rejected('<Column>a</Column>'), /<Column> at line 1, column 1 must be inside <Columns>/);
    assert.match(await rejected('<Columns>\n<Column>only one</Column>\n</Columns>'), /two or three <Column> elements/);
  });

  it('shows escaped or backticked braces and angle brackets as text, as the error messages advise', async () => {
    const { status } = await service.generate({ markdown: 'a \\< b, \\{x} and `{process.exit()}`', mdxMode: true });
    assert.equal(status, 200);
    const { html } = await renderMarkdown('a \\< b, \\{x}, \\<Foo> and `{process.exit()}`', { mdxMode: true });
    assert.equal(html, '<p dir="auto">a &#x3C; b, {x}, &#x3C;Foo> and <code>{process.exit()}</code></p>');
  });

  it('treats the same braces as text when mdxMode is off', async () => {
    const { status } = await service.generate({ markdown: 'Hello {process.exit()} and import fs from "fs"' });
    assert.equal(status, 200);
    const { html } = await renderMarkdown('Hello {process.exit()}');
    assert.match(html, /Hello \{process.exit\(\)\}/);
  });
});
