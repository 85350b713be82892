// For creators (docs/api.md#front-matter): front matter's cover, signature and closing card in the
// request's theme, hashtags as chips, format "pdf", fontFamily. Through the real service and its
// warm Chromium pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import sharp from 'sharp';
import { getDocumentProxy } from 'unpdf';
import { RemoteImageFetcher } from '../src/cards/images/remote-image-fetcher.js';
import { SvgRasterizer } from '../src/cards/images/svg-raster.js';
import { MarkdownPool } from '../src/cards/markdown/markdown-pool.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { prepareContent } from '../src/cards/pipeline.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { renderCards } from '../src/cards/render/render-cards.js';
import { checkRequest } from '../src/cards/request/check.js';
import { layoutFontScale, resolveRequest } from '../src/cards/request/resolve.js';
import { countNear, decodePng, differingFraction, download, type DecodedPng } from './helpers/images.js';
import { startImageServer, type LocalImageServer } from './helpers/local-image-server.js';
import { textFonts } from './helpers/page-inspection.js';
import { postJson } from './helpers/post-json.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';

/** A 2×2 red PNG, as an avatar. */
const avatarPng = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#e0245e' } }).png().toBuffer();
const avatar = `data:image/png;base64,${avatarPng.toString('base64')}`;

const frontMatter = [
  '---',
  'title: 七天学会做知识卡片',
  'subtitle: From Markdown to a carousel',
  'author: 林小满',
  'handle: "@xiaoman"',
  `avatar: ${avatar}`,
  'date: 2026-11-23',
  'tags: [知识卡片, markdown]',
  'cover: true',
  'signature: true',
  'end: 关注我，下期讲配色',
  '---',
].join('\n');
const content = '# 第一天\n\nWrite in Markdown. 写下来。\n\n---\n\n## 第二天\n\nSplit into cards.';

describe('for creators', () => {
  let service: RunningService;
  let images: LocalImageServer;
  // The stages run on the service's render pages and themes, with Markdown workers of their own.
  const markdown = new MarkdownPool({ threads: 1, cpuLimitMs: 10_000, queueMax: 8 });
  const svgImages = new SvgRasterizer();
  before(async () => {
    images = await startImageServer();
    service = await startService({ REMOTE_IMAGES_ALLOWLIST: `127.0.0.1:${images.port}` });
  });
  after(async () => {
    await service?.close();
    await images?.close();
    await markdown.close();
  });

  /** The cards of a request laid out in a render page, as the DOM describes them. */
  const cardsInPage = (body: Record<string, unknown>) =>
    inRenderedPage<Array<{ kind: string; title: string; signature: string; signatureVisible: boolean; avatarWidth: number; endText: string }>>(body, `
        Array.from(document.querySelectorAll('#cards > .card'), (card) => {
          const signature = card.querySelector('.card-footer .signature');
          const cardBox = card.getBoundingClientRect();
          const box = signature?.getBoundingClientRect();
          const style = signature && getComputedStyle(signature);
          const avatar = signature?.querySelector('img.author-avatar') ?? card.querySelector('.author-avatar');
          return {
            kind: card.classList.contains('cover-card') ? 'cover' : card.classList.contains('end-card') ? 'end' : 'content',
            title: card.querySelector('.cover-title')?.textContent ?? '',
            signature: signature?.textContent ?? '',
            signatureVisible: !!box && box.width > 20 && box.height > 8 && box.left >= cardBox.left && box.right <= cardBox.right + 0.5 && box.bottom <= cardBox.bottom + 0.5
              && style.visibility !== 'hidden' && Number(style.opacity) > 0.3 && getComputedStyle(card.querySelector('.card-footer')).display !== 'none',
            avatarWidth: avatar?.naturalWidth ?? 0,
            endText: card.querySelector('.end-text')?.textContent ?? '',
          };
        })`);

  /**
   * POST /api/preview from one address as the web page sends it: a 429 (this address's preview
   * budget, charged by what each preview cost) is answered again after its Retry-After.
   */
  async function previewHonouringRetryAfter(body: Record<string, unknown>): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const answer = await fetch(`${service.baseUrl}/api/preview`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (answer.status !== 429 || attempt === 10) {
        assert.equal(answer.status, 200);
        return answer.json();
      }
      await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000));
    }
  }

  /**
   * `script` evaluated in the render page once the cards of a request are laid out. The render
   * stops there (its beforeCapture hook ends it): the tests read the layout, which capturing the
   * cards does not change (a capture only sizes the viewport to the card and scrolls to it), and
   * the captures took most of their time.
   */
  async function inRenderedPage<T>(body: Record<string, unknown>, script: string): Promise<T> {
    const { request } = checkRequest(body);
    // The service's own remote-image rules: only the test's image server is allowed.
    const remoteImages = new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`127.0.0.1:${images.port}`] });
    const parts = { renderer: service.app.cards.renderer, themes: service.app.cards.themes, log: pino({ level: 'silent' }), markdown, svgImages, remoteImages };
    const prepared = await prepareContent(parts, resolveRequest(service.app.cards.themes, request), AbortSignal.timeout(30_000));
    return service.app.cards.renderer.run(AbortSignal.timeout(30_000), async (page) => {
      const laidOut = new Error('laid out');
      await renderCards(page, { ...request, theme: prepared.theme, mode: prepared.mode, creator: prepared.creator, contentHtml: prepared.html, format: 'webp', scale: 1 }, undefined, () => {
        throw laidOut;
      }).catch((error: unknown) => {
        if (error !== laidOut) throw error;
      });
      return page.evaluate<T>(script);
    });
  }

  it('puts a cover card first, the signature in every content card and a closing card last, in every theme and split mode', async () => {
    const problems: string[] = [];
    for (const theme of service.app.cards.themes.themes) {
      for (const splitMode of theme.id === 'plain-notes' ? ['noSplit', 'autoSplit', 'hrSplit'] : ['hrSplit']) {
        const cards = await cardsInPage({ markdown: `${frontMatter}\n${content}`, theme: theme.id, splitMode });
        const label = `${theme.id} ${splitMode}`;
        assert.equal(cards[0]!.kind, 'cover', label);
        assert.equal(cards[0]!.title, '七天学会做知识卡片', label);
        assert.equal(cards[0]!.avatarWidth, 8, `${label}: the avatar is drawn on the cover`);
        assert.equal(cards.at(-1)!.kind, 'end', label);
        assert.equal(cards.at(-1)!.endText, '关注我，下期讲配色', label);
        const contentCards = cards.filter((card) => card.kind === 'content');
        assert.equal(contentCards.length, splitMode === 'hrSplit' ? 2 : splitMode === 'noSplit' ? 1 : contentCards.length, label);
        for (const card of contentCards) {
          assert.match(card.signature, /林小满\s*@xiaoman/, label);
          if (!card.signatureVisible) problems.push(`${label}: the signature is not drawn inside the card`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('draws the watermark on every card, the cover and closing card too, in the content area clear of the header, signature and page label, in every theme at 200×200 and 1242×1660', async () => {
    const positions = ['bottom-right', 'bottom-left', 'top-right', 'top-left', 'center', 'tiled'] as const;
    const markdown = ['---', 'title: 七天学会做知识卡片', 'author: 林小满', 'handle: "@xiaoman"', 'cover: true', 'signature: true', 'end: 关注我', '---', '# 第一天', '', 'Write it down. 写下来。'].join('\n');
    type Box = { left: number; top: number; right: number; bottom: number };
    type MarkedCard = { kind: string; card: Box; content: Box; mark: Box | null; text: Box | null; chrome: Array<[string, Box]>; opacity: number; colour: string; contentColour: string };
    // Boxes in the page's CSS px (the layout's: a 200-px card is laid out 320 px wide, a 1242-px one at fontScale 2.8).
    const script = `Array.from(document.querySelectorAll('#cards > .card'), (card) => {
      const box = (element) => {
        const rect = element?.getBoundingClientRect();
        return rect && rect.width > 0 && rect.height > 0 ? { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom } : null;
      };
      const content = card.querySelector(':scope > .card-content');
      // The content area: .card-content inside its border and padding, where the text is.
      const area = (() => {
        const outer = box(content);
        const style = getComputedStyle(content);
        const edge = (side) => parseFloat(style['border' + side + 'Width']) + parseFloat(style['padding' + side]);
        return { left: outer.left + edge('Left'), top: outer.top + edge('Top'), right: outer.right - edge('Right'), bottom: outer.bottom - edge('Bottom') };
      })();
      const wrapper = content.querySelector(':scope > .card-watermark');
      const mark = wrapper?.querySelector('.watermark-mark, .watermark-tiles');
      const chrome = [['header', card.querySelector(':scope > .card-header')], ['footer', card.querySelector(':scope > .card-footer')], ['signature', card.querySelector('.card-footer .signature')], ['page label', card.querySelector('.card-footer .page')]]
        .map(([name, element]) => [name, box(element)]).filter(([, found]) => found);
      return {
        kind: card.classList.contains('cover-card') ? 'cover' : card.classList.contains('end-card') ? 'end' : 'content',
        card: box(card), content: area, mark: box(mark), text: box(mark?.querySelector('.watermark-text')), chrome,
        opacity: wrapper ? Number(getComputedStyle(wrapper).opacity) : 0, colour: mark ? getComputedStyle(mark).color : '', contentColour: getComputedStyle(content).color,
      };
    })`;
    const inside = (inner: Box, outer: Box) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 && inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
    const overlap = (a: Box, b: Box) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const problems: string[] = [];
    for (const [index, theme] of service.app.cards.themes.themes.entries()) {
      // The default mode at both sizes (plain-notes' dark mode too); each theme another position.
      const modes = theme.id === 'plain-notes' ? theme.modes : [theme.defaultMode];
      const runs = modes.flatMap((mode) => [{ mode, width: 200, height: 200 }, { mode, width: 1242, height: 1660 }]);
      const position = positions[index % positions.length]!;
      for (const { mode, width, height } of runs) {
        const label = `${theme.id}${mode ? ` ${mode}` : ''} ${width}×${height} ${position}`;
        const fontScale = width === 200 ? layoutFontScale({ width, height, fontScale: 1 }) : 2.8;
        const body = { markdown, theme: theme.id, themeMode: mode, width, height, fontScale, splitMode: 'autoSplit', watermark: { text: '@xiaoman 小满', position } };
        const cards = await inRenderedPage<MarkedCard[]>(body, script);
        assert.deepEqual(cards.map((card) => card.kind), ['cover', 'content', 'end'], label);
        for (const card of cards) {
          const where = `${label} ${card.kind}`;
          if (!card.mark) {
            problems.push(`${where}: no watermark drawn`);
            continue;
          }
          if (!inside(card.mark, card.content) || !inside(card.mark, card.card)) problems.push(`${where}: the watermark leaves the content area`);
          if (position === 'tiled' ? !inside(card.content, card.mark) : !card.text || card.text.right - card.text.left < 10) problems.push(`${where}: the watermark is not drawn whole`);
          for (const [name, box] of card.chrome) if (overlap(card.mark, box)) problems.push(`${where}: the watermark is over the ${name}`);
          if (Math.abs(card.opacity - (position === 'tiled' ? 0.15 : 0.35)) > 0.001) problems.push(`${where}: opacity ${card.opacity}`);
          if (card.colour !== card.contentColour) problems.push(`${where}: drawn in ${card.colour}, not the content's ${card.contentColour}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('draws the watermark: every image differs from the same request without it, the cover included, and a bad one is a 400', async () => {
    const markdown = `${frontMatter}\n${content}`;
    const images = async (answer: { json: { images: Array<{ url: string }> } }) => Promise.all(answer.json.images.map(async (image) => await decodePng((await download(image.url)).bytes)));
    const top = (png: DecodedPng) => ({ ...png, height: png.height / 2, data: png.data.subarray(0, (png.data.length / 2) | 0) });
    // At the bottom right: the images differ there only. Tiled: all over.
    for (const [theme, watermark, least] of [['plain-notes', '@xiaoman', 0.0005], ['darktech', { text: '@xiaoman', position: 'tiled' }, 0.02]] as const) {
      const marked = await service.generate({ markdown, theme, splitMode: 'hrSplit', scale: 1, watermark });
      const plain = await service.generate({ markdown, theme, splitMode: 'hrSplit', scale: 1 });
      assert.equal(marked.status, 200, JSON.stringify(marked.json));
      const [withIt, without] = [await images(marked), await images(plain)];
      assert.equal(withIt.length, without.length);
      for (const [index, png] of withIt.entries()) {
        const card = `${theme}: card ${index + 1} (${index === 0 ? 'the cover' : index === withIt.length - 1 ? 'the closing card' : 'a content card'})`;
        assert.ok(differingFraction(png, without[index]!) > least, `${card} carries the watermark`);
        if (typeof watermark === 'string') assert.ok(differingFraction(top(png), top(without[index]!)) < 0.0001, `${card}: its upper half is as without the watermark`);
      }
    }
    const bad = await service.generate({ watermark: { text: '@a', opacity: 3 } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 'invalid_request');
    assert.match(bad.json.message, /^watermark\.opacity is not accepted: got number 3; accepted: 0\.05–1/);
    const inFrontMatter = await service.generate({ markdown: '---\nwatermark: {position: tiled}\n---\n# x' });
    assert.equal(inFrontMatter.status, 400);
    assert.match(inFrontMatter.json.message, /neither a text nor an image/);
  });

  it('draws a mark at a corner or the centre beneath the words it shares its place with, and a tiled one over them', async () => {
    // An opaque red logo in the middle of a card full of text, in a light theme, a dark one and two
    // whose content area or heading has stacking of its own (glassmorphism, cyberpunk).
    const logoPng = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const image = `data:image/png;base64,${logoPng.toString('base64')}`;
    const markdown = `# 水印之下\n\n${'知识卡片把一段想法写清楚。'.repeat(40)}`;
    const isRed = (data: Buffer, i: number) => data[i]! > 235 && data[i + 1]! < 20 && data[i + 2]! < 20;
    /** The red logo's box on the card, and the share of the pixels inside it (one pixel in from its edges) that are not the logo's red. */
    const logoCoverage = (png: DecodedPng) => {
      let [left, top, right, bottom] = [png.width, png.height, -1, -1];
      for (let y = 0; y < png.height; y++)
        for (let x = 0; x < png.width; x++)
          if (isRed(png.data, (y * png.width + x) * 4)) [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y)];
      let [inside, notRed] = [0, 0];
      for (let y = top + 1; y < bottom; y++)
        for (let x = left + 1; x < right; x++) {
          inside++;
          if (!isRed(png.data, (y * png.width + x) * 4)) notRed++;
        }
      return { width: right - left + 1, notRed: inside ? notRed / inside : 0 };
    };
    const redPixels = (png: DecodedPng) => {
      let count = 0;
      for (let i = 0; i < png.data.length; i += 4) if (isRed(png.data, i)) count++;
      return count;
    };
    const card = async (body: Record<string, unknown>) => {
      const answer = await service.generate({ width: 400, height: 400, scale: 1, splitMode: 'autoSplit', ...body });
      assert.equal(answer.status, 200, JSON.stringify(answer.json));
      return await decodePng((await download(answer.json.images[0].url)).bytes);
    };
    for (const theme of ['plain-notes', 'darktech', 'glassmorphism', 'cyberpunk']) {
      const { width, notRed } = logoCoverage(await card({ markdown, theme, watermark: { image, position: 'center', opacity: 1, size: 24 } }));
      assert.ok(width >= 90, `${theme}: the logo is drawn (${width} px wide)`);
      // Beneath the text, the glyphs that cross the logo show through it; over them, it would be solid red.
      assert.ok(notRed > 0.05, `${theme}: the text shows through the centred logo (${notRed})`);
      // Tiled, as much of the pattern is seen over a card full of text as over one with a heading
      // alone (one of two cards, so that its footer has a page label too and its content area is as tall).
      const tiled = { image, position: 'tiled', opacity: 1, size: 24 };
      const [overText, overHeading] = [await card({ markdown, theme, watermark: tiled }), await card({ markdown: '# 水印之下\n\n---\n\n# 二', theme, splitMode: 'hrSplit', watermark: tiled })];
      assert.ok(redPixels(overText) > 0.97 * redPixels(overHeading), `${theme}: the tiled logos are over the text (${redPixels(overText)} red pixels, ${redPixels(overHeading)} without the text)`);
    }
  });

  it('lays the cover out for its language and keeps the avatar round and whole in every theme', async () => {
    const korean = ['---', 'title: 마크다운으로 카드 뉴스를 만드는 가장 쉬운 방법', 'author: 김민지 카드뉴스 연구소 편집장', 'handle: "@minji_writes_about_markdown_cards"', `avatar: ${avatar}`, 'cover: true', 'end: 팔로우하고 다음 글도 받아보세요', '---', '# 첫째 날'].join('\n');
    const arabic = ['---', 'title: كيف تصنع بطاقات معرفية', 'author: ليلى أحمد', 'handle: "@layla"', `avatar: ${avatar}`, 'cover: true', '---', '# اليوم الأول'].join('\n');
    const problems: string[] = [];
    for (const theme of service.app.cards.themes.themes) {
      const cover = await inRenderedPage<{ brokenWords: string[]; avatar: { width: number; border: string; shadow: string; transform: string }; authorLineWraps: boolean; handleCut: boolean }>(
        { markdown: korean, theme: theme.id, splitMode: 'hrSplit' },
        `(() => {
          const title = document.querySelector('.cover-card .cover-title');
          // A Korean word whose syllables land on two lines: Korean breaks lines between words.
          const brokenWords = [];
          const text = title.firstChild;
          let at = 0;
          for (const word of text.data.split(' ')) {
            const range = document.createRange();
            range.setStart(text, at);
            range.setEnd(text, at + word.length);
            const tops = new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top)));
            if (tops.size > 1) brokenWords.push(word);
            at += word.length + 1;
          }
          const image = document.querySelector('.cover-card .author-avatar');
          const style = getComputedStyle(image);
          const handle = document.querySelector('.end-card .author-handle');
          return {
            brokenWords,
            avatar: { width: image.getBoundingClientRect().width, border: style.borderTopWidth, shadow: style.boxShadow, transform: style.transform },
            handleCut: handle.scrollWidth > handle.clientWidth + 1,
          };
        })()`,
      );
      if (cover.brokenWords.length > 0) problems.push(`${theme.id}: the Korean title breaks inside ${cover.brokenWords.join(', ')}`);
      const { width, border, shadow, transform } = cover.avatar;
      if (Math.abs(width - 30) > 0.5 || border !== '0px' || shadow !== 'none' || transform !== 'none') {
        problems.push(`${theme.id}: the cover avatar is ${width}px wide with border ${border}, shadow ${shadow}, transform ${transform}`);
      }
      if (cover.handleCut) problems.push(`${theme.id}: the closing card cuts the handle short`);
    }
    // An Arabic author line runs right to left: the avatar stands before the name, on its right.
    // Its Latin handle still reads "@layla", and its title stays centred on the cover.
    const arabicCover = await inRenderedPage<{ avatarRight: number; nameRight: number; handleDirection: string; titleOffCentre: number }>(
      { markdown: arabic, theme: 'darktech' },
      `(() => {
        const box = (selector) => document.querySelector(selector).getBoundingClientRect();
        const titleText = document.createRange();
        titleText.selectNodeContents(document.querySelector('.cover-card .cover-title'));
        const lines = Array.from(titleText.getClientRects());
        const card = box('.cover-card');
        return {
          avatarRight: box('.cover-card .author-avatar').right,
          nameRight: box('.cover-card .author-name').right,
          handleDirection: getComputedStyle(document.querySelector('.cover-card .author-handle')).direction,
          titleOffCentre: Math.max(...lines.map((line) => Math.abs(line.left + line.width / 2 - (card.left + card.width / 2)))),
        };
      })()`,
    );
    if (arabicCover.avatarRight <= arabicCover.nameRight) problems.push('the Arabic author line puts the avatar on the left of the name');
    if (arabicCover.handleDirection !== 'ltr') problems.push('the Latin handle in an Arabic author line reads right to left ("layla@")');
    if (arabicCover.titleOffCentre > 12) problems.push(`the Arabic cover title is ${arabicCover.titleOffCentre}px off the card's centre`);
    assert.deepEqual(problems, []);
  });

  it('keeps the title and author line of a cover filled to every bound on the card, and a long signature beside the footer marks', async () => {
    const longest = (text: string, length: number) => text.repeat(Math.ceil(length / text.length)).slice(0, length).trim();
    const markdown = [
      '---',
      `title: ${longest('Fastify is a web framework focused on the best developer experience with the least overhead ', 200)}`,
      `subtitle: ${longest('A long subtitle that goes on and on ', 100)}`,
      `author: ${longest('Jane Q. Maintainer of Many Things ', 100)}`,
      `handle: "@${longest('janeq_writes_about_node_', 99)}"`,
      `tags: [${Array.from({ length: 10 }, (_, index) => longest(`averyverylongtag${index}`, 30)).join(', ')}]`,
      'cover: true',
      'signature: true',
      '---',
      '# Hi',
    ].join('\n');
    const problems: string[] = [];
    for (const theme of service.app.cards.themes.themes) {
      const found = await inRenderedPage<{ titleTop: number; authorBottom: number; contentTop: number; contentBottom: number; footerMarks: Array<{ width: number; height: number; lineHeight: number }> }>(
        { markdown, theme: theme.id, splitMode: 'hrSplit' },
        `(() => {
          const box = (element) => element.getBoundingClientRect();
          const content = box(document.querySelector('.cover-card .card-content'));
          const footer = document.querySelector('.card:not(.cover-card) .card-footer');
          // A footer mark (darktech's "EOF_") squeezed by the signature breaks into a column of letters.
          const footerMarks = ['::before', '::after'].map((pseudo) => getComputedStyle(footer, pseudo))
            .filter((style) => style.content !== 'none' && style.content !== 'normal' && style.display !== 'none' && style.position === 'static')
            .map((style) => ({ width: parseFloat(style.width) || 0, height: parseFloat(style.height) || 0, lineHeight: parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.6 }));
          return {
            titleTop: box(document.querySelector('.cover-card .cover-title')).top,
            authorBottom: box(document.querySelector('.cover-card .cover-byline')).bottom,
            contentTop: content.top,
            contentBottom: content.bottom,
            footerMarks,
          };
        })()`,
      );
      if (found.titleTop < found.contentTop - 1) problems.push(`${theme.id}: the cover title starts ${found.contentTop - found.titleTop}px above the card's content`);
      if (found.authorBottom > found.contentBottom + 1) problems.push(`${theme.id}: the cover's author line runs ${found.authorBottom - found.contentBottom}px past the card's content`);
      for (const mark of found.footerMarks) if (mark.height > mark.lineHeight * 1.5) problems.push(`${theme.id}: a footer mark is squeezed to ${mark.width}x${mark.height}px by the signature`);
    }
    assert.deepEqual(problems, []);
  });

  it('fits a cover too full for its card: every tag is on it, in every theme, and the preview shows the same cover', async () => {
    // Ten tags under a long title and subtitle ran off the foot: xiaohongshu showed four and a half
    // of them, meadow-dawn three.
    const markdown = [
      '---',
      'title: How I organise a whole year of reading notes, highlights and summaries into one searchable knowledge base that I use every day',
      'subtitle: A practical guide with templates, naming rules and weekly review habits that stick',
      'author: Lin Xiaoman',
      'handle: "@xiaoman_reads"',
      'date: 2026-11-23',
      'tags: [knowledge-management, reading-notes, weekly-review-habits, templates-and-naming, second-brain, productivity, note-taking-apps, study-with-me, book-summaries, learning-in-public]',
      'cover: true',
      '---',
      '# Part one',
    ].join('\n');
    const problems: string[] = [];
    let fitted = 0;
    for (const theme of service.app.cards.themes.themes) {
      const found = await inRenderedPage<{ fit: string | null; tagsOnCard: number; partsOff: string[] }>(
        { markdown, theme: theme.id, splitMode: 'noSplit' },
        `(() => {
          const content = document.querySelector('.cover-card .card-content-inner').getBoundingClientRect();
          const on = (element) => { const box = element.getBoundingClientRect(); return box.top >= content.top - 1 && box.bottom <= content.bottom + 1; };
          const cover = document.querySelector('.cover-card .cover');
          return {
            fit: cover.style.getPropertyValue('--cover-fit') || null,
            tagsOnCard: [...cover.querySelectorAll('.hashtag')].filter(on).length,
            partsOff: [...cover.children].filter((part) => !on(part)).map((part) => part.className),
          };
        })()`,
      );
      if (found.fit) fitted += 1;
      if (found.tagsOnCard !== 10) problems.push(`${theme.id}: ${found.tagsOnCard} of 10 tags on the card`);
      if (found.partsOff.length > 0) problems.push(`${theme.id}: off the card: ${found.partsOff.join(', ')}`);
      const { cards } = (await previewHonouringRetryAfter({ markdown, theme: theme.id, splitMode: 'noSplit' })) as { cards: Array<{ html: string }> };
      const previewFit = /--cover-fit:([\d.]+)/.exec(cards[0]!.html)?.[1] ?? null;
      if (previewFit !== found.fit) problems.push(`${theme.id}: the preview's cover is fitted by ${previewFit}, Generate's by ${found.fit}`);
    }
    assert.deepEqual(problems, []);
    assert.ok(fitted > 0, 'some themes needed fitting');
    // A cover that fits is left as it is.
    const plain = await inRenderedPage<string | null>({ markdown: `${frontMatter}\n${content}`, theme: 'xiaohongshu', splitMode: 'noSplit' }, `document.querySelector('.cover-card .cover').getAttribute('style')`);
    assert.equal(plain, null);
  });

  it("charges a noSplit preview for the page layout that fits its cover, and one without a cover or tables for none", async () => {
    const layoutsCharged = async (markdown: string) => {
      let layouts = 0;
      const meter = {
        image: () => {},
        pageLayout: () => {
          layouts += 1;
        },
        cards: () => {},
      };
      const preview = await service.app.cards.preview(checkRequest({ markdown, splitMode: 'noSplit' }).request, AbortSignal.timeout(30_000), meter);
      return { layouts, cards: preview.cards.length };
    };
    assert.deepEqual(await layoutsCharged(`${frontMatter}\n${content}`), { layouts: 1, cards: 3 }, 'a cover, the card and a closing card');
    assert.deepEqual(await layoutsCharged(content), { layouts: 0, cards: 1 });
  });

  it('fetches a remote avatar under the remote-image rules, and draws the cards without one it cannot fetch', async () => {
    const remote = (avatar: string) => `---\nauthor: Lin\navatar: ${avatar}\nsignature: true\ncover: true\n---\n# Hi`;
    const [cover] = await cardsInPage({ markdown: remote(`${images.origin}/red.png`) });
    assert.equal(cover!.avatarWidth, 200);
    const [withoutAvatar, content] = await cardsInPage({ markdown: remote('http://169.254.169.254/latest/avatar.png') });
    assert.equal(withoutAvatar!.avatarWidth, 0);
    assert.equal(content!.signature, 'Lin');
    const { status } = await service.generate({ markdown: remote(`${images.origin}/missing.png`) });
    assert.equal(status, 200);
  });

  it('fetches a watermark logo given by address under the remote-image rules, and warns and draws the cards without it when it cannot', async () => {
    const imagesOf = async (answer: { json: { images: Array<{ url: string }> } }) => Promise.all(answer.json.images.map(async (image) => await decodePng((await download(image.url)).bytes)));
    const body = { markdown: content, theme: 'plain-notes', splitMode: 'hrSplit', scale: 1 };
    const plain = await imagesOf(await service.generate(body));
    const logo = await service.generate({ ...body, watermark: { image: `${images.origin}/red.png`, opacity: 1 } });
    assert.equal(logo.status, 200, JSON.stringify(logo.json));
    assert.deepEqual(logo.json.warnings ?? [], []);
    for (const [index, png] of (await imagesOf(logo)).entries()) {
      assert.ok(countNear(png, [230, 20, 20]) > 500, `card ${index + 1} shows the red logo`);
      assert.ok(differingFraction(png, plain[index]!) > 0.001, `card ${index + 1} differs from the cards without it`);
    }
    // The cover endpoint fetches it too.
    const cover = await postJson(service.baseUrl, '/api/generate/cover', { text: 'Logo', scale: 1, watermark: { image: `${images.origin}/red.png`, opacity: 1 } }, { 'x-api-key': testApiKey });
    assert.equal(cover.status, 200, JSON.stringify(cover.json));
    assert.ok(countNear(await decodePng((await download(cover.json.images[0].url)).bytes), [230, 20, 20]) > 500, 'the cover shows the red logo');
    // Missing, or at an address the rules refuse: the cards as without it, and a warning naming it.
    for (const address of [`${images.origin}/missing.png`, 'http://169.254.169.254/latest/logo.png']) {
      const missing = await service.generate({ ...body, watermark: { image: address } });
      assert.equal(missing.status, 200, JSON.stringify(missing.json));
      assert.ok(
        (missing.json.warnings ?? []).some((warning: string) => warning.startsWith(`watermark.image ${address} was not drawn: `)),
        JSON.stringify(missing.json.warnings),
      );
      for (const [index, png] of (await imagesOf(missing)).entries()) assert.ok(differingFraction(png, plain[index]!) < 0.0001, `card ${index + 1} is drawn without the logo`);
    }
  });

  it('draws the cover and the signature: the images differ from the same document without front matter', async () => {
    for (const theme of ['plain-notes', 'darktech', 'watercolor']) {
      const withIt = await service.generate({ markdown: `${frontMatter}\n${content}`, theme, splitMode: 'hrSplit', scale: 1 });
      const without = await service.generate({ markdown: content, theme, splitMode: 'hrSplit', scale: 1 });
      assert.equal(withIt.status, 200, JSON.stringify(withIt.json));
      assert.equal(withIt.json.images.length, without.json.images.length + 2, theme);
      const images = async (answer: typeof withIt) => Promise.all(answer.json.images.map(async (image: { url: string }) => await decodePng((await download(image.url)).bytes)));
      const [cover, first, , end] = await images(withIt);
      const [plainFirst] = await images(without);
      assert.ok(differingFraction(cover!, plainFirst!) > 0.01, `${theme}: the cover is a card of its own`);
      assert.ok(differingFraction(end!, plainFirst!) > 0.01, `${theme}: the closing card is a card of its own`);
      // Same content card with a signature in its footer: its upper half is unchanged.
      assert.ok(differingFraction(first!, plainFirst!) > 0.002, `${theme}: the signature is drawn`);
      const top = (png: DecodedPng) => ({ ...png, height: png.height / 2, data: png.data.subarray(0, (png.data.length / 2) | 0) });
      // (watercolor's painted paper is not pixel-identical between these two renders; its content is checked by the DOM test above.)
      if (theme !== 'watercolor') assert.ok(differingFraction(top(first!), top(plainFirst!)) < 0.01, `${theme}: the content is drawn as without front matter`);
    }
  });

  it('lets the body win over the front matter, and treats front matter not at the top as content', async () => {
    const preview = async (body: unknown) => {
      const response = await fetch(`${service.baseUrl}/api/preview`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, json: (await response.json()) as any };
    };
    const set = await preview({ markdown: '---\nwidth: 600\nheight: 700\ntheme: darktech\n---\n# Hi', width: 500 });
    assert.equal(set.status, 200);
    assert.deepEqual([set.json.width, set.json.height, set.json.theme], [500, 700, 'darktech']);

    const late = await preview({ markdown: '# Hi\n\n---\nwidth: 600\n---\n' });
    assert.equal(late.json.width, 440);
    assert.match(late.json.cards[0].html, /width: 600/);

    // A document that begins with a rule, text and another rule is content.
    const rules = await preview({ markdown: '---\n**Bold** opening\n\n---\n# Hi' });
    assert.equal(rules.status, 200);
    assert.match(rules.json.cards[0].html, /<hr>.*<strong>Bold<\/strong> opening/s);

    const blog = await preview({ markdown: '---\nlayout: post\ncategories: [a]\n---\n# Hi' });
    assert.equal(blog.status, 200);
    assert.match(blog.json.warnings[0], /"layout", "categories" set nothing/);
  });

  it('refuses bad front matter with a 400 naming the line and key', async () => {
    const cases: Array<[string, RegExp]> = [
      ['---\ntitle: ok\nwidth: 5000\n---\n# x', /line 3, key "width": width is not accepted: got number 5000/],
      ['---\ncover: yes\n---\n# x', /line 2, key "cover": must be true or false; got "yes"/],
      ['---\ntitle: a\n  bad: [\n---\n# x', /not valid YAML at line \d/],
      ['---\ntitle: !!js/function "function(){}"\n---\n# x', /line 2/],
      ['---\ntags: [a, b]\ntags: [c]\n---\n# x', /line 3, key "tags": Map keys must be unique/],
      ['---\navatar: javascript:alert(1)\n---\n# x', /line 2, key "avatar": must be a data:image/],
      ['---\nsplitMode: sideways\n---\n# x', /line 2, key "splitMode": splitMode is not accepted/],
      [`---\ntitle: ${'x'.repeat(9000)}\n---\n# x`, /at most 8000/],
    ];
    for (const [markdown, message] of cases) {
      const { status, json } = await service.generate({ markdown });
      assert.equal(status, 400, markdown.slice(0, 60));
      assert.equal(json.error, 'invalid_request');
      assert.match(json.message, message);
    }
  });

  it('draws hashtags as chips, but not in code, headings, links or words', async () => {
    const { html } = await renderMarkdown('# Title #not\n\nA post #markdown #知识卡片 tags，#标点后.\n#行首\n\n`#code` [#link](https://example.com) a#b #123\n\n```\n#comment\n```');
    const chips = [...html.matchAll(/<span class="hashtag">([^<]*)<\/span>/g)].map((match) => match[1]);
    assert.deepEqual(chips, ['#markdown', '#知识卡片', '#标点后', '#行首']);
    assert.match(html, /<h1[^>]*>Title #not<\/h1>/);
    const { html: off } = await renderMarkdown('A post #markdown', { hashtags: false });
    assert.doesNotMatch(off, /hashtag/);
  });

  it('sets a paragraph of hashtags alone flush, never stretched across the card by a justifying theme', async () => {
    // traditional-chinese justifies Chinese paragraphs, and spread the first row of a post's tags
    // over the card's width with wide gaps between the chips.
    const markdown = '最后想说，早起不是目的，而是为了把时间还给自己。\n\n#早起打卡 #自律生活 #自我提升 #习惯养成 #成长日记 #时间管理';
    const { html } = await renderMarkdown(markdown);
    assert.equal((html.match(/<p data-tags/g) ?? []).length, 1, 'the tags alone are marked, not the sentence');
    assert.doesNotMatch((await renderMarkdown('关注我！#早起打卡')).html, /data-tags/, 'a sentence ending in a tag is not');
    const theme = service.app.cards.themes.get('traditional-chinese')!;
    const gaps = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
      await page.layout(cardMarkup({ theme, width: 440, height: 586, fixedHeight: false, contentHtml: html }));
      return page.evaluate<number[]>(`(() => {
        const chips = [...document.querySelectorAll('#cards .hashtag')].map((chip) => chip.getBoundingClientRect());
        return chips.slice(1).flatMap((chip, index) => Math.abs(chip.top - chips[index].top) < 2 ? [chip.left - chips[index].right] : []);
      })()`);
    });
    assert.ok(gaps.length >= 2, `chips side by side: ${gaps.length}`);
    assert.ok(Math.max(...gaps) < 12, `gaps between chips: ${gaps.map((gap) => gap.toFixed(1)).join(', ')} px`);
  });

  it('makes one PDF with every card as a page at the card size, with text, each page tagged as a figure with its card\'s alt text', async () => {
    const body = { markdown: `${frontMatter}\n${content}`, splitMode: 'hrSplit', width: 400, height: 500 };
    const png = await service.generate(body);
    const { status, json } = await service.generate({ ...body, format: 'pdf' });
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.images.length, 1);
    assert.match(json.images[0].fileName, /^screenshots\/\d+_[0-9a-f]{24}\.pdf$/);
    const { bytes, response } = await download(json.images[0].url);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    assert.equal(pdf.numPages, png.json.images.length);
    let text = '';
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      // 1 CSS px is 0.75 pt; Chromium rounds the page size to its own units.
      assert.ok(Math.abs(page.view[2]! - 300) < 1 && Math.abs(page.view[3]! - 375) < 1, `page ${number} is ${page.view}`);
      const items = (await page.getTextContent()).items as Array<{ str: string }>;
      text += items.map((item) => item.str).join('');
      // For screen readers: the page is a Figure whose Alt is the alt text of that card's PNG.
      const figures = JSON.stringify(await page.getStructTree()).match(/"role":"Figure".*?"alt":"((?:[^"\\]|\\.)*)"/g) ?? [];
      assert.equal(figures.length, 1, `page ${number}: ${figures.length} figures`);
      const alt = JSON.parse(`"${/"alt":"((?:[^"\\]|\\.)*)"/.exec(figures[0]!)![1]}"`) as string;
      // An accessible name is one line: the PNG's line breaks are spaces in the PDF.
      assert.equal(alt, png.json.images[number - 1].alt.replace(/\s+/g, ' '), `page ${number}'s alt`);
    }
    for (const word of ['七天学会', 'Markdown', '第二天', '林小满']) assert.ok(text.includes(word), `the PDF's text has ${word}`);
    // The saved request (the editor's ?edit=) is the body as sent: the front matter stays in the Markdown.
    const id = new URL(json.previewUrl).searchParams.get('edit');
    const saved = (await (await fetch(`${service.baseUrl}/api/requests/${id}`)).json()) as Record<string, unknown>;
    assert.equal(saved.markdown, body.markdown);
    assert.equal(saved.creator, undefined);
  });

  it("holds each text once and in document order in every theme's PDF: a heading's glow, outline or glitched copy and an ink bleed are not text again", async () => {
    // Chromium's PDF draws a text shadow or a stroke as outlines plus an invisible copy of the text,
    // and a pseudo-element's content (a theme's attr(data-text)) is text: headings came out of
    // select-all two to four times (render/pdf-text-once.ts). And the text layer follows the paint
    // order, where a theme's positioned heading, list item or quote came after the flow around it:
    // japanese-magazine's title read last (render/pdf-reading-order.ts).
    const texts = ['Alpha heading', 'A paragraph with', 'strong words', 'Bravo heading', 'an item', 'a quoted line', 'Charlie heading', 'Delta heading', 'Closing words'];
    const markdown = '# Alpha heading\n\nA paragraph with **strong words**.\n\n## Bravo heading\n\n1. an item\n\n> a quoted line\n\n### Charlie heading\n\n#### Delta heading\n\nClosing words.';
    // Letter-spaced and upper-cased headings come out as `A L P H A`: compared without spaces or case.
    const squash = (text: string) => text.replace(/\s+/g, '').toLowerCase();
    const problems: string[] = [];
    for (const theme of service.app.cards.themes.themes.filter((candidate) => candidate.builtin)) {
      const { status, json } = await service.generate({ markdown, theme: theme.id, format: 'pdf' });
      assert.equal(status, 200, JSON.stringify(json));
      const pdf = await getDocumentProxy(new Uint8Array((await download(json.images[0].url)).bytes));
      assert.equal(pdf.numPages, 1, `${theme.id}: the text fits one card`);
      const items = (await (await pdf.getPage(1)).getTextContent()).items as Array<{ str: string }>;
      const text = squash(items.map((item) => item.str).join(''));
      for (const expected of texts) {
        const count = text.split(squash(expected)).length - 1;
        if (count !== 1) problems.push(`${theme.id}: "${expected}" ${count} times`);
      }
      const read = texts.filter((expected) => text.includes(squash(expected))).sort((a, b) => text.indexOf(squash(a)) - text.indexOf(squash(b)));
      if (read.join(' / ') !== texts.filter((expected) => read.includes(expected)).join(' / ')) problems.push(`${theme.id} reads: ${read.join(' / ')}`);
    }
    assert.deepEqual(problems, []);
  });

  it('draws the body text in the chosen bundled face', async () => {
    const faces = async (fontFamily?: string) =>
      service.app.cards.renderer.run(AbortSignal.timeout(30_000), async (page) => {
        const { request } = checkRequest({ markdown: 'Body text 正文', theme: 'plain-notes', fontFamily });
        const parts = { renderer: service.app.cards.renderer, themes: service.app.cards.themes, log: pino({ level: 'silent' }), markdown, svgImages };
        const prepared = await prepareContent(parts, resolveRequest(service.app.cards.themes, request), AbortSignal.timeout(30_000));
        await renderCards(page, { ...request, theme: prepared.theme, mode: prepared.mode, contentHtml: prepared.html, format: 'webp', scale: 1 });
        const runs = await textFonts(page);
        return runs.find((run) => run.text.includes('Body text'))!.fonts.map((font) => font.familyName).join(', ');
      });
    assert.match(await faces(), /Noto Sans/);
    assert.match(await faces('kai'), /LXGW WenKai/);
    assert.match(await faces('mono'), /JetBrains Mono/);
    assert.match(await faces('serif'), /Noto Serif/);
    const { status, json } = await service.generate({ fontFamily: 'papyrus' });
    assert.equal(status, 400);
    assert.match(json.message, /fontFamily is not accepted: got "papyrus"; accepted: sans, serif, kai, rounded, mono, hand/);
  });
});
