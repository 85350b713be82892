// cardwright as a drop-in for MD2Card's clients (docs/md2card.md): each test sends the body one of
// those clients builds, over real HTTP to a real service, and reads the answer the way that client
// does: it requires `success`, pulls the URLs out, downloads every image, and reads `size` (KB),
// `cost` and `previewUrl`. Only the base URL differs from what the clients send to MD2Card.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { imageSize } from 'image-size';
import { launchBrowser } from './helpers/browser.js';
import { download, isPng } from './helpers/images.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';

const knowledgeCard = [
  '# 🎯 OpenClaw 是什么？',
  '',
  'OpenClaw 是一个 AI 助手框架，**三分钟**看懂它能做什么。',
  '',
  '---',
  '',
  '## 💎 5 大核心玩法',
  '',
  ...Array.from({ length: 12 }, (_, i) => `${i + 1}. 第 ${i + 1} 个玩法：一句话说明它解决的问题。`),
].join('\n');

interface Md2CardAnswer {
  success?: boolean;
  images?: Array<{ url: string; fileName: string; size: number; bytes: number; width: number; height: number }>;
  cost?: number;
  previewUrl?: string;
  warnings?: string[];
  error?: string;
  message?: string;
}

/** What the clients all do with the answer: success or an error message, then every image downloaded. */
async function downloadAll(answer: Md2CardAnswer): Promise<Buffer[]> {
  assert.equal(answer.success, true, JSON.stringify(answer));
  assert.ok(answer.images && answer.images.length > 0, 'images');
  return Promise.all(
    answer.images.map(async (image) => {
      const { bytes, response } = await download(image.url);
      assert.equal(response.status, 200, image.url);
      assert.equal(bytes.length, image.bytes);
      assert.equal(image.size, Math.round((bytes.length / 1024) * 100) / 100, 'size is KB with two decimals');
      const size = imageSize(bytes);
      assert.deepEqual([size.width, size.height], [image.width, image.height]);
      return bytes;
    }),
  );
}

describe('MD2Card clients, pointed at cardwright', () => {
  let service: RunningService;
  const post = async (route: string, body: unknown, key = testApiKey): Promise<{ status: number; answer: Md2CardAnswer }> => {
    const response = await fetch(`${service.baseUrl}${route}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });
    return { status: response.status, answer: (await response.json()) as Md2CardAnswer };
  };

  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  describe("the official MCP server (md2card-mcp-server's md2card_api tool)", () => {
    // Its mappings, as it applies them before calling POST /api/generate: Chinese names to IDs
    // (MD2Card's own IDs: apple-notes, bytedance, xiaohongshu…), presets to sizes, blind modes.
    const themeMap: Record<string, string> = { 苹果备忘录: 'apple-notes', 线圈笔记本: 'coil-notebook', 波普艺术: 'pop-art', 字节范: 'bytedance', 阿里橙: 'alibaba', 紫色小红书: 'xiaohongshu', 暗黑科技: 'darktech', 青野晨光: 'meadow-dawn' };
    const themeModeMap: Record<string, string> = { 默认: 'default-mode', 粉蓝模式: 'pink-blue-mode', 薄荷模式: 'mint-mode', 蓝色模式: 'blue-mode', 亮色模式: 'light-mode', 暗黑模式: 'dark-mode' };
    const sizeMap: Record<string, { width: number; height: number }> = { 小红书: { width: 440, height: 586 }, 正方形: { width: 500, height: 500 }, 手机海报: { width: 440, height: 782 }, A4纸打印: { width: 595, height: 842 } };
    const splitModeMap: Record<string, string> = { 自动拆分: 'autoSplit', 横线拆分: 'hrSplit', 不拆分: 'noSplit', 长图文: 'noSplit' };

    /** The tool's request body for its arguments, built as the tool builds it (defaults included). */
    function toolRequestBody(args: Record<string, string | number | boolean | undefined>) {
      const { markdown, type, width = 440, height = 586, theme = 'apple-notes', themeMode, splitMode = 'noSplit', mdxMode = false, overHiddenMode = false } = args;
      const size = typeof type === 'string' ? (sizeMap[type] ?? Object.entries(sizeMap).find(([name]) => type.includes(name))?.[1]) : undefined;
      return {
        markdown,
        theme: themeMap[theme as string] || theme,
        themeMode: themeModeMap[themeMode as string] || themeMode,
        width: size?.width ?? width,
        height: size?.height ?? height,
        splitMode: splitModeMap[splitMode as string] || splitMode,
        mdxMode,
        overHiddenMode,
      };
    }

    /** The tool's text result on success, built from the answer as the tool builds it. */
    const toolText = (answer: Md2CardAnswer) =>
      `**下载图片**\n${answer.images!.map((img) => `[${img.fileName}](${img.url})\n图片大小：${img.size} KB`).join('\n')}` +
      `\n\n**在线编辑**\n[点击在线编辑](${answer.previewUrl})\n\n- 本次消耗积分：${answer.cost}`;

    const calls: Array<[string, Record<string, string | number | boolean | undefined>, { cards: number | 'several'; width: number; warns?: RegExp }]> = [
      ['the sample request (小红书, autoSplit, dark mode)', { markdown: knowledgeCard, type: '小红书', theme: 'apple-notes', themeMode: 'dark-mode', splitMode: 'autoSplit' }, { cards: 'several', width: 880 }],
      ['Chinese names for theme, mode and split mode', { markdown: knowledgeCard, theme: '苹果备忘录', themeMode: '暗黑模式', splitMode: '横线拆分' }, { cards: 'several', width: 880 }],
      ['a mode the theme does not have (sent blindly)', { markdown: '# 线圈', theme: '线圈笔记本', themeMode: '暗黑模式' }, { cards: 1, width: 880, warns: /"dark-mode" is not a mode of theme "coil-notebook"; rendered in its default mode "blue-mode"/ }],
      ['no mode at all (the key is left out)', { markdown: '# 波普', theme: '波普艺术' }, { cards: 1, width: 880 }],
      ['the renamed themes by their MD2Card IDs', { markdown: '# 字节范', theme: '字节范', type: '正方形' }, { cards: 1, width: 1000 }],
      ['紫色小红书 as a phone poster', { markdown: '# 紫色小红书', theme: '紫色小红书', type: '手机海报', themeMode: '默认' }, { cards: 1, width: 880, warns: /"default-mode" was ignored: theme "social-purple" has no modes/ }],
      ['a long image (长图文) for A4 print', { markdown: knowledgeCard, theme: '青野晨光', type: 'A4纸打印', splitMode: '长图文' }, { cards: 1, width: 1190 }],
    ];
    for (const [name, args, expected] of calls) {
      it(`works for ${name}`, async () => {
        const { status, answer } = await post('/api/generate', toolRequestBody(args));
        assert.equal(status, 200, JSON.stringify(answer));
        const images = await downloadAll(answer);
        if (expected.cards === 'several') assert.ok(images.length > 1, `${images.length} cards`);
        else assert.equal(images.length, expected.cards);
        assert.equal(answer.images![0]!.width, expected.width);
        assert.equal(answer.cost, images.length);
        if (expected.warns) assert.match(answer.warnings?.[0] ?? '', expected.warns);
        else assert.equal(answer.warnings, undefined);
        const text = toolText(answer);
        for (const image of answer.images!) assert.ok(text.includes(image.url));
        assert.match(text, /图片大小：\d+(\.\d{1,2})? KB/);
        assert.match(text, /\[点击在线编辑\]\(http:\/\/127\.0\.0\.1:\d+\/\?edit=\d{13}_[0-9a-f]{24}\)/);
      });
    }
  });

  it('works for an n8n HTTP Request node body (weChatMode: false included)', async () => {
    const body = { markdown: knowledgeCard, theme: 'apple-notes', width: 440, height: 586, splitMode: 'noSplit', mdxMode: false, overHiddenMode: false, weChatMode: false };
    const { status, answer } = await post('/api/generate', body);
    assert.equal(status, 200);
    const [card] = await downloadAll(answer);
    assert.ok(isPng(card!));
    assert.equal(answer.images!.length, 1);
  });

  it('works for a Python script that sends only a few fields and a 100 px badge', async () => {
    // requests.post(url, headers=headers, data=json.dumps(payload)); then data.get("images")
    const { answer } = await post('/api/generate', { markdown: '# 新闻分析\n\n## AI模型: GPT\n\n评价文本。', theme: 'apple-notes', width: 800, height: 600 });
    assert.equal((await downloadAll(answer)).length, 1);
    const badge = await post('/api/generate', { markdown: '**OK**', theme: 'minimalist', width: 100, height: 100, scale: 1, overHiddenMode: true });
    await downloadAll(badge.answer);
    assert.deepEqual([badge.answer.images![0]!.width, badge.answer.images![0]!.height], [100, 100]);
  });

  it('works for a Node script that requires success and reads previewUrl, ignoring fields it does not know', async () => {
    const body = { markdown: knowledgeCard, theme: 'xiaohongshu', width: 440, height: 586, splitMode: 'autoSplit', mdxMode: false, overHiddenMode: false, type: '小红书', markdownFile: null, client: 'openclaw' };
    const { status, answer } = await post('/api/generate', body);
    // if (!response.ok) throw new Error(data.message || data.error); if (!data.success) throw …
    assert.equal(status, 200, answer.message);
    await downloadAll(answer);
    const previewUrl = answer.previewUrl ?? '';

    // The previewUrl opens this service's editor with the same Markdown and settings.
    const page = await fetch(previewUrl);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const id = new URL(previewUrl).searchParams.get('edit');
    const saved = (await (await fetch(`${service.baseUrl}/api/requests/${id}`)).json()) as Record<string, unknown>;
    assert.deepEqual(
      [saved.markdown, saved.theme, saved.splitMode, saved.width, saved.height],
      [knowledgeCard, 'social-purple', 'autoSplit', 440, 586],
    );
    assert.equal(saved.client, undefined, 'fields the API does not know are not saved');
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext();
      const editor = await context.newPage();
      await editor.goto(previewUrl);
      await editor.waitForFunction(() => (document.getElementById('markdown') as HTMLTextAreaElement | null)?.value.includes('OpenClaw'));
      assert.equal(await editor.inputValue('#markdown'), knowledgeCard);
      await context.close();
    } finally {
      await browser.close();
    }
    assert.equal((await fetch(`${service.baseUrl}/api/requests/1795315408146_000000000000000000000000`)).status, 404);
  });

  it("works for a WordPress plug-in's cover call, and the covers' answer has the same shape", async () => {
    const payload = { text: '如何让OpenClaw真的能干活'.slice(0, 80), keywords: 'AI 工具', count: 1, theme: 'glassmorphism', width: 600, height: 800 };
    const { status, answer } = await post('/api/generate/cover', payload);
    assert.equal(status, 200, JSON.stringify(answer));
    // if (empty($body['success']) || empty($body['images'][0]['url'])) → failure
    assert.ok(answer.success && answer.images?.[0]?.url);
    await downloadAll(answer);
    assert.deepEqual([answer.images![0]!.width, answer.images![0]!.height, answer.cost], [1200, 1600, 1]);
  });

  it("answers the credit check of MD2Card skills' scripts (GET /api/user/info) with the key's cards made and no limit", async () => {
    // curl -s https://md2card.cn/api/user/info -H "x-api-key: $MD2CARD_API_KEY" → {"success": true, "data": {"balance", "used"}}
    const info = async (key = testApiKey) => {
      const response = await fetch(`${service.baseUrl}/api/user/info`, { headers: { 'x-api-key': key } });
      return { status: response.status, body: (await response.json()) as { success: boolean; error?: string; data: { used: number; balance: null; unlimited: boolean } } };
    };
    const earlier = await info();
    assert.equal(earlier.status, 200, JSON.stringify(earlier.body));
    assert.equal(earlier.body.success, true);
    assert.deepEqual([earlier.body.data.balance, earlier.body.data.unlimited], [null, true]);
    const { answer } = await post('/api/generate', { markdown: '# one\n\n---\n\n# two', splitMode: 'hrSplit', width: 200, height: 200, scale: 1 });
    assert.equal(answer.cost, 2);
    const later = await info();
    assert.equal(later.body.data.used, earlier.body.data.used + 2, 'the answer\'s cost is added to the key\'s count');
    const wrongKey = await info('sk-not-a-key-of-this-service');
    assert.deepEqual([wrongKey.status, wrongKey.body.success, wrongKey.body.error], [401, false, 'unauthorized']);
  });

  it('tells every client of a failure the way MD2Card does: success false, error and message', async () => {
    const wrongKey = await post('/api/generate', { markdown: '# x' }, 'sk-not-a-key-of-this-service');
    assert.equal(wrongKey.status, 401);
    assert.deepEqual([wrongKey.answer.success, wrongKey.answer.error], [false, 'unauthorized']);
    assert.equal(typeof wrongKey.answer.message, 'string');
    const badTheme = await post('/api/generate', { markdown: '# x', theme: '不存在的主题' });
    assert.equal(badTheme.status, 400);
    assert.deepEqual([badTheme.answer.success, badTheme.answer.error], [false, 'invalid_request']);
    assert.match(badTheme.answer.message ?? '', /不存在的主题/);
  });
});
