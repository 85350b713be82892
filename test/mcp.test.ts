// The MCP server, driven the way an agent's client drives it: the SDK's own Client over stdio,
// spawning `cardwright mcp`, in both modes (local rendering, and a remote cardwright over HTTP).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildCli, cleanEnv, cliBin } from './helpers/cli.js';
import { decodePng, download, isPng } from './helpers/images.js';
import { startService, temporaryDir, testApiKey, type RunningService } from './helpers/service.js';

interface Session {
  client: Client;
  transport: StdioClientTransport;
}

async function connect(env: Record<string, string>): Promise<Session> {
  buildCli();
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliBin, 'mcp'], env: { ...cleanEnv(), ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'cardwright-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function callTool(session: Session, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await session.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  assert.equal(first?.type, 'text');
  return first.text;
}

function imagesOf(result: CallToolResult): Buffer[] {
  return result.content.flatMap((item) => (item.type === 'image' ? [Buffer.from(item.data, 'base64')] : []));
}

/** Process IDs of every descendant of `pid` (the browser and its helpers, for the MCP server). */
function descendantsOf(pid: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  for (let parents = [pid]; parents.length > 0; ) {
    parents = rows.filter(([, ppid]) => parents.includes(ppid)).map(([child]) => child);
    found.push(...parents);
  }
  return found;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Closes the client and checks the server process and its browser are gone. */
async function closeAndCheckExit(session: Session): Promise<void> {
  const pid = session.transport.pid;
  assert.ok(pid);
  const children = descendantsOf(pid);
  await session.client.close();
  assert.equal(isAlive(pid), false, 'the MCP server exited when its client closed');
  // Chromium's helper processes end a moment after the browser itself: give them up to 5 s.
  for (let attempt = 0; attempt < 50 && children.some(isAlive); attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(children.filter(isAlive), [], 'no browser process outlives the MCP server');
}

describe('cardwright mcp, rendering locally', () => {
  let session: Session;
  let outputDir: string;
  before(async () => {
    outputDir = temporaryDir('cardwright-mcp-');
    session = await connect({ CARDWRIGHT_OUTPUT_DIR: outputDir });
  });
  after(async () => {
    await closeAndCheckExit(session);
    fs.rmSync(outputDir, { recursive: true, force: true });
  });

  it('lists a render tool whose input schema is the API request schema, and a themes tool', async () => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['list_themes', 'render_cards']);
    const render = tools.find((tool) => tool.name === 'render_cards')!;
    const properties = render.inputSchema.properties as Record<string, any>;
    for (const field of ['markdown', 'theme', 'themeMode', 'width', 'height', 'splitMode', 'mdxMode', 'overHiddenMode', 'format', 'scale', 'weChatMode', 'background', 'path', 'outputDir']) {
      assert.ok(properties[field], `the render tool takes ${field}`);
    }
    assert.equal(properties.width.anyOf[0].minimum, 100);
    assert.equal(properties.width.anyOf[0].maximum, 2000);
  });

  it('lists themes with their modes', async () => {
    const result = await callTool(session, 'list_themes', {});
    assert.notEqual(result.isError, true);
    const listing = JSON.parse(textOf(result));
    const plain = listing.themes.find((theme: { id: string }) => theme.id === 'plain-notes');
    assert.deepEqual(plain.modes, ['light-mode', 'dark-mode']);
  });

  it('renders Markdown and returns file URLs and the images themselves', async () => {
    const result = await callTool(session, 'render_cards', { markdown: '# 你好 MCP\n\nA card for an agent.', themeMode: 'dark-mode', width: 300, height: 400, scale: 1 });
    assert.notEqual(result.isError, true, JSON.stringify(result.content[0]));
    const { images } = JSON.parse(textOf(result));
    assert.equal(images.length, 1);
    assert.deepEqual([images[0].width, images[0].height], [300, 400]);
    assert.match(images[0].url, /^file:\/\//);
    const file = fileURLToPath(images[0].url);
    assert.equal(path.dirname(file), outputDir);

    const [returned] = imagesOf(result);
    assert.ok(returned && isPng(returned));
    const png = decodePng(returned);
    assert.deepEqual([png.width, png.height], [300, 400]);
    assert.ok(png.data[(350 * png.width + 150) * 4]! < 60, 'dark mode paper');
    assert.deepEqual(fs.readFileSync(file), returned, 'the returned image is the written file');
    assert.equal(images[0].bytes, returned.length);
  });

  it('reads Markdown from a path and names the files after it', async () => {
    const markdownFile = path.join(outputDir, 'agenda.md');
    fs.writeFileSync(markdownFile, '# Agenda\n\n1. One\n2. Two');
    const result = await callTool(session, 'render_cards', { path: markdownFile, format: 'png' });
    assert.notEqual(result.isError, true, JSON.stringify(result.content[0]));
    const { images } = JSON.parse(textOf(result));
    assert.equal(images[0].fileName, path.join(outputDir, 'agenda-1.png'));
    assert.deepEqual([decodePng(imagesOf(result)[0]!).width, images[0].height], [880, 1172]);
  });

  it("answers bad arguments with a tool error carrying the API's message", async () => {
    const wrongType = await callTool(session, 'render_cards', { width: 'wide' });
    assert.equal(wrongType.isError, true);
    assert.equal(textOf(wrongType), 'invalid_request: width is not accepted: got "wide"; accepted: card width in CSS px, 100–2000.');

    const theme = await callTool(session, 'render_cards', { theme: 'pop-art-nope' });
    assert.equal(theme.isError, true);
    assert.match(textOf(theme), /^invalid_request: theme "pop-art-nope" is not a known theme\. Accepted: /);

    const both = await callTool(session, 'render_cards', { markdown: '# a', path: 'a.md' });
    assert.equal(both.isError, true);
    assert.match(textOf(both), /either markdown or path/);

    const missing = await callTool(session, 'render_cards', { path: path.join(outputDir, 'missing.md') });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /missing\.md cannot be read \(ENOENT\)/);
    assert.equal(imagesOf(missing).length, 0);
  });
});

describe('cardwright mcp, calling a remote cardwright', () => {
  let service: RunningService;
  let session: Session;
  before(async () => {
    service = await startService();
    session = await connect({ CARDWRIGHT_URL: service.baseUrl, CARDWRIGHT_API_KEY: testApiKey });
  });
  after(async () => {
    await closeAndCheckExit(session);
    await service.close();
  });

  it("returns the service's URLs and the images behind them", async () => {
    const result = await callTool(session, 'render_cards', { markdown: '# Remote card', theme: 'apple-notes' });
    assert.notEqual(result.isError, true, JSON.stringify(result.content[0]));
    const { images } = JSON.parse(textOf(result));
    assert.equal(images.length, 1);
    assert.ok(images[0].url.startsWith(`${service.baseUrl}/screenshots/`));
    const [returned] = imagesOf(result);
    const png = decodePng(returned!);
    assert.deepEqual([png.width, png.height], [880, 1172]);
    assert.deepEqual((await download(images[0].url)).bytes, returned);
  });

  it("lists the service's themes", async () => {
    const listing = JSON.parse(textOf(await callTool(session, 'list_themes', {})));
    assert.deepEqual(listing, await (await fetch(`${service.baseUrl}/api/themes`)).json());
  });

  it("passes the service's error label and message back as a tool error", async () => {
    const result = await callTool(session, 'render_cards', { scale: 9 });
    assert.equal(result.isError, true);
    assert.equal(textOf(result), 'invalid_request: scale is not accepted: got number 9; accepted: device pixels per CSS px, 1–3.');
  });

  it('reports a wrong API key as unauthorized', async () => {
    const wrongKey = await connect({ CARDWRIGHT_URL: service.baseUrl, CARDWRIGHT_API_KEY: 'cw_wrong-key-0000000000000' });
    try {
      const result = await callTool(wrongKey, 'render_cards', { markdown: '# hi' });
      assert.equal(result.isError, true);
      assert.equal(textOf(result), 'unauthorized: Send a valid API key in the x-api-key header.');
    } finally {
      await closeAndCheckExit(wrongKey);
    }
  });
});
