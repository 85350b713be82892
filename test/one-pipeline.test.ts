// Every front end renders through the one card pipeline (createCards in src/cards/): the same
// request made through POST /api/generate, POST /api/preview, `cardwright render` and the MCP
// server's local mode gives the same cards, pixel for pixel (the preview's WebP within the loss
// of its compression).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { normalizeRequest } from '../src/cards/index.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { singleCardMarkup } from '../src/cards/render/render-cards.js';
import type { GenerateBodyInput } from '../src/cards/request/schema.js';
import { runRender } from '../src/cli/render-command.js';
import { failureReport } from '../src/cli/report.js';
import { renderToolName } from '../src/mcp/tools.js';
import { buildIfStale } from './helpers/build.js';
import { cleanEnv, cliBin, runCli } from './helpers/cli.js';
import { decodePng, differingFraction, download, previewImage, type DecodedPng } from './helpers/images.js';
import { startService, temporaryDir, testApiKey, type RunningService } from './helpers/service.js';

/** A document not written for this test: the first part of an installed package's README, plus CJK. */
function sampleDocument(): string {
  const readme = fs.readFileSync(path.join('node_modules', 'p-limit', 'readme.md'), 'utf8');
  return `${readme.split('\n').slice(0, 40).join('\n')}\n\n## 小结\n\n同一个请求，四个入口，同样的卡片。`;
}

const request = { theme: 'pop-art', themeMode: 'mint-mode', splitMode: 'autoSplit', width: 440, height: 586, scale: 1, format: 'png' } as const;

async function decodeWebp(bytes: Buffer): Promise<DecodedPng> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data } as DecodedPng;
}

/** Mean absolute difference per channel, 0–255. */
function meanDifference(a: DecodedPng, b: DecodedPng): number {
  assert.equal(a.width, b.width);
  assert.equal(a.height, b.height);
  let sum = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    sum += Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) + Math.abs(a.data[i + 2]! - b.data[i + 2]!);
  }
  return sum / (a.width * a.height * 3);
}

/**
 * The share of pixels in which two renders of the same card by two browsers (the service's, and
 * the CLI's or the MCP server's own) may differ: once in some ten runs of the suite a CLI card
 * differed in 0.033% of its pixels (about 86 of a 440×586 card; which pixels was not seen). A
 * different request differs in more than 5% (the last test), a table laid out otherwise in more
 * than 1%.
 */
const sameCardNoise = 0.001;

describe('one card pipeline behind every front end', () => {
  let service: RunningService;
  let markdown: string;
  let apiCards: DecodedPng[];

  before(async () => {
    service = await startService();
    markdown = sampleDocument();
    const { status, json } = await service.generate({ ...request, markdown });
    assert.equal(status, 200, JSON.stringify(json));
    apiCards = await Promise.all(json.images.map(async (image: { url: string }) => await decodePng((await download(image.url)).bytes)));
    assert.ok(apiCards.length >= 2, `the document is split into several cards; got ${apiCards.length}`);
  });
  after(async () => service.close());

  it('the CLI writes the cards the API stores', async () => {
    const dir = temporaryDir();
    fs.writeFileSync(path.join(dir, 'doc.md'), markdown);
    const args = ['render', 'doc.md', '-o', 'out/', '--theme', request.theme, '--mode', request.themeMode, '--split', request.splitMode, '--scale', '1'];
    const { code, stdout, stderr } = await runCli(args, { cwd: dir });
    assert.equal(code, 0, stderr);
    const files = stdout.trim().split('\n');
    assert.equal(files.length, apiCards.length);
    for (const [index, file] of files.entries()) {
      const card = await decodePng(fs.readFileSync(path.resolve(dir, file)));
      const differing = differingFraction(card, apiCards[index]!);
      assert.ok(differing <= sameCardNoise, `card ${index + 1} differs in ${(differing * 100).toFixed(3)}% of its pixels`);
    }
  });

  it('the MCP server (local mode) answers with the cards the API stores', async () => {
    buildIfStale();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp'],
      env: { ...cleanEnv(), CARDWRIGHT_OUTPUT_DIR: temporaryDir() },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cardwright-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      const tool = tools.tools.find((candidate) => candidate.name === renderToolName)!;
      const result = (await client.callTool({ name: tool.name, arguments: { ...request, markdown, inline: 'all' } }, undefined, { timeout: 120_000 })) as CallToolResult;
      assert.ok(!result.isError, JSON.stringify(result.content[0]));
      const images = result.content.flatMap((item) => (item.type === 'image' ? [Buffer.from(item.data, 'base64')] : []));
      assert.equal(images.length, apiCards.length);
      for (const [index, bytes] of images.entries()) {
        const differing = differingFraction(await decodePng(bytes), apiCards[index]!);
        assert.ok(differing <= sameCardNoise, `card ${index + 1} differs in ${(differing * 100).toFixed(3)}% of its pixels`);
      }
    } finally {
      await client.close();
    }
  });

  it('refuses each failing request of the API tests in the same words through the API, the CLI and the MCP server, local and remote', async () => {
    // A request the CLI cannot express (null, a flag given as text) has no `cli` options.
    const failing: Array<{ body: Record<string, unknown>; cli?: string[] }> = [
      { body: { width: 5000 }, cli: ['--width', '5000'] },
      { body: { height: 10 }, cli: ['--height', '10'] },
      { body: { scale: 8 }, cli: ['--scale', '8'] },
      { body: { width: '440px' }, cli: ['--width', '440px'] },
      { body: { width: null } },
      { body: { mdxMode: 'yes' } },
      { body: { splitMode: 'pages' }, cli: ['--split', 'pages'] },
      { body: { format: 'gif' }, cli: ['--format', 'gif'] },
      { body: { theme: 'no-such-theme' }, cli: ['--theme', 'no-such-theme'] },
      { body: { markdown: 'a'.repeat(100_001) }, cli: [] },
      // Laid out, then refused as too tall for one WebP image: the core's content_too_large.
      { body: { markdown: 'Line  \n'.repeat(260), format: 'webp', scale: 3 }, cli: ['--format', 'webp', '--scale', '3'] },
    ];
    const dir = temporaryDir();
    const mcp = async (env: Record<string, string>) => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [cliBin, 'mcp'], env: { ...cleanEnv(), ...env }, stderr: 'pipe' });
      const client = new Client({ name: 'cardwright-test', version: '1.0.0' });
      await client.connect(transport);
      return client;
    };
    buildIfStale();
    const [local, remote] = await Promise.all([mcp({ CARDWRIGHT_OUTPUT_DIR: dir }), mcp({ CARDWRIGHT_URL: service.baseUrl, CARDWRIGHT_API_KEY: testApiKey })]);
    const toolError = async (client: Client, body: Record<string, unknown>) => {
      const result = (await client.callTool({ name: renderToolName, arguments: { ...body, inline: 'none' } }, undefined, { timeout: 120_000 })) as CallToolResult;
      assert.equal(result.isError, true, `the MCP server accepted ${JSON.stringify(body).slice(0, 80)}`);
      return (result.content[0] as { text: string }).text;
    };
    // The CLI in this process: the command's own code and its own report of the failure.
    const cliError = async (body: Record<string, unknown>, options: string[]) => {
      const file = path.join(dir, 'doc.md');
      fs.writeFileSync(file, typeof body.markdown === 'string' ? body.markdown : '# Hello, cardwright');
      const failure = await runRender([file, '-o', path.join(dir, 'out'), ...options]).then(
        () => assert.fail(`the CLI accepted ${options.join(' ')}`),
        (error: unknown) => failureReport(error),
      );
      assert.equal(failure.exitCode, 2);
      return failure.text.replace(/^cardwright: /, '').trimEnd();
    };
    try {
      for (const { body, cli } of failing) {
        const { status, json } = await service.generate(body);
        const api = `${json.error}: ${json.message}`;
        const name = JSON.stringify(body).slice(0, 80);
        assert.equal(status, 400, `${name}: ${api}`);
        assert.match(api, /^invalid_request: /);
        assert.equal(await toolError(local, body), api, `${name}: the local MCP server`);
        assert.equal(await toolError(remote, body), api, `${name}: the remote MCP server`);
        if (cli) assert.equal(await cliError(body, cli), api, `${name}: the CLI`);
      }
    } finally {
      await Promise.all([local.close(), remote.close()]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the live preview shows the cards the API stores', async () => {
    const response = await fetch(`${service.baseUrl}/api/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...request, markdown }),
    });
    assert.equal(response.status, 200);
    const preview = (await response.json()) as { cards: Array<{ image: string; width: number; height: number }> };
    assert.equal(preview.cards.length, apiCards.length);
    for (const [index, card] of preview.cards.entries()) {
      assert.deepEqual([card.width, card.height], [request.width, request.height]);
      const shown = await decodeWebp(await previewImage(service.baseUrl, card.image));
      const difference = meanDifference(shown, apiCards[index]!);
      assert.ok(difference < 2.5, `card ${index + 1}: mean difference ${difference.toFixed(2)} of 255 is more than WebP's loss`);
    }
  });

  it('the noSplit preview fits wide tables as Generate does: its markup, laid out by a browser, is the stored card', async () => {
    const tenColumns = [
      '| Region | Requests | Latency | Errors | Replicas | Shards | Memory | Disk | Owner | Status |',
      '|---|---|---|---|---|---|---|---|---|---|',
      '| us-east | 12,345 | 41ms | 0.1% | 3 | 12 | 2GiB | 80GB | operations | healthy |',
    ].join('\n');
    const body = { markdown: `# Regions\n\n${tenColumns}\n\nThe table above is wider than the card.`, theme: 'business', splitMode: 'noSplit', scale: 1, format: 'png' };
    const { json } = await service.generate(body);
    const stored = await decodePng((await download(json.images[0].url)).bytes);
    const response = await fetch(`${service.baseUrl}/api/preview`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const preview = (await response.json()) as { cards: Array<{ html: string }> };
    assert.equal(typeof preview.cards[0]!.html, 'string', 'a noSplit preview is markup');
    const drawn = async (markup: string) =>
      await decodePng(await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => page.capture((await page.layout(markup))[0]!, { scale: 1, format: 'png' })));
    const shown = await drawn(preview.cards[0]!.html);
    assert.deepEqual([shown.width, shown.height], [stored.width, stored.height], 'same size');
    assert.equal(differingFraction(shown, stored), 0, 'the preview markup draws the stored card');
    // The markup of the document as written (what the preview showed before) draws another card.
    const theme = service.app.cards.themes.get(body.theme)!;
    const { html } = await renderMarkdown(body.markdown);
    const unfitted = await drawn(singleCardMarkup({ ...normalizeRequest(body as GenerateBodyInput), theme, mode: undefined, contentHtml: html }));
    assert.ok(unfitted.height !== stored.height || differingFraction(unfitted, stored) > 0.01, 'the table as written is drawn differently');
  });

  it('the noSplit preview of an overHiddenMode card is the card Generate stores, cut at its last whole line', async () => {
    const body = { markdown, theme: 'warm', splitMode: 'noSplit', overHiddenMode: true, width: 440, height: 400, scale: 1, format: 'png' };
    const { json } = await service.generate(body);
    const stored = await decodePng((await download(json.images[0].url)).bytes);
    const response = await fetch(`${service.baseUrl}/api/preview`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const preview = (await response.json()) as { cards: Array<{ image?: string; width: number; height: number }> };
    assert.equal(preview.cards.length, 1);
    const card = preview.cards[0]!;
    assert.ok(card.image, 'shown as the captured card');
    assert.deepEqual([card.width, card.height], [440, 400]);
    const shown = await decodeWebp(await previewImage(service.baseUrl, card.image));
    const difference = meanDifference(shown, stored);
    assert.ok(difference < 2.5, `mean difference ${difference.toFixed(2)} of 255 is more than WebP's loss`);
  });

  it('a different request gives different pixels, so the comparisons above can fail', async () => {
    const { json } = await service.generate({ ...request, markdown, themeMode: 'purple-mode' });
    const other = await decodePng((await download(json.images[0].url)).bytes);
    assert.ok(differingFraction(other, apiCards[0]!) > 0.05);
    assert.ok(meanDifference(other, apiCards[0]!) > 2.5, 'another mode is further from the card than the preview may be');
  });
});
