// Rich Markdown end to end: each fixture document is rendered through the pipeline (checked in the
// HTML it produces) and through the real service (checked in the pixels of the card).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RemoteImageFetcher } from '../src/cards/images/remote-image-fetcher.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { katexCss } from '../src/cards/markdown/math.js';
import { resolveFontFile } from '../src/cards/themes/fonts.js';
import { projectRoot } from '../src/paths.js';
import { countNear } from './helpers/images.js';
import { startImageServer, type LocalImageServer } from './helpers/local-image-server.js';
import { countWhere, renderCard } from './helpers/rendered-card.js';
import { startService, type RunningService } from './helpers/service.js';

const fixturesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'markdown');
const fixture = (name: string) => fs.readFileSync(path.join(fixturesDir, name), 'utf8');

describe('Markdown features in HTML', () => {
  it('renders GFM in full: aligned tables, task lists, strikethrough, autolinks, footnotes, ==mark== and :emoji:', async () => {
    const { html } = await renderMarkdown(fixture('gfm.md'));
    assert.match(html, /<h1 data-text="GFM in full 🚀" dir="auto">GFM in full 🚀<\/h1>/);
    assert.match(html, /<mark[^>]*>highlighted words<\/mark>/);
    assert.match(html, /<del>struck out<\/del>/);
    // The link's text may break after its separators (long-word-breaks.ts); its address is whole.
    assert.match(html, /<a href="https:\/\/example.com">https:\/\/<wbr>example\.<wbr>com<\/a>/);
    assert.match(html, /<th align="left" dir="auto">Left<\/th>\s*<th align="center" dir="auto">Centre<\/th>\s*<th align="right" dir="auto">Right<\/th>/);
    assert.match(html, /<input type="checkbox" checked disabled> write the card/);
    assert.match(html, /<input type="checkbox" disabled> post it 🎉/);
    assert.match(html, /<sup><a href="#user-content-fn-1"[^>]*>1<\/a><\/sup>/);
    assert.match(html, /<section data-footnotes[^>]*>[\s\S]*The source, in a footnote\./);
  });

  it('frames code blocks with a header, language label, optional title and line numbers, and highlights them with Shiki', async () => {
    const { html } = await renderMarkdown(fixture('code.md'));
    const blocks = html.match(/<pre class="code-block[^"]*"[\s\S]*?<\/pre>/g) ?? [];
    assert.equal(blocks.length, 3);
    const [ts, python, unknown] = blocks as [string, string, string];
    assert.match(ts, /class="code-block shiki line-numbers" data-language="ts"/);
    assert.match(ts, /<span class="code-title">server.ts<\/span><span class="code-lang">TypeScript<\/span>/);
    assert.match(ts, /<span class="line highlighted"><span[^>]*>const<\/span><span[^>]*> app</);
    // github-light's keyword red (#D73A49), darkened to read at WCAG AA on any light panel (code-colours.ts).
    assert.match(ts, /--shiki-light:#962933[^>]*>import</);
    assert.equal((ts.match(/class="code-dot"/g) ?? []).length, 3);
    assert.match(python, /<span class="code-lang">Python<\/span>/);
    assert.doesNotMatch(python, /code-title|line-numbers/);
    // An unknown language is plain text with its name as the label, never an error.
    assert.match(unknown, /<span class="code-lang">nosuchlanguage<\/span>/);
    assert.match(unknown, /plain text, never an error/);
    assert.doesNotMatch(unknown, /--shiki-light:#962933/);
  });

  it('highlights a language whose grammar the JavaScript regex engine cannot run (AutoHotkey v2) with Oniguruma, not as plain text', async () => {
    const { html } = await renderMarkdown('```ahk2\nMyFunc(x) {\n  return x * 2\n}\n```');
    assert.match(html, /data-language="ahk2"/);
    // Plain text would be one span for the whole line; highlighted, the keyword is a token of its own.
    assert.match(html, /--shiki-light:#[0-9A-F]{6};--shiki-dark:#[0-9A-F]{6}">\s*return<\/span>/i);
  });

  it('reads fence options: title in quotes, line numbers from a start, highlighted ranges', async () => {
    const { html } = await renderMarkdown("```js title='a b.js' showLineNumbers{10} {1-2}\nx()\ny()\nz()\n```");
    assert.match(html, /<span class="code-title">a b.js<\/span>/);
    assert.match(html, /style="--line-start: 9"/);
    assert.equal((html.match(/class="line highlighted"/g) ?? []).length, 2);
  });

  it('renders math with KaTeX on the server, and a bad formula as error-coloured source', async () => {
    const { html } = await renderMarkdown(fixture('math.md'));
    assert.equal((html.match(/<span class="katex">/g) ?? []).length, 3);
    assert.match(html, /<span class="katex-display">/);
    assert.match(html, /<span class="katex-error"[^>]*style="color:#cc0000"[^>]*>\\frac\{1\}\{<\/span>/);
  });

  it('caps KaTeX sizes and macro expansion instead of failing or hanging', async () => {
    const { html } = await renderMarkdown('$\\rule{1000em}{1000em}$ and $\\def\\a{\\a\\a}\\a$');
    assert.doesNotMatch(html, /1000em/);
    assert.match(html, /katex-error/);
  });

  it('draws GitHub alerts as callouts with an icon and a label, not as "[!NOTE]" in a quote', async () => {
    const kinds = ['NOTE', 'TIP', 'IMPORTANT', 'WARNING', 'CAUTION'];
    const { html } = await renderMarkdown(kinds.map((kind) => `> [!${kind}]\n> 正文 body of the ${kind.toLowerCase()}.`).join('\n\n'));
    assert.doesNotMatch(html, /\[!|<blockquote/);
    for (const kind of kinds) {
      const lower = kind.toLowerCase();
      const alert = new RegExp(
        `<div class="markdown-alert markdown-alert-${lower}"[^>]*>\\s*<p class="markdown-alert-title"[^>]*><svg class="octicon" viewBox="0 0 16 16"[^>]*><path d="M[^"]+"></path></svg>${kind}</p>\\s*<p[^>]*><span class="cjk-upright">正文</span> body of the ${lower}.</p>\\s*</div>`,
      );
      assert.match(html, alert, kind);
    }
    // A quote that only mentions an alert, or names an unknown kind, stays a quote.
    const { html: quotes } = await renderMarkdown('> see [!NOTE] later\n\n> [!DANGER]\n> text');
    assert.equal((quotes.match(/<blockquote>/g) ?? []).length, 2);
    assert.doesNotMatch(quotes, /markdown-alert/);
  });

  it('keeps no svg written in raw HTML, nor anything in it that could run, fetch or embed; an alert quoting one gets only its own icon', async () => {
    const svg =
      '<svg onload="alert(1)" width="20"><script>alert(2)</script><a href="javascript:alert(3)"><path d="M0 0h4v4z" onclick="alert(4)"/></a><use href="#x"/><foreignObject><iframe src="https://example.com"></iframe></foreignObject><animate attributeName="href"/></svg>';
    const { html } = await renderMarkdown(svg);
    assert.doesNotMatch(html, /<svg|<path|onload|onclick|script|javascript|href|<use|foreignObject|iframe|animate/i);
    const { html: alert } = await renderMarkdown(`> [!NOTE]\n> ${svg}`);
    assert.equal((alert.match(/<svg/g) ?? []).length, 1, alert);
    assert.match(alert, /<svg class="octicon"[^>]*><path d="M[^"]+"><\/path><\/svg>NOTE/);
    assert.doesNotMatch(alert, /M0 0h4v4z|onload|onclick|script|javascript|href|<use|foreignObject|iframe|animate/i);
  });

  it('drops a raw HTML table left without cells, as README layout tables around Markdown are, and keeps every other table', async () => {
    // Mermaid's README wraps its examples in <table> and a comment: HTML parsing moves the Markdown
    // out in front of the table and leaves it empty, a frame the themes drew with nothing in it.
    const mermaid = fs.readFileSync(path.join(projectRoot, 'node_modules', 'mermaid', 'README.zh-CN.md'), 'utf8');
    const { html } = await renderMarkdown(mermaid);
    assert.match(html, /流程图/);
    for (const table of html.match(/<table[\s\S]*?<\/table>/g) ?? []) assert.match(table, /<t[dh][\s>]/, table);
    const { html: blank } = await renderMarkdown('<table>\n<!-- nothing -->\n</table>');
    assert.doesNotMatch(blank, /<table/);
    const { html: kept } = await renderMarkdown('<table><tr><td>cell</td></tr></table>\n\n| a |\n|---|\n| 1 |');
    assert.equal(kept.match(/<table/g)?.length, 2, kept);
  });

  it('points every KaTeX font at a file the renderer serves', () => {
    const urls = [...katexCss().matchAll(/url\(([^)]+)\)/g)].map((match) => match[1]!);
    assert.ok(urls.length >= 20, `${urls.length} font URLs`);
    for (const url of urls) {
      const file = resolveFontFile(url);
      assert.ok(file && fs.existsSync(file), `${url} is served`);
    }
  });
});

describe('Markdown features in pixels', () => {
  let service: RunningService;
  let images: LocalImageServer;
  before(async () => {
    images = await startImageServer();
    service = await startService({ REMOTE_IMAGES: 'allowlist', REMOTE_IMAGES_ALLOWLIST: `127.0.0.1:${images.port}` });
  });
  after(async () => {
    await service.close();
    await images.close();
  });

  it('draws highlights, emoji and the table', async () => {
    const png = await renderCard(service, { markdown: fixture('gfm.md') }, 'markdown-gfm');
    assert.ok(countWhere(png, (r, g, b) => r > 235 && g > 190 && g < 240 && b < 170) > 500, 'a yellow highlighter band');
    assert.ok(countWhere(png, (r, g, b) => r > 180 && g < 90 && b < 90) > 100, 'the red of the rocket and apple emoji');
  });

  it('draws code blocks with the window dots and token colours', async () => {
    const png = await renderCard(service, { markdown: fixture('code.md') }, 'markdown-code');
    for (const dot of [[0xff, 0x60, 0x5c], [0xff, 0xbd, 0x44], [0x00, 0xca, 0x4e]] as [number, number, number][]) {
      assert.ok(countNear(png, dot, 8) > 3 * 150, `window dot ${dot}`);
    }
    assert.ok(countNear(png, [0x96, 0x29, 0x33], 20) > 200, 'keyword red from github-light, darkened to WCAG AA');
  });

  it('draws formulas, and the broken one in the error colour', async () => {
    const png = await renderCard(service, { markdown: fixture('math.md') }, 'markdown-math');
    assert.ok(countNear(png, [0xcc, 0x00, 0x00], 40) > 100, 'error-coloured source');
  });

  it('inlines a remote image fetched by the server, and draws a placeholder with the alt text for one that fails', async () => {
    const markdown = `![a red box](${images.origin}/red.png)\n\n![missing picture](${images.origin}/nothing.png)`;
    const { html } = await renderMarkdown(markdown, {
      remoteImages: new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`127.0.0.1:${images.port}`] }),
    });
    assert.match(html, /<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="a red box">/);
    assert.match(html, /<span class="image-placeholder" role="img" aria-label="missing picture">missing picture<\/span>/);

    const before = images.hits.length;
    const png = await renderCard(service, { markdown }, 'markdown-image');
    assert.deepEqual(images.hits.slice(before).sort(), ['/nothing.png', '/red.png']);
    assert.ok(countNear(png, [230, 20, 20], 10) > 150 * 80, 'the red image is drawn');
  });

  it('keeps data: images and draws them', async () => {
    const dataUri = `data:image/png;base64,${fs.readFileSync(path.join(fixturesDir, 'blue.png')).toString('base64')}`;
    const png = await renderCard(service, { markdown: `![blue](${dataUri})` }, 'markdown-data-image');
    assert.ok(countNear(png, [20, 60, 220], 10) > 10_000);
  });
});
