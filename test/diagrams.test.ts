// Mermaid diagrams end to end: real HTTP, real Chromium, real Mermaid. Each diagram type becomes an
// image in the card theme's colours (cyberpunk's in its neon) with text no smaller than the floor,
// or a warning; a hostile diagram runs nothing and fetches nothing; a broken one shows its source
// and the parser's message in a 200 answer; too many or too large diagrams are a 400; a tall one
// is scaled to fit a split card; a slow one is stopped at its time limit.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { diagramLimits } from '../src/cards/diagrams/diagram-limits.js';
import { DiagramPage, diagramScripts, type DrawnDiagram } from '../src/cards/diagrams/diagram-page.js';
import { illegibleDiagramWarning } from '../src/cards/diagrams/legibility.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { renderCards } from '../src/cards/render/render-cards.js';
import { ScriptServer } from '../src/cards/diagrams/script-server.js';
import { builtinThemesDir, projectRoot } from '../src/paths.js';
import { shellFonts } from '../src/cards/render/page-fonts.js';
import { Renderer } from '../src/cards/render/renderer.js';
import type { Theme } from '../src/cards/themes/theme-file.js';
import { launchRenderBrowser, probeLastPage, type PageProbe } from './helpers/render-browser.js';
import type { BrowserInstance } from '../src/cards/render/browser-instance.js';
import { contrastRatio } from './helpers/contrast.js';
import { decodePng, download, previewImage, previewImageLink, type DecodedPng } from './helpers/images.js';
import { startImageServer, type LocalImageServer } from './helpers/local-image-server.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';

const fence = (source: string) => `\`\`\`mermaid\n${source}\n\`\`\``;

const diagramTypes: Record<string, string> = {
  flowchart: 'flowchart TD\n  A[打开 App] --> B{已登录?}\n  B -->|是| C[首页]\n  B -->|否| D[登录页]\n  D --> B',
  sequence: 'sequenceDiagram\n  participant U as 用户\n  participant S as 服务器\n  U->>S: 登录请求\n  S-->>U: 令牌\n  Note over U,S: 完成',
  class: 'classDiagram\n  class Animal {\n    +String name\n    +eat()\n  }\n  Animal <|-- Dog\n  Animal <|-- Cat',
  state: 'stateDiagram-v2\n  [*] --> Idle\n  Idle --> Running: start\n  Running --> Idle: stop\n  Running --> [*]',
  pie: 'pie title 时间分配\n  "工作" : 40\n  "学习" : 30\n  "休息" : 30',
  mindmap: 'mindmap\n  root((知识卡片))\n    主题\n      暗色\n      亮色\n    拆分\n      自动\n      分隔线',
  timeline: 'timeline\n  title 产品历程\n  2020 : 立项\n  2021 : 发布 1.0\n  2022 : 开源',
};

interface DiagramImage {
  alt: string;
  /** CSS px, from the img's attributes. */
  width: number;
  height: number;
  png: DecodedPng;
}

/** The diagram images of a card, decoded: inlined, or by address on `baseUrl` (a preview's). */
async function diagramImages(cardHtml: string, baseUrl?: string): Promise<DiagramImage[]> {
  const pattern = /<figure class="diagram"(?: data-[a-z-]+="[^"]*")*><img src="([^"]+)" width="(\d+)" height="(\d+)" alt="([^"]*)"><\/figure>/g;
  const bytes = (src: string) => {
    const inlined = /^data:image\/png;base64,(.+)$/.exec(src)?.[1];
    if (inlined) return Promise.resolve(Buffer.from(inlined, 'base64'));
    assert.ok(baseUrl, `the diagram is shown from ${src.slice(0, 60)}`);
    return previewImage(baseUrl, src);
  };
  return Promise.all(
    [...cardHtml.matchAll(pattern)].map(async ([, src, width, height, alt]) => ({
      alt: alt!,
      width: Number(width),
      height: Number(height),
      png: await decodePng(await bytes(src!)),
    })),
  );
}

const luminance = (r: number, g: number, b: number) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;

/** The mean saturation (HSV) of a diagram's drawn pixels that are not dark. */
function meanSaturation(png: DecodedPng): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    const max = Math.max(png.data[i]!, png.data[i + 1]!, png.data[i + 2]!);
    if (png.data[i + 3]! < 250 || max < 90) continue;
    sum += (max - Math.min(png.data[i]!, png.data[i + 1]!, png.data[i + 2]!)) / max;
    count++;
  }
  return sum / Math.max(1, count);
}

type Rgb = [number, number, number];
const distance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * The colours that cover most of a diagram's coloured pixels (opaque, neither grey nor dark: not
 * its text, lines or dark fills), most common first, until they cover `share` of them; and the
 * share of all drawn pixels that are coloured.
 */
function dominantColours(png: DecodedPng, share = 0.6): { colours: Rgb[]; coloured: number } {
  const buckets = new Map<number, { count: number; sum: Rgb }>();
  let drawn = 0;
  let coloured = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    if (png.data[i + 3]! < 250) continue;
    drawn++;
    const rgb: Rgb = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
    const max = Math.max(...rgb);
    if (max < 90 || (max - Math.min(...rgb)) / max < 0.35) continue;
    coloured++;
    const key = ((rgb[0] >> 5) << 6) | ((rgb[1] >> 5) << 3) | (rgb[2] >> 5);
    const bucket = buckets.get(key) ?? { count: 0, sum: [0, 0, 0] };
    bucket.count++;
    for (const c of [0, 1, 2]) bucket.sum[c]! += rgb[c]!;
    buckets.set(key, bucket);
  }
  const colours: Rgb[] = [];
  let covered = 0;
  for (const { count, sum } of [...buckets.values()].sort((a, b) => b.count - a.count)) {
    if (covered >= share * coloured) break;
    colours.push(sum.map((channel) => Math.round(channel / count)) as Rgb);
    covered += count;
  }
  return { colours, coloured: coloured / Math.max(1, drawn) };
}

/** The smallest text of the diagram drawn in a diagram page, in CSS px as drawn, and the boxes of its time axis labels. */
function drawnText(): { smallestPx: number; axisLabels: { left: number; right: number }[] } {
  const drawing = document.querySelector('#diagram svg')!;
  let smallestPx = Infinity;
  for (const text of Array.from(drawing.querySelectorAll<SVGTextContentElement>('text, tspan'))) {
    const hasText = Array.from(text.childNodes).some((node) => node.nodeType === Node.TEXT_NODE && node.textContent!.trim());
    const matrix = text.getScreenCTM();
    if (!hasText || !matrix || text.getBoundingClientRect().width === 0) continue;
    smallestPx = Math.min(smallestPx, parseFloat(getComputedStyle(text).fontSize) * Math.hypot(matrix.a, matrix.b));
  }
  const axisLabels = Array.from(drawing.querySelectorAll('.grid .tick text'))
    .filter((label) => label.textContent!.trim())
    .map((label) => label.getBoundingClientRect())
    .map(({ left, right }) => ({ left, right }));
  // Rounded as the diagram page rounds it (a drawing at its own size has a scale a hair under 1).
  return { smallestPx: Math.round(smallestPx * 10) / 10, axisLabels };
}

/** The share of a diagram's drawn (opaque) pixels that are dark, light, and how many are drawn. */
function tones(png: DecodedPng): { drawn: number; dark: number; light: number } {
  let drawn = 0;
  let dark = 0;
  let light = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    if (png.data[i + 3]! < 200) continue;
    drawn++;
    const l = luminance(png.data[i]!, png.data[i + 1]!, png.data[i + 2]!);
    if (l < 0.3) dark++;
    if (l > 0.7) light++;
  }
  return { drawn, dark: dark / Math.max(1, drawn), light: light / Math.max(1, drawn) };
}

describe('mermaid diagrams', () => {
  let service: RunningService;
  let images: LocalImageServer;
  const logLines: string[] = [];
  before(async () => {
    [service, images] = await Promise.all([startService({}, { log: (line) => logLines.push(line) }), startImageServer()]);
  });
  after(async () => Promise.all([service.close(), images.close()]));

  const preview = async (body: Record<string, unknown>) => {
    const response = await fetch(`${service.baseUrl}/api/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': testApiKey },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as any };
  };

  it('draws every diagram type as an image of the card theme, dark in a dark theme and light in a light one', async () => {
    const markdown = Object.values(diagramTypes).map(fence).join('\n\n');
    const byTheme: Record<string, DiagramImage[]> = {};
    for (const theme of ['darktech', 'minimal']) {
      const { status, json } = await preview({ markdown, theme, scale: 2 });
      assert.equal(status, 200, JSON.stringify(json));
      const html: string = json.cards[0].html;
      assert.doesNotMatch(html, /diagram-error/, `${theme}: every diagram is drawn`);
      byTheme[theme] = await diagramImages(html, service.baseUrl);
      assert.equal(byTheme[theme].length, 7, `${theme}: one image per diagram`);
    }
    const kinds = ['flowchart', 'sequenceDiagram', 'classDiagram', 'stateDiagram-v2', 'pie', 'mindmap', 'timeline'];
    // Each image's alt text names its kind in words (alt-text/diagram-alt.ts).
    const names = ['Flowchart', 'Sequence diagram', 'Class diagram', 'State diagram', 'Pie chart', 'Mind map', 'Timeline'];
    for (const [index, kind] of kinds.entries()) {
      const dark = byTheme.darktech![index]!;
      const light = byTheme.minimal![index]!;
      for (const image of [dark, light]) {
        assert.match(image.alt, new RegExp(`^${names[index]}\\b`));
        // Plausible size: within the card's content width (440 px card), and drawn at the card's 2× scale.
        assert.ok(image.width >= 100 && image.width <= 440 && image.height >= 60, `${kind}: ${image.width}×${image.height} CSS px`);
        assert.ok(Math.abs(image.png.width - 2 * image.width) <= 2, `${kind}: drawn at 2× (${image.png.width} px for ${image.width} CSS px)`);
      }
      const darkTones = tones(dark.png);
      const lightTones = tones(light.png);
      assert.ok(darkTones.drawn > 2000 && lightTones.drawn > 2000, `${kind}: not blank (${darkTones.drawn}, ${lightTones.drawn} drawn pixels)`);
      if (['pie', 'mindmap', 'timeline'].includes(kind)) {
        // Slices and sections: the dark theme's accents at full strength, pastels of the light theme's.
        const [darkSaturation, lightSaturation] = [meanSaturation(dark.png), meanSaturation(light.png)];
        assert.ok(darkSaturation > lightSaturation + 0.3, `${kind}: vivid in the dark theme (saturation ${darkSaturation.toFixed(2)} vs ${lightSaturation.toFixed(2)})`);
        continue;
      }
      // darktech: dark node fills with light text and lines; minimal: light fills with dark text.
      assert.ok(darkTones.dark > lightTones.dark + 0.2, `${kind}: darker in the dark theme (${darkTones.dark.toFixed(2)} vs ${lightTones.dark.toFixed(2)} dark)`);
      assert.ok(lightTones.light > darkTones.light + 0.2, `${kind}: lighter in the light theme (${lightTones.light.toFixed(2)} vs ${darkTones.light.toFixed(2)} light)`);
      assert.ok(darkTones.light > 0.005, `${kind}: light text or lines in the dark theme`);
    }
  });

  it("draws a cyberpunk diagram in the theme's neon, not in muddy tints of it", async () => {
    const css = await fs.readFile(path.join(builtinThemesDir, 'cyberpunk.css'), 'utf8');
    const neon = ['cyan', 'magenta', 'yellow'].map((name) => {
      const hex = new RegExp(`--cp-${name}:\\s*#([0-9a-f]{6})`, 'i').exec(css)![1]!;
      return [0, 2, 4].map((at) => parseInt(hex.slice(at, at + 2), 16)) as Rgb;
    });
    const markdown = [diagramTypes.pie!, diagramTypes.timeline!, diagramTypes.mindmap!].map(fence).join('\n\n');
    const { status, json } = await preview({ markdown, theme: 'cyberpunk' });
    assert.equal(status, 200, JSON.stringify(json));
    const drawn = await diagramImages(json.cards[0].html, service.baseUrl);
    assert.equal(drawn.length, 3);
    for (const image of drawn) {
      const { colours, coloured } = dominantColours(image.png);
      assert.ok(coloured > 0.1, `${image.alt}: drawn in colour (${coloured.toFixed(2)} of its pixels)`);
      for (const colour of colours) {
        const nearest = Math.min(...neon.map((tube) => distance(colour, tube)));
        assert.ok(nearest < 70, `${image.alt}: rgb(${colour}) is ${Math.round(nearest)} from the nearest of the theme's neon colours`);
      }
    }
  });

  it("names a diagram whose text stays too small for the card in the answer's warnings", async () => {
    // A pie chart's legend is as wide as its longest label, and a pie has no taller layout. Folded
    // (the legend under the pie), a label this long is still wider than a card can show at 10 px.
    const longLegend = 'pie title 预算\n  "第一季度市场推广与品牌建设的全部线上线下活动费用合计以及第二季度的渠道拓展与用户增长投入和第三季度的内容制作预算" : 60\n  "其他" : 40';
    const { status, json } = await preview({ markdown: fence(longLegend), width: 440, height: 586, splitMode: 'autoSplit' });
    assert.equal(status, 200, JSON.stringify(json));
    assert.match(json.cards[0].image, previewImageLink, 'drawn all the same');
    assert.match(json.warnings.join('\n'), /^A pie diagram is drawn with text of \d+\.\d px on the card, below the 10 px that stays legible: /m);
    const { json: legible } = await preview({ markdown: fence(diagramTypes.pie!), width: 440, height: 586, splitMode: 'autoSplit' });
    assert.deepEqual(legible.warnings, []);
  });

  it('stores a card with the diagram drawn in it', async () => {
    const { status, json } = await service.generate({ markdown: `# 流程\n\n${fence(diagramTypes.flowchart!)}`, theme: 'darktech' });
    assert.equal(status, 200, JSON.stringify(json));
    const card = await decodePng((await download(json.images[0].url)).bytes);
    const plain = await service.generate({ markdown: '# 流程', theme: 'darktech' });
    const plainCard = await decodePng((await download(plain.json.images[0].url)).bytes);
    // The diagram's nodes, text and lines: many more pixels that differ from the card's dark ground.
    const drawn = (png: DecodedPng) => tones(png).drawn * (1 - tones(png).dark);
    assert.ok(drawn(card) > drawn(plainCard) + 20_000, `the diagram is drawn on the card (${Math.round(drawn(card))} vs ${Math.round(drawn(plainCard))} pixels not dark)`);
  });

  it('shows a diagram that does not parse as its source and the parser message, in a 200 answer', async () => {
    const markdown = `Before\n\n${fence('flowchart TD\n  A -->')}\n\nAfter`;
    const { status, json } = await preview({ markdown });
    assert.equal(status, 200, JSON.stringify(json));
    const html: string = json.cards[0].html;
    assert.match(html, /<figure class="diagram-error"><figcaption[^>]*>This diagram could not be drawn: Parse error on line 3:/);
    // The source is framed like any code block, after the message.
    assert.match(html, /<figure class="diagram-error">.*<pre class="code-block[^"]*"[^>]*>.*flowchart.*<\/pre><\/figure>/s);
    assert.match(html, /After/);
    const generated = await service.generate({ markdown });
    assert.equal(generated.status, 200, JSON.stringify(generated.json));
    assert.equal(generated.json.images.length, 1);

    // Over Mermaid's edge bound: the bound in the service's words, not Mermaid's advice to reconfigure it.
    const edges = `flowchart LR\n${Array.from({ length: diagramLimits.maxEdges + 1 }, (_, i) => `  A${i % 20} --> B${i % 30}`).join('\n')}`;
    const { json: tooManyEdges } = await preview({ markdown: fence(edges) });
    assert.match(tooManyEdges.cards[0].html, /This diagram could not be drawn: The diagram has more than 500 edges; at most 500 are drawn\. Split it into smaller diagrams\./);
  });

  it('runs nothing and fetches nothing for a hostile diagram', async () => {
    const origin = images.origin;
    const hostile = [
      // A directive that tries to loosen the security level, bring HTML labels back and widen the sanitizer.
      `%%{init: {"securityLevel": "loose", "htmlLabels": true, "flowchart": {"htmlLabels": true}, "dompurifyConfig": {"ADD_TAGS": ["script", "iframe"], "ADD_ATTR": ["onerror"]}}}%%\nflowchart TD\n  A["<img src=${origin}/label.png onerror=fetch('${origin}/onerror')>"] --> B["<script>fetch('${origin}/script')</script>"]\n  B --> C["<iframe src=${origin}/frame></iframe>"]\n  click A call fetch("${origin}/click")\n  click B href "javascript:fetch('${origin}/href')"\n  click C "${origin}/link"`,
      `flowchart LR\n  P@{ img: "${origin}/red.png", label: "picture", pos: "t", h: 60 } --> Q`,
      `sequenceDiagram\n  participant A as <img src=${origin}/actor.png>\n  A->>A: <script>fetch('${origin}/message')</script>\n  link A: Home @ ${origin}/actor-link`,
      `classDiagram\n  class Evil {\n    +run()\n  }\n  click Evil href "${origin}/class"`,
    ];
    const markdown = hostile.map(fence).join('\n\n');
    const generated = await service.generate({ markdown, theme: 'minimal' });
    assert.equal(generated.status, 200, JSON.stringify(generated.json));
    const { json } = await preview({ markdown, theme: 'minimal' });
    const html: string = json.cards[0].html;
    assert.doesNotMatch(html, /<script|<iframe|onerror|javascript:|<svg/i, 'only images and text reach the card');
    assert.ok((await diagramImages(html, service.baseUrl)).length >= 3, 'the diagrams are drawn, their hostile parts as text or not at all');
    assert.deepEqual(images.hits, [], 'nothing reached the local server');
    assert.equal(logLines.filter((line) => line.includes('the diagram page asked for')).length, 0, 'the diagram page asked for nothing outside its own files');
  });

  /** A flowchart of `count` steps top to bottom. */
  const chain = (count: number) => {
    const steps = ['Open the app', 'Sign in', 'Choose a template', 'Write the title', 'Add the body text', 'Pick a theme', 'Preview the cards', 'Fix the breaks', 'Export as PNG', 'Upload it', 'Write the caption', 'Add hashtags', 'Schedule the post', 'Reply to comments'].slice(0, count);
    return `flowchart TD\n${steps.map((step, i) => `  S${i}["${step}"]`).join('\n')}\n${steps.slice(1).map((_, i) => `  S${i} --> S${i + 1}`).join('\n')}`;
  };

  interface LaidOutCard {
    truncated: boolean;
    /** The diagram's slices on the card, and how far each reaches past the card's content box. */
    slices: { height: number; imgWidth: number; bottomPast: number }[];
    /** How far each picture not cut into slices or folded reaches past the card's content box. */
    picturesPast: number[];
    /** The rows of a folded diagram on the card: where in the picture it starts, its width, and how far it reaches past the content box. */
    rows: { left: number; width: number; shownWidth: number; bottomPast: number }[];
    /** The card's text. */
    text: string;
  }

  /** The document laid out into autoSplit cards of `theme` in the service's render page, its diagrams drawn for those cards. */
  async function layOutWithDiagrams(markdown: string, themeId: string, width: number, height: number): Promise<{ cards: LaidOutCard[]; drawn: DrawnDiagram[] }> {
    const cards = service.app.cards;
    const { theme } = cards.themes.resolve(themeId, undefined);
    const signal = AbortSignal.timeout(60_000);
    const drawn: DrawnDiagram[] = [];
    const style = { theme, cardWidth: width, cardHeight: height, sliceable: true, deviceScale: 1 };
    const diagrams = { draw: async (text: string) => drawn[drawn.push(await cards.renderer.drawDiagram(text, style, signal)) - 1]! };
    const { html } = await renderMarkdown(markdown, { diagrams });
    const laidOut = new Error('laid out');
    const laidOutCards = await cards.renderer.run(signal, async (page) => {
      const request = { theme, width, height, scale: 1, fontScale: 1, format: 'png' as const, splitMode: 'autoSplit' as const, overHiddenMode: false, contentHtml: html };
      await renderCards(page, request, undefined, () => {
        throw laidOut;
      }).catch((error: unknown) => {
        if (error !== laidOut) throw error;
      });
      return page.evaluate<LaidOutCard[]>(`
        Array.from(document.querySelectorAll('#cards > .card')).map((card) => {
          const content = card.querySelector('.card-content');
          const style = getComputedStyle(content);
          const limit = content.getBoundingClientRect().bottom - parseFloat(style.paddingBottom) - parseFloat(style.borderBottomWidth);
          return {
            truncated: card.classList.contains('content-truncated'),
            slices: Array.from(card.querySelectorAll('.diagram-slice')).map((slice) => ({
              height: slice.getBoundingClientRect().height,
              imgWidth: slice.querySelector('img').getBoundingClientRect().width,
              bottomPast: slice.getBoundingClientRect().bottom - limit,
            })),
            picturesPast: Array.from(card.querySelectorAll('figure.diagram:not(.diagram-sliced, .diagram-folded) img')).map((img) => img.getBoundingClientRect().bottom - limit),
            rows: Array.from(card.querySelectorAll('.diagram-row')).map((row) => ({
              left: 0 - parseFloat(row.querySelector('img').style.marginLeft) || 0,
              // As laid out: a row at the foot of a card may be drawn smaller to fit the room left.
              width: parseFloat(row.style.width),
              shownWidth: row.getBoundingClientRect().width,
              bottomPast: row.getBoundingClientRect().bottom - limit,
            })),
            text: content.innerText,
          };
        })`);
    });
    return { cards: laidOutCards, drawn };
  }

  it('keeps a diagram fitted to the room under its heading on its card in a theme that tilts pictures', async () => {
    // notebook turns pictures by 1°: measured turned, a sequence diagram fitted to the room under
    // its heading reached a few px past the card and was hidden whole, its heading faded out as
    // if the card had been cut short (a creator's note on logging in with a QR code).
    const note = [
      '# 一张图看懂扫码登录全过程',
      '',
      '你每天都在扫码登录，但你知道手机和电脑之间到底发生了什么吗？今天用一张时序图给你讲清楚！',
      '',
      '## 整体流程',
      '',
      fence(
        [
          'sequenceDiagram',
          '    participant 用户手机',
          '    participant 网页前端',
          '    participant 登录服务器',
          '    网页前端->>登录服务器: 请求生成二维码',
          '    登录服务器-->>网页前端: 返回二维码编号',
          '    loop 每两秒轮询一次',
          '        网页前端->>登录服务器: 查询扫码状态',
          '        登录服务器-->>网页前端: 等待中',
          '    end',
          '    用户手机->>登录服务器: 扫码并确认授权',
          '    登录服务器-->>用户手机: 授权成功',
          '    网页前端->>登录服务器: 再次查询状态',
          '    登录服务器-->>网页前端: 下发登录凭证',
        ].join('\n'),
      ),
      '',
      '## 三个关键点',
      '',
      '- 二维码里只有一个临时编号，不包含你的密码',
      '- 手机确认后，服务器才把凭证发给网页',
    ].join('\n');
    const { cards, drawn } = await layOutWithDiagrams(note, 'notebook', 440, 586);
    assert.ok(drawn[0]?.ok, 'drawn');
    assert.deepEqual(cards.map((card) => card.truncated), cards.map(() => false), 'no card is cut short');
    assert.equal(cards.flatMap((card) => [...card.picturesPast, ...card.slices]).length > 0, true, 'the diagram is on a card');
  });

  it("folds a user journey too wide for a 440 px card into rows at legible size, every row whole on a card (mermaid's README)", async () => {
    // Five tasks side by side: shrunk to the card's 368 px its task names were 7.6 px. Folded
    // between its sections, each row is drawn larger, and the rows go on over the cards.
    const readme = await fs.readFile(path.join(projectRoot, 'node_modules', 'mermaid', 'README.md'), 'utf8');
    const source = /```mermaid\n(\s*journey\n[\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(source, "mermaid's README still has its journey example");
    for (const themeId of ['minimal', 'cyberpunk']) {
      const { cards, drawn } = await layOutWithDiagrams(`# My day\n\nA working day, as a user journey:\n\n${fence(source)}\n\nThat is all.`, themeId, 440, 586);
      const [diagram] = drawn;
      assert.ok(diagram?.ok && diagram.rows && diagram.rows.length >= 2, `${themeId}: folded into rows`);
      assert.ok(diagram.smallestTextPx! >= diagramLimits.minTextPx, `${themeId}: ${diagram.smallestTextPx} px`);
      assert.equal(illegibleDiagramWarning(source, diagram.smallestTextPx), undefined);
      const rows = cards.flatMap((card) => card.rows);
      // Each row once, in order, the next starting where the last ended.
      assert.equal(rows.length, diagram.rows.length, `${themeId}: ${rows.length} rows on the cards`);
      rows.forEach((row, k) => {
        assert.equal(row.left, k === 0 ? 0 : rows[k - 1]!.left + rows[k - 1]!.width, `${themeId}: row ${k} starts where row ${k - 1} ended`);
        assert.ok(row.bottomPast <= 2, `${themeId}: row ${k} reaches ${row.bottomPast.toFixed(1)} px past its card's content`);
        assert.ok(row.width <= 368 + 1 && row.shownWidth <= row.width + 0.5, `${themeId}: row ${k} is ${row.width} px wide, shown ${row.shownWidth}`);
      });
      assert.ok(Math.abs(rows.at(-1)!.left + rows.at(-1)!.width - diagram.width) <= 1, `${themeId}: the rows add up to the picture`);
      assert.ok(cards.every((card) => !card.truncated), `${themeId}: no card cut short`);
    }
    // Nine tasks in three sections under a title: one section to a row. The title, at Mermaid's
    // 35 px, ran over the first two sections, and no fold was left between them.
    const week = `journey\n  title A creator's week\n${[1, 2, 3].map((day) => `  section Day ${day}\n${[1, 2, 3].map((task) => `    Task ${3 * day + task - 3}: ${task + 2}: Me`).join('\n')}`).join('\n')}`;
    const { cards, drawn } = await layOutWithDiagrams(`# Week\n\n${fence(week)}\n\nDone.`, 'minimal', 440, 586);
    assert.ok(drawn[0]?.ok && drawn[0].rows?.length === 3 && drawn[0].smallestTextPx! >= diagramLimits.minTextPx, 'the week folded into three rows');
    assert.equal(cards.flatMap((card) => card.rows).length, 3);
  });

  it('draws a pie whose legend is wider than the pie with the legend under it, on the card of its heading', async () => {
    // Beside its pie, the legend's label shrank the whole drawing to 6.6 px text on a 440 px card.
    const source = 'pie title 预算\n  "第一季度市场推广与品牌建设的全部线上线下活动费用合计" : 60\n  "其他" : 40';
    const { cards, drawn } = await layOutWithDiagrams(`# 预算\n\n${fence(source)}`, 'minimal', 440, 586);
    const [diagram] = drawn;
    assert.ok(diagram?.ok && diagram.rows === undefined, 'one picture, not folded into rows');
    assert.ok(diagram.height > diagram.width, `drawn ${Math.round(diagram.width)}×${Math.round(diagram.height)}: the legend under the pie, not beside it`);
    assert.ok(diagram.smallestTextPx! >= diagramLimits.minTextPx, `${diagram.smallestTextPx} px`);
    assert.equal(cards.length, 1, 'one card: the heading, the pie and its legend');
  });

  it("shrinks a chart a little rather than leave the paragraph after it alone on the next card", async () => {
    const pie = 'pie title Ticket root causes Q3\n    "Password reset emails landing in spam" : 310\n    "Billing: double charge after plan change" : 180\n    "Mobile app crashes on Android 14 devices" : 220\n    "Confusing export-to-CSV settings page" : 140\n    "Two-factor codes arriving late" : 120\n    "Feature requests filed as bugs" : 270';
    const markdown = `# Where our support tickets came from\n\nQuarterly review for the support team. We tagged every ticket by root cause.\n\nBreakdown of 1,240 tickets:\n\n${fence(pie)}\n\nSpam filtering alone is a quarter of the load.`;
    const { cards } = await layOutWithDiagrams(markdown, 'art-deco', 440, 586);
    assert.equal(cards.length, 2, cards.map((card) => card.text.replace(/\s+/g, ' ')).join(' | '));
    assert.match(cards[1]!.text, /Spam filtering alone/);
    assert.ok(cards[1]!.picturesPast.every((past) => past < 1), 'the chart within its card');
  });

  it('cuts a diagram legible on a card of its own but not under its heading there, at the size it was drawn', async () => {
    // Seven steps top to bottom, shrunk to one 440×586 card, keep 10.4 px labels: alone, the chain
    // is shrunk to the card. Under a heading and the text above, the card shrank it until its labels
    // were about 7 px; it is now cut there and goes on to the next card at its drawn size.
    const alone = await layOutWithDiagrams(fence(chain(7)), 'minimal', 440, 586);
    assert.equal(alone.cards.length, 1);
    assert.deepEqual(alone.cards[0]!.slices, [], 'alone, it is shrunk to one card, not cut');
    const { cards, drawn } = await layOutWithDiagrams(`# Posting flow\n\nSome words before the flow, a paragraph of two lines that introduces the diagram below it.\n\n## The steps\n\n${fence(chain(7))}\n\nThat is all.`, 'minimal', 440, 586);
    const [diagram] = drawn;
    assert.ok(diagram?.ok && diagram.cuts && diagram.cuts.length >= 5, 'it may be cut between its boxes');
    assert.ok(diagram.textPx! >= 14, `its text ${diagram.textPx} px as drawn`);
    const slices = cards.flatMap((card) => card.slices);
    assert.ok(cards[0]!.slices.length > 0, 'its first boxes on the card of its heading');
    assert.ok(slices.length >= 2, `${slices.length} slices`);
    for (const slice of slices) {
      assert.ok(Math.abs(slice.imgWidth - diagram.width) < 1, `drawn at ${slice.imgWidth} px, not shrunk from ${diagram.width}`);
      assert.ok(slice.bottomPast <= 2, `a slice reaches ${slice.bottomPast.toFixed(1)} px past its card's content`);
    }
    assert.deepEqual(cards.flatMap((card) => card.picturesPast), []);
    assert.ok(cards.every((card) => !card.truncated), 'no card cut short');
  });

  it('cuts a flowchart too tall for a card between its boxes and goes on over several cards at the size it was drawn', async () => {
    // Fourteen steps top to bottom: at the card's width the chain is 1,300 px tall, and shrunk to
    // one 440×586 card its labels were 5 px.
    const source = chain(14);
    const { theme } = service.app.cards.themes.resolve('minimal', undefined);
    // Where the card is one clipped card (hrSplit with overHiddenMode), it is still shrunk, and warned about.
    const shrunk = await service.app.cards.renderer.drawDiagram(source, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1 }, AbortSignal.timeout(60_000));
    assert.ok(shrunk.ok && shrunk.cuts === undefined && shrunk.smallestTextPx! < diagramLimits.minTextPx, 'shrunk to one card');

    const { cards, drawn } = await layOutWithDiagrams(`# Posting flow\n\nThe whole flow, step by step:\n\n${fence(source)}\n\nThat is all.`, 'minimal', 440, 586);
    const [diagram] = drawn;
    assert.ok(diagram?.ok && diagram.cuts && diagram.cuts.length >= 10, 'cut between its rows of boxes');
    assert.ok(diagram.smallestTextPx! >= diagramLimits.minTextPx, `its text on the cards: ${diagram.smallestTextPx} px`);
    const withSlices = cards.filter((card) => card.slices.length > 0);
    assert.ok(withSlices.length >= 3, `${withSlices.length} cards hold a part of the diagram`);
    const all = withSlices.flatMap((card) => card.slices);
    // Every band once, none lost or drawn twice, at the width it was drawn (not scaled down).
    assert.ok(Math.abs(all.reduce((sum, slice) => sum + slice.height, 0) - Math.round(diagram.height)) <= 1, 'the bands add up to the whole diagram');
    for (const slice of all) {
      assert.ok(Math.abs(slice.imgWidth - diagram.width) <= 1, `drawn ${slice.imgWidth} px wide, as drawn (${diagram.width})`);
      assert.ok(slice.bottomPast <= 0.5, 'inside its card');
    }
    assert.deepEqual(cards.map((card) => card.truncated), cards.map(() => false), 'no card is faded out as if cut short');
  });

  it('shows a diagram zoomed to the room left whole, never hides it for the pixel its zoom rounds up', async () => {
    // pop-art at 1080×1350: the chain is legible shrunk to the room under its heading, and zoomed
    // there it reached a pixel past the content box, for which the card hid it and faded out.
    const { cards } = await layOutWithDiagrams(`# Posting flow\n\nThe whole flow, step by step:\n\n${fence(chain(14))}\n\nThat is all.`, 'pop-art', 1080, 1350);
    const pictures = cards.flatMap((card) => card.picturesPast);
    assert.equal(pictures.length, 1, 'drawn whole on one card');
    assert.ok(pictures[0]! <= 2, `within its card (${pictures[0]} px past)`);
    assert.deepEqual(cards.map((card) => card.truncated), cards.map(() => false), 'no card is faded out as if cut short');
  });

  it('refuses too many diagrams and too long a diagram with their own 400 messages', async () => {
    const many = Array.from({ length: diagramLimits.maxDiagramsPerDocument + 1 }, () => fence('pie\n  "a" : 1')).join('\n\n');
    const tooMany = await service.generate({ markdown: many });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.json.error, 'invalid_request');
    assert.equal(tooMany.json.message, 'The document has 21 mermaid diagrams; at most 20 are drawn per request. Split the document into several requests.');

    const long = `flowchart TD\n${Array.from({ length: 800 }, (_, i) => `  N${i} --> N${i + 1}`).join('\n')}`;
    assert.ok(long.length > diagramLimits.maxSourceChars);
    const tooLong = await service.generate({ markdown: `# Title\n\n${fence(long)}` });
    assert.equal(tooLong.status, 400);
    assert.equal(
      tooLong.json.message,
      `The mermaid diagram at line 3 is ${long.length.toLocaleString('en-US')} characters long; at most 10,000 are allowed per diagram. Split it into smaller diagrams.`,
    );
  });

  it("draws generate's diagrams at once while previews with slow diagrams fill the previews' lane", async () => {
    // Each takes Mermaid seconds; a comment makes each one new to the diagram cache.
    const slow = (n: number) => `%% ${n}\nflowchart LR\n${Array.from({ length: 490 }, (_, i) => `  A${i % 40} --> B${(i * 7) % 45}`).join('\n')}`;
    const answeredAt: number[] = [];
    const previews = Array.from({ length: 6 }, (_, n) =>
      preview({ markdown: fence(slow(n)), theme: 'minimal' }).then((answer) => {
        if (answer.status === 200) answeredAt.push(performance.now());
        return answer;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const generated = await service.generate({ markdown: fence(`flowchart LR\n  Lane --> Own${Date.now()}`), theme: 'minimal', splitMode: 'noSplit' });
    const generatedAt = performance.now();
    assert.equal(generated.status, 200, JSON.stringify(generated.json));
    const previewAnswers = await Promise.all(previews);
    const statuses = previewAnswers.map((answer) => answer.status);
    // One address's previews are taken in turns (one drawing, two waiting); the rest are refused at once.
    assert.ok(statuses.every((status) => status === 200 || status === 503 || status === 429), `previews answered ${statuses}`);
    assert.ok(statuses.filter((status) => status === 429).length <= 3, `previews answered ${statuses}`);
    // Drawn, or (on a loaded machine) past their time limit and shown as their source: either way they held the previews' diagram page.
    assert.ok(
      previewAnswers.every((answer) => answer.status !== 200 || /<figure class="diagram(?:-error)?"[ >]/.test(answer.json.cards[0].html)),
      'a preview answered without its diagram',
    );
    // Had generate's diagram waited behind the previews' diagrams (sent just before it), every
    // preview drawn would have been answered before it; it went first, on a page of its own lane.
    const answeredLater = answeredAt.filter((at) => at > generatedAt).length;

    assert.ok(answeredLater >= Math.max(2, answeredAt.length - 1), `${answeredLater} of ${answeredAt.length} drawn previews were answered after generate; previews answered ${statuses}`);
  });

  it('cuts a diagram taller than three cards over the cards it needs with autoSplit, and shrinks it to one clipped card', async () => {
    const tall = `flowchart TD\n${Array.from({ length: 24 }, (_, i) => `  S${i}[Step ${i}] --> S${i + 1}[Step ${i + 1}]`).join('\n')}`;
    const { json: drawn } = await preview({ markdown: fence(tall) });
    const [image] = await diagramImages(drawn.cards[0].html, service.baseUrl);
    assert.ok(image && image.height > 3 * 586, `the diagram is taller than three cards (${image?.height} px)`);
    const markdown = `# Tall\n\n${fence(tall)}\n\nThe end.`;

    const { status, json } = await service.generate({ markdown, splitMode: 'autoSplit' });
    assert.equal(status, 200, JSON.stringify(json));
    // Scaled to one card, its 14 px labels would be 4 px: cut, it takes four cards or more, legible.
    assert.ok(json.images.length >= 4, `${json.images.length} cards`);
    for (const card of json.images) assert.deepEqual([card.width, card.height], [880, 1172]);
    assert.equal(json.warnings, undefined);

    // One clipped card per section: there it can only be shrunk, and the answer says so.
    const clipped = await service.generate({ markdown, splitMode: 'hrSplit', overHiddenMode: true });
    assert.equal(clipped.status, 200, JSON.stringify(clipped.json));
    assert.equal(clipped.json.images.length, 1);
    assert.match(clipped.json.warnings?.join(' ') ?? '', /A flowchart diagram is drawn with text of [\d.]+ px on the card, below the 10 px/);
  });
});

describe('the diagram page', () => {
  let browser: BrowserInstance;
  let images: LocalImageServer;
  const scripts = new ScriptServer(diagramScripts);

  /** A diagram page of its own on the test's browser, for `use`, with the page it draws in and minimal's theme. */
  async function onDiagramPage(use: (diagramPage: DiagramPage, page: PageProbe, theme: Theme) => Promise<void>, themeId = 'minimal'): Promise<void> {
    const { loadThemes } = await import('../src/cards/themes/registry.js');
    const { buildShellDocument } = await import('../src/cards/render/shell-document.js');
    const themes = loadThemes(undefined);
    const diagramPage = await DiagramPage.open(browser.connection, buildShellDocument(themes), scripts, () => {});
    const page = await probeLastPage(browser);
    try {
      await use(diagramPage, page, themes.resolve(themeId, undefined).theme);
    } finally {
      await page.detach().catch(() => {});
      await diagramPage.close();
    }
  }
  before(async () => {
    [browser, images] = await Promise.all([launchRenderBrowser(), startImageServer()]);
  });
  after(async () => Promise.all([browser.close(), images.close(), scripts.close()]));

  it("serves the page's scripts from a loopback port, those files alone, as they are on disk", async () => {
    const origin = await scripts.origin();
    assert.match(origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    const served = Buffer.from(await (await fetch(`${origin}/mermaid.min.js`)).arrayBuffer());
    assert.ok(served.equals(await fs.readFile(diagramScripts['/mermaid.min.js']!)), 'the bundle as it is on disk');
    assert.equal(scripts.serves('/package.json'), false);
    for (const other of ['/package.json', '/../package.json', '/mermaid.min.js?x', '/']) assert.equal((await fetch(`${origin}${other}`)).status, 404, other);
  });

  it('runs no script of a diagram and sends no request of it', async () => {
    const { loadThemes } = await import('../src/cards/themes/registry.js');
    const { buildShellDocument } = await import('../src/cards/render/shell-document.js');
    const themes = loadThemes(undefined);
    const refused: string[] = [];
    const diagramPage = await DiagramPage.open(browser.connection, buildShellDocument(themes), scripts, (url) => refused.push(url));
    const page = await probeLastPage(browser);
    try {
      const { dialogs } = page;
      // What a script of the diagram would call, if any ran.
      await page.evaluate(() => {
        (window as unknown as { ran: string[] }).ran = [];
      });
      const mark = (what: string) => `window.ran.push('${what}')`;
      const hostile = [
        `%%{init: {"securityLevel": "loose", "htmlLabels": true}}%%\nflowchart TD\n  A["<img src=x onerror=${mark('onerror')}>"] --> B["<script>${mark('script')}</script>"]\n  click A call ran.push("click")\n  click B href "javascript:${mark('href')}"`,
        `sequenceDiagram\n  A->>B: <img src=x onerror=${mark('sequence')}>`,
        `flowchart LR\n  P@{ img: "${images.origin}/red.png", label: "picture", pos: "t", h: 60 } --> Q`,
      ];
      const theme = themes.resolve('minimal', undefined).theme;
      for (const source of hostile) {
        const drawn = await diagramPage.draw(source, { theme, cardWidth: 440, deviceScale: 1 });
        // Clicking where the diagram is drawn must not run a callback either.
        if (drawn.ok) await page.click(20, 20);
      }
      assert.deepEqual(await page.evaluate(() => (window as unknown as { ran: string[] }).ran), []);
      assert.deepEqual(dialogs, []);
      assert.deepEqual(images.hits, []);
      assert.equal(await page.evaluate(() => document.querySelectorAll('#diagram :is(script, foreignObject, image, a, iframe)').length), 0);
    } finally {
      await page.detach().catch(() => {});
      await diagramPage.close();
    }
  });

  it('keeps the text of a gantt chart, a timeline and a wide flowchart legible on a 440×586 card', async () => {
    await onDiagramPage(async (diagramPage, page, theme) => {
      const wide = {
        gantt:
          'gantt\n  title 发布计划\n  dateFormat YYYY-MM-DD\n  section 设计\n    需求 :a1, 2024-01-01, 20d\n    原型 :a2, after a1, 25d\n' +
          '  section 开发\n    前端 :b1, 2024-02-01, 40d\n    后端 :b2, 2024-02-10, 45d\n  section 上线\n    测试 :c1, after b2, 20d',
        timeline: 'timeline\n  title 产品历程\n  2019 : 构思\n  2020 : 立项 : 组建团队\n  2021 : 发布 1.0\n  2022 : 开源\n  2023 : 社区大会',
        flowchart: 'flowchart LR\n  A[需求] --> B[设计] --> C[开发] --> D[测试] --> E[发布]',
      };
      for (const [kind, source] of Object.entries(wide)) {
        const drawn = await diagramPage.draw(source, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1 });
        assert.ok(drawn.ok, `${kind}: drawn`);
        const { smallestPx, axisLabels } = await page.evaluate(drawnText);
        // No taller than a card's content, so the card shows it at the size it was drawn.
        assert.ok(drawn.height <= 440, `${kind}: ${Math.round(drawn.height)} px tall`);
        assert.ok(smallestPx >= diagramLimits.minTextPx, `${kind}: smallest text ${smallestPx.toFixed(1)} px on the card`);
        for (let i = 1; i < axisLabels.length; i++) {
          assert.ok(axisLabels[i]!.left >= axisLabels[i - 1]!.right, `${kind}: axis labels ${i - 1} and ${i} overprint`);
        }
        if (kind === 'gantt') assert.ok(axisLabels.length >= 3, `gantt: ${axisLabels.length} axis labels`);
      }
    });
  });

  it("draws a user journey with narrower task boxes when Mermaid's own widths shrink its text too far (mermaid's README)", async () => {
    // The journey of mermaid's README, read from node_modules: five tasks in boxes 150 px wide with
    // 50 px between them and 150 px of legend were 1,150 px wide, shrunk to the card's 368 px: its
    // text was 4 px. Drawn again with boxes 100 px wide it is 7-8 px: still under the floor (the
    // answer warns), but readable, and the legend's names are not covered by the boxes.
    const readme = await fs.readFile(path.join(projectRoot, 'node_modules', 'mermaid', 'README.md'), 'utf8');
    const source = /```mermaid\n(\s*journey\n[\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(source, "mermaid's README still has its journey example");
    await onDiagramPage(async (diagramPage, page, theme) => {
      const drawn = await diagramPage.draw(source, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1 });
      assert.ok(drawn.ok, 'drawn');
      const { smallestPx } = await page.evaluate(drawnText);
      assert.ok(smallestPx >= 7, `smallest text ${smallestPx.toFixed(1)} px on the card`);
    });
    // Each section's and task's name is drawn over its box in a colour that stands out from it:
    // with the section's class, Mermaid's stylesheet filled a section's name with the box's own
    // colour, and a dark theme's text colour drew the task names white on cyan boxes.
    for (const themeId of ['minimal', 'cyberpunk']) {
      await onDiagramPage(async (diagramPage, page, theme) => {
        assert.ok((await diagramPage.draw(source, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1 })).ok, `${themeId}: drawn`);
        const names = await page.evaluate(() =>
          Array.from(document.querySelectorAll('#diagram svg :is(text.journey-section, text.task)'), (name) => {
            const box = name.closest('g')!.querySelector('rect')!;
            const channels = (colour: string) => colour.match(/\d+/g)!.slice(0, 3).map(Number) as [number, number, number];
            // A long task name is wrapped over lines (tspans) to fit its box.
            const words = Array.from(name.querySelectorAll('tspan'), (line) => line.textContent!.trim()).join(' ') || name.textContent!.trim();
            return { name: words, text: channels(getComputedStyle(name).fill), box: channels(getComputedStyle(box).fill) };
          }),
        );
        assert.deepEqual(names.map((label) => label.name).sort(), ['Do work', 'Go downstairs', 'Go home', 'Go to work', 'Go upstairs', 'Make tea', 'Sit down']);
        for (const label of names) {
          const ratio = contrastRatio(label.text, label.box);
          assert.ok(ratio >= 3, `${themeId}, "${label.name}": contrast ${ratio.toFixed(2)}:1 against its box`);
        }
      }, themeId);
    }
  });

  it("draws a wide C4 diagram as a column of narrower shapes with larger text, cut over split 440×586 cards (mermaid's README)", async () => {
    // The C4Context of mermaid's README, read from node_modules: four shapes to a row in a viewBox
    // 1,148 px wide, shrunk to the card's 368 px, drew its smallest text at 3.4 px. One shape to a
    // row, 180 px wide, in a viewBox narrowed to the drawing, came to 8.4 px; its shapes keep their
    // width when their text grows, so larger text brings it over the floor, cut over several cards.
    const readme = await fs.readFile(path.join(projectRoot, 'node_modules', 'mermaid', 'README.md'), 'utf8');
    const source = /```mermaid\n(\s*C4Context\n[\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(source, "mermaid's README still has its C4Context example");
    await onDiagramPage(async (diagramPage, page, theme) => {
      const drawn = await diagramPage.draw(source, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1, sliceable: true });
      assert.ok(drawn.ok, 'drawn');
      assert.ok(drawn.smallestTextPx! >= diagramLimits.minTextPx, `smallest text ${drawn.smallestTextPx!.toFixed(1)} px on the card`);
      assert.equal(illegibleDiagramWarning(source, drawn.smallestTextPx), undefined);
      assert.ok((drawn.cuts?.length ?? 0) > 0, 'it may be cut between its shapes');
      assert.ok(drawn.width <= 368, `${Math.round(drawn.width)} px wide: no wider than the card's content`);
      // Every element's white name reads on its fill: Mermaid's own fills (#999999 for an external
      // system) were too light for it.
      const fills = await page.evaluate(() =>
        Array.from(document.querySelectorAll('#diagram svg g.c4-shape'), (shape) => ({
          kind: shape.getAttribute('class')!,
          fill: getComputedStyle(shape.querySelector('.label-container, .label-container > rect')!).fill,
        })),
      );
      assert.ok(fills.length >= 12, `${fills.length} elements`);
      for (const { kind, fill } of fills) {
        const ratio = contrastRatio([255, 255, 255], fill.match(/\d+/g)!.slice(0, 3).map(Number) as [number, number, number]);
        assert.ok(ratio >= 4.5, `${kind}: white names at ${ratio.toFixed(2)}:1 on ${fill}`);
      }
      // An author's own layout is kept: four to a row, shrunk.
      const own = await diagramPage.draw(`${source}\nUpdateLayoutConfig($c4ShapeInRow="4", $c4BoundaryInRow="2")`, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1, sliceable: true });
      assert.ok(own.ok && own.smallestTextPx! < diagramLimits.minTextPx, `the author's layout: ${own.ok ? own.smallestTextPx!.toFixed(1) : 'not drawn'} px`);
      const columns = await page.evaluate(() => new Set(Array.from(document.querySelectorAll('#diagram svg g.c4-shape'), (shape) => Math.round(shape.getBoundingClientRect().left))).size);
      assert.ok(columns >= 4, `the author's shapes side by side: ${columns} columns`);
    });
  });

  it('draws C4 arrowheads and a journey\'s time axis in the colour of the lines, not in black (cyberpunk)', async () => {
    // Mermaid draws both in the default black, which a dark card's ground swallows.
    await onDiagramPage(async (diagramPage, page, theme) => {
      const colours = async () =>
        page.evaluate(() => {
          const svg = document.querySelector('#diagram svg')!;
          const strokes = (selector: string) => Array.from(svg.querySelectorAll(selector), (el) => getComputedStyle(el).stroke);
          return {
            heads: Array.from(svg.querySelectorAll('marker path:not([fill="none"])'), (head) => getComputedStyle(head).fill),
            lines: strokes('line[stroke="#444444"], path[stroke="#444444"]').concat(strokes('line[marker-end]')),
          };
        });
      assert.ok((await diagramPage.draw('C4Context\n  Person(a, "Reader")\n  System(b, "Cards")\n  Rel(a, b, "Reads")', { theme, cardWidth: 440, deviceScale: 1 })).ok);
      const c4 = await colours();
      assert.ok(c4.heads.length >= 2 && c4.lines.length >= 1, JSON.stringify(c4));
      for (const head of c4.heads) assert.equal(head, c4.lines[0], 'a C4 arrowhead in its line\'s colour');
      assert.notEqual(c4.lines[0], 'rgb(0, 0, 0)');
      assert.ok((await diagramPage.draw('journey\n  section Day\n    Read: 5: Me', { theme, cardWidth: 440, deviceScale: 1 })).ok);
      const journey = await colours();
      assert.deepEqual(new Set(journey.heads.concat(journey.lines)), new Set([c4.lines[0]]), 'the journey\'s axis and its arrowhead in the line colour');
    }, 'cyberpunk');
  });

  it("draws a Chinese journey's names in the card's faces, each long task name wrapped to its box, folded between sections", async () => {
    // Mermaid names a face of its own for a journey's title and tasks ("Open Sans"), which the
    // page lacks: their Chinese came out as empty boxes. Its task names run on one line past their
    // boxes, and covered the gaps a fold needs.
    const source = 'journey\n  title 周末咖啡店探店\n  section 出发\n    查攻略找地址: 4: 我\n    地铁换乘两次: 2: 我\n    门口排队四十分钟: 1: 我, 朋友\n  section 点单\n    研究菜单: 4: 我\n    点招牌燕麦拿铁: 5: 我\n  section 享受\n    拍照打卡: 5: 我, 朋友\n    坐在窗边聊天: 5: 我, 朋友';
    await onDiagramPage(async (diagramPage, page, theme) => {
      const drawn = await diagramPage.draw(source, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1, sliceable: true });
      assert.ok(drawn.ok && (drawn.rows?.length ?? 0) >= 2, `folded: ${JSON.stringify(drawn.ok && drawn.rows)}`);
      assert.ok(drawn.smallestTextPx! >= diagramLimits.minTextPx, `${drawn.smallestTextPx} px`);
      const overflowing = await page.evaluate(() =>
        Array.from(document.querySelectorAll<SVGTextElement>('#diagram svg text.task'))
          .filter((name) => name.getBBox().width > name.closest('g')!.querySelector<SVGRectElement>(':scope > rect.task')!.width.baseVal.value)
          .map((name) => name.textContent),
      );
      assert.deepEqual(overflowing, [], 'every task name within its box');
      const { session } = page;
      await session.send('DOM.enable');
      await session.send('CSS.enable');
      const { root } = await session.send('DOM.getDocument', { depth: -1 });
      const { nodeIds } = await session.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: '#diagram svg :is(text.task tspan, text.journey-section, text.legend, text:not([class]))' });
      assert.ok(nodeIds.length >= 12, `${nodeIds.length} texts`);
      for (const nodeId of nodeIds) {
        const { fonts } = await session.send('CSS.getPlatformFontsForNode', { nodeId });
        assert.ok(fonts.length > 0 && fonts.every((font) => font.isCustomFont), `drawn in the card's faces: ${JSON.stringify(fonts)}`);
      }
    });
  });

  it("cuts a class diagram between its classes, never between a class's members", async () => {
    // A class's box and the lines between its members are paths, which did not hold a cut off:
    // Book's "+String isbn" ended one card and "+String title" began the next.
    const source = `classDiagram\n${['Customer', 'Order', 'OrderLine', 'Book', 'Author', 'Inventory'].map((name) => `  class ${name} {\n    +String name\n    +String note\n    +total() Money\n  }`).join('\n')}\n  Customer --> Order\n  Order *-- OrderLine\n  OrderLine --> Book\n  Book --> Author\n  Inventory --> Book`;
    await onDiagramPage(async (diagramPage, page, theme) => {
      const drawn = await diagramPage.draw(source, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1, sliceable: true });
      assert.ok(drawn.ok && (drawn.cuts?.length ?? 0) > 0, 'it may be cut');
      const classes = await page.evaluate(() => {
        const box = document.querySelector('#diagram svg')!.getBoundingClientRect();
        return Array.from(document.querySelectorAll('#diagram svg g.node'), (node) => {
          const r = node.getBoundingClientRect();
          return [(r.top - box.top) / box.height, (r.bottom - box.top) / box.height] as const;
        });
      });
      assert.equal(classes.length, 6);
      for (const cut of drawn.cuts!) assert.ok(classes.every(([top, bottom]) => cut < top || cut > bottom), `the cut at ${cut.toFixed(3)} goes through a class`);
    });
  });

  it('breaks the participant names and block labels of a narrower sequence diagram between words, never inside one, and never folds it', async () => {
    // Five participants with camel-case names: laid out narrower, Mermaid hyphenated them inside
    // words ("HealthChec-k", "Authentica-tionGatewa-y"); too small even so, it was folded between
    // two participants, and its messages pointed at nothing. A loop around one participant had
    // its label cut every few letters ("[Hea-lthC-heck-]", as in mermaid's own README).
    const participants = ['Client', 'AuthenticationGateway', 'HealthCheck', 'OrderService', 'PaymentProvider'];
    const source = [
      'sequenceDiagram',
      ...participants.slice(1).map((to, i) => `    ${participants[i]}->>${to}: a request of a few words`),
      '    loop HealthCheck',
      '        OrderService->>OrderService: Fight against hypochondria',
      '    end',
      '    alt TokenExpiredOrRevoked',
      '        HealthCheck-->>Client: 401',
      '    end',
    ].join('\n');
    await onDiagramPage(async (diagramPage, page, theme) => {
      const drawn = await diagramPage.draw(source, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1, sliceable: true });
      assert.ok(drawn.ok && drawn.rows === undefined, 'drawn, not folded');
      // Mermaid draws each line of a name or a block's label as a text of its own.
      const { names, labels } = await page.evaluate(() => ({
        names: Array.from(document.querySelectorAll('#diagram svg text.actor'), (text) => text.textContent!.trim()).filter(Boolean),
        labels: Array.from(document.querySelectorAll('#diagram svg text.loopText'), (text) => text.textContent!.trim()),
      }));
      assert.ok(names.every((line) => !line.endsWith('-')), JSON.stringify(names));
      for (const word of ['Authentication', 'Gateway', 'Health', 'Check', 'Order', 'Service', 'Payment', 'Provider']) {
        // Once: the row of participants is not drawn again at the foot.
        assert.equal(names.filter((line) => line === word).length, 1, `${word}: ${JSON.stringify(names)}`);
      }
      // The alt block runs over three participants, where the loop is around one.
      assert.deepEqual(labels, ['[Health', 'Check]', '[TokenExpiredOr', 'Revoked]']);
    });
  });

  it('never folds a graph through an edge between two of its nodes', async () => {
    // mermaid's README class diagram, too wide for the card: folded between Class09 and Class07,
    // their inheritance arrow ran off the first row and began from nowhere on the second.
    const readme = await fs.readFile(path.join(projectRoot, 'node_modules', 'mermaid', 'README.md'), 'utf8');
    const classes = /```mermaid\n(classDiagram\n[\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(classes, "mermaid's README still has its class diagram");
    const flowchart = `flowchart LR\n${Array.from({ length: 9 }, (_, i) => `  N${i}["Step number ${i}"] --> N${i + 1}["Step number ${i + 1}"]`).join('\n')}`;
    for (const source of [classes, flowchart]) {
      await onDiagramPage(async (diagramPage, page, theme) => {
        const drawn = await diagramPage.draw(source, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1, sliceable: true });
        assert.ok(drawn.ok);
        if (!drawn.rows) return;
        // The picture holds the rows one under another; each edge must lie within one of them.
        const crossing = await page.evaluate((rows) => {
          const svg = document.querySelector('#diagram svg')!;
          const box = svg.getBoundingClientRect();
          return Array.from(svg.querySelectorAll('.edgePaths path'), (edge) => edge.getBoundingClientRect())
            .filter((r) => r.width > 0 || r.height > 0)
            .filter((r) => !rows.some((row) => r.left - box.left >= row.left * box.width - 1 && r.right - box.left <= row.right * box.width + 1)).length;
        }, drawn.rows);
        assert.equal(crossing, 0, `${source.split('\n')[0]}: ${crossing} edges cut by a fold`);
      });
    }
  });

  it('marks a pie with its legend under it to be cut only between the pie and its legend', async () => {
    // A creator's note: a legend of ten long names under the pie. Cut through the pie, or between
    // its title and the pie, a card ended on half a pie or on the title alone.
    const names = ['全职工作与通勤（包括地铁上回消息）', '睡前刷短视频和社交媒体', '做饭、打扫和各种家务杂事', '健身房力量训练与周末徒步', '读书、写读书笔记和播客', '陪伴家人和朋友聚餐', '学习日语和线上课程', '旅行途中的交通与排队', '发呆、放空、无所事事', '副业：接设计稿和做小红书'];
    const pie = `pie title 全年时间分配（小时）\n${names.map((name, i) => `    "${name}" : ${2100 - i * 190}`).join('\n')}`;
    for (const themeId of ['glassmorphism', 'art-deco']) {
      await onDiagramPage(async (diagramPage, page, theme) => {
        const drawn = await diagramPage.draw(pie, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1, sliceable: true });
        assert.ok(drawn.ok && drawn.cuts?.length === 1, `${themeId}: one cut (${drawn.ok && drawn.cuts})`);
        const pieBottom = await page.evaluate(() => {
          const svg = document.querySelector('#diagram svg')!.getBoundingClientRect();
          return (document.querySelector('#diagram svg .pieOuterCircle')!.getBoundingClientRect().bottom - svg.top) / svg.height;
        });
        const legendTop = await page.evaluate(() => {
          const svg = document.querySelector('#diagram svg')!.getBoundingClientRect();
          return (Math.min(...Array.from(document.querySelectorAll('#diagram svg g.legend'), (entry) => entry.getBoundingClientRect().top)) - svg.top) / svg.height;
        });
        assert.ok(drawn.cuts![0]! > pieBottom && drawn.cuts![0]! < legendTop, `${themeId}: the cut at ${drawn.cuts![0]} is between the pie (to ${pieBottom}) and its legend (from ${legendTop})`);
      }, themeId);
    }
  });

  it("draws a pie's whole legend of many slices, each colour in the row of its name", async () => {
    // Mermaid centres a pie's legend on the pie: thirty slices ran past the top and bottom of its
    // frame and were cut. Folded, the legend's colours were split from their names, 4 px away.
    const pie = `pie\n${Array.from({ length: 30 }, (_, i) => `  "slice ${i} with a fairly long label" : ${i + 1}`).join('\n')}`;
    await onDiagramPage(async (diagramPage, page, theme) => {
      const drawn = await diagramPage.draw(pie, { theme, cardWidth: 440, deviceScale: 1 });
      assert.ok(drawn.ok, 'drawn');
      const legend = await page.evaluate(() => {
        const svg = document.querySelector('#diagram svg')!.getBoundingClientRect();
        return Array.from(document.querySelectorAll('#diagram svg g.legend'), (entry) => {
          const [swatch, name] = [entry.querySelector('rect')!.getBoundingClientRect(), entry.querySelector('text')!.getBoundingClientRect()];
          return { swatch: [swatch.left - svg.left, swatch.right - svg.left], name: [name.left - svg.left, name.right - svg.left], inside: name.top >= svg.top && name.bottom <= svg.bottom && name.right <= svg.right };
        });
      });
      assert.equal(legend.length, 30);
      assert.ok(legend.every((entry) => entry.inside), 'every name inside the drawing');
      const edges = (drawn.rows ?? []).slice(1).map((row) => row.left * drawn.width);
      for (const entry of legend) assert.ok(!edges.some((edge) => edge > entry.swatch[0]! && edge < entry.name[1]!), 'no fold between a colour and its name');
    });
  });

  it("counts a diagram drawn at its own size with 10 px labels as legible, not as under the 10 px floor (mermaid's README gitGraph, top to bottom)", async () => {
    // The gitGraph of mermaid's README, written top to bottom: 221 px wide, so drawn at its own
    // size, its commit labels 10 px. Measured through the drawing's scale, they came out at
    // 9.9998 px, and the answer warned of "text of 10.0 px, below the 10 px that stays legible".
    const readme = await fs.readFile(path.join(projectRoot, 'node_modules', 'mermaid', 'README.md'), 'utf8');
    const source = /```mermaid\n(\s*gitGraph)(\n[\s\S]*?)```/.exec(readme);
    assert.ok(source, "mermaid's README still has its gitGraph example");
    await onDiagramPage(async (diagramPage, _page, theme) => {
      const drawn = await diagramPage.draw(`${source[1]} TB:${source[2]}`, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1 });
      assert.ok(drawn.ok, 'drawn');
      assert.ok(drawn.width < 368 && drawn.height < 470, `drawn ${Math.round(drawn.width)}×${Math.round(drawn.height)}: at its own size on the card`);
      assert.equal(drawn.smallestTextPx, diagramLimits.minTextPx);
      assert.equal(illegibleDiagramWarning(source[0], drawn.smallestTextPx), undefined);
      // As written (left to right, 7.7 px shrunk to the card), it is drawn top to bottom for the card.
      const asWritten = await diagramPage.draw(`${source[1]}${source[2]}`, { theme, cardWidth: 440, cardHeight: 586, deviceScale: 1, sliceable: true });
      assert.ok(asWritten.ok && asWritten.smallestTextPx! >= diagramLimits.minTextPx, `as written: ${asWritten.ok ? asWritten.smallestTextPx : 'not drawn'} px`);
    });
  });

  it('stops a diagram at its time limit and draws it as its source and the reason', async () => {
    const renderer = new Renderer({ shell: { html: '<!doctype html><html><head></head><body><div id="cards"></div></body></html>', fonts: shellFonts('') }, concurrency: 1, queueMax: 4, log: pino({ level: 'silent' }), diagramTimeoutMs: 1 });
    try {
      const { loadThemes } = await import('../src/cards/themes/registry.js');
      const theme = loadThemes(undefined).resolve('minimal', undefined).theme;
      const drawn = await renderer.drawDiagram('flowchart TD\n  A --> B', { theme, cardWidth: 440, deviceScale: 1 }, AbortSignal.timeout(60_000));
      assert.deepEqual(drawn, {
        ok: false,
        message: 'Mermaid took longer than 0.001 s to draw this diagram and was stopped. Simplify the diagram or split it into smaller ones.',
        transient: true,
      });
    } finally {
      await renderer.close();
    }
  });
});
