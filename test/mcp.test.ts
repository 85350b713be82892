// The MCP server, driven the way an agent's client drives it: the SDK's own Client over stdio,
// spawning `cardwright mcp`, in both modes (local rendering, and a remote cardwright over HTTP).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildIfStale } from './helpers/build.js';
import { cleanEnv, cliBin, runCli } from './helpers/cli.js';
import { decodePng, download, isPng } from './helpers/images.js';
import { eventually, listProcesses } from './helpers/processes.js';
import { startService, temporaryDir, testApiKey, type RunningService } from './helpers/service.js';

interface Session {
  client: Client;
  transport: StdioClientTransport;
}

async function connect(env: Record<string, string>): Promise<Session> {
  buildIfStale();
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

/** Process IDs of every live descendant of `pid` (the browser and its helpers, for the MCP server). */
function descendantsOf(pid: number): number[] {
  const rows = listProcesses().filter((p) => p.state !== 'Z');
  const found: number[] = [];
  for (let parents = [pid]; parents.length > 0; ) {
    parents = rows.filter((row) => parents.includes(row.ppid)).map((row) => row.pid);
    found.push(...parents);
  }
  return found;
}

/** Whether `pid` still runs. A zombie has ended: it only waits for its parent (or init) to reap it. */
const isRunning = (pid: number) => listProcesses().some((p) => p.pid === pid && p.state !== 'Z');

/**
 * Closes the client and checks the server process and its browser are gone. The SDK gives the
 * server 2 s after closing its stdin, then signals it, so on a loaded machine the exit is waited
 * for rather than expected at once; Chromium's helpers end a moment after the browser itself.
 */
async function closeAndCheckExit(session: Session, { launchedBrowser = false } = {}): Promise<void> {
  const pid = session.transport.pid;
  assert.ok(pid);
  const children = descendantsOf(pid);
  if (launchedBrowser) assert.ok(children.length > 0, 'the browser runs under the MCP server');
  await session.client.close();
  assert.ok(await eventually(() => !isRunning(pid), 10_000), 'the MCP server exited when its client closed');
  await eventually(() => !children.some(isRunning), 10_000);
  assert.deepEqual(children.filter(isRunning), [], 'no browser process outlives the MCP server');
}

describe('cardwright mcp, rendering locally', () => {
  let session: Session;
  let outputDir: string;
  before(async () => {
    outputDir = temporaryDir('cardwright-mcp-');
    session = await connect({ CARDWRIGHT_OUTPUT_DIR: outputDir });
  });
  after(async () => {
    await closeAndCheckExit(session, { launchedBrowser: true });
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
    assert.equal(properties.width.minimum, 100);
    assert.equal(properties.width.maximum, 2000);
  });

  it('gives every argument a plain type, so clients convert what is typed into a form', async () => {
    const { tools } = await session.client.listTools();
    const render = tools.find((tool) => tool.name === 'render_cards')!;
    const properties = render.inputSchema.properties as Record<string, any>;
    for (const [field, property] of Object.entries(properties)) {
      assert.equal(property.anyOf, undefined, `${field} has no anyOf`);
      assert.ok(property.type, `${field} has a type`);
    }
    assert.equal(properties.width.type, 'number');
    assert.deepEqual(properties.splitMode.type, ['string', 'null']);
    assert.deepEqual(properties.splitMode.enum, ['noSplit', 'autoSplit', 'hrSplit', '', null]);
    assert.deepEqual(properties.inline.enum, ['all', 'first', 'none']);
    assert.deepEqual(render.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
  });

  it('takes numbers and flags sent as text, as form-based clients send them', async () => {
    const result = await callTool(session, 'render_cards', { markdown: '# Typed', width: '300', height: '400', scale: '1', overHiddenMode: 'true' });
    assert.notEqual(result.isError, true, JSON.stringify(result.content[0]));
    const { images, warnings } = JSON.parse(textOf(result));
    assert.deepEqual([images[0].width, images[0].height], [300, 400]);
    // Numbers sent as text are read as the API reads them, and said so, naming each field.
    assert.deepEqual(warnings.map((warning: string) => warning.split(' ')[0]), ['width', 'height', 'scale']);
  });

  it('inlines the first image by default, all or none on request, within a byte cap', async () => {
    const markdown = '# One\n\n---\n\n# Two\n\n---\n\n# Three';
    const base = { markdown, splitMode: 'hrSplit', width: 200, height: 200, scale: 1, outputDir };
    const first = await callTool(session, 'render_cards', base);
    assert.notEqual(first.isError, true, JSON.stringify(first.content[0]));
    const described = JSON.parse(textOf(first)).images;
    assert.equal(described.length, 3);
    assert.deepEqual(described.map((image: { inlined: boolean }) => image.inlined), [true, false, false]);
    assert.equal(imagesOf(first).length, 1);
    assert.equal(imagesOf(await callTool(session, 'render_cards', { ...base, inline: 'all' })).length, 3);
    assert.equal(imagesOf(await callTool(session, 'render_cards', { ...base, inline: 'none' })).length, 0);

    const capped = await callTool(session, 'render_cards', { ...base, inline: 'all', inlineMaxBytes: described[0].bytes + 1 });
    assert.equal(imagesOf(capped).length, 1);
    assert.match(JSON.parse(textOf(capped)).note, /2 image\(s\) past inlineMaxBytes/);

    const wrong = await callTool(session, 'render_cards', { ...base, inline: 'some' });
    assert.equal(wrong.isError, true);
    assert.equal(textOf(wrong), 'invalid_request: inline must be one of all, first, none; got "some".');
  });

  it('gives a PDF (format "pdf", front matter and all) as one file and an embedded resource', async () => {
    const markdown = '---\ncover: true\ntitle: Deck\nsplitMode: hrSplit\n---\n# One\n\n---\n\n# Two';
    const result = await callTool(session, 'render_cards', { markdown, format: 'pdf', width: 200, height: 200, outputDir });
    assert.notEqual(result.isError, true, JSON.stringify(result.content[0]));
    const { images } = JSON.parse(textOf(result));
    assert.equal(images.length, 1);
    assert.match(images[0].fileName, /-1\.pdf$/);
    const resource = result.content.find((item) => item.type === 'resource');
    assert.ok(resource && resource.type === 'resource' && 'blob' in resource.resource);
    assert.equal(resource.resource.mimeType, 'application/pdf');
    assert.equal(Buffer.from(resource.resource.blob as string, 'base64').subarray(0, 5).toString('latin1'), '%PDF-');
  });

  it('refuses an outputDir that is a file or on a pseudo-filesystem, saying what to give', async () => {
    const file = path.join(outputDir, 'not-a-folder.txt');
    fs.writeFileSync(file, 'x');
    const intoFile = await callTool(session, 'render_cards', { markdown: '# a', outputDir: file });
    assert.equal(intoFile.isError, true);
    assert.match(textOf(intoFile), /^invalid_request: outputDir .*not-a-folder\.txt is not a folder: .* is a file\. Give a folder/);

    const underFile = await callTool(session, 'render_cards', { markdown: '# a', outputDir: path.join(file, 'below') });
    assert.match(textOf(underFile), /^invalid_request: outputDir .* is not a folder/);

    for (const pseudo of ['/proc/cardwright-out', '/sys/cardwright', '/proc/self/nope/deeper']) {
      const result = await callTool(session, 'render_cards', { markdown: '# a', outputDir: pseudo });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /^invalid_request: outputDir is \/(proc|sys)\/.*pseudo-filesystem.*choose a path outside/);
    }
  });

  it('refuses numbered files left by an earlier, longer result unless clean is set', async () => {
    const folder = path.join(outputDir, 'stale');
    const markdownFile = path.join(outputDir, 'talk.md');
    fs.writeFileSync(markdownFile, '# One\n\n---\n\n# Two');
    const args = { path: markdownFile, splitMode: 'hrSplit', width: 200, height: 200, scale: 1, outputDir: folder, inline: 'none' };
    assert.notEqual((await callTool(session, 'render_cards', args)).isError, true);
    fs.writeFileSync(markdownFile, '# Only one');
    const refused = await callTool(session, 'render_cards', args);
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /talk-2\.png from an earlier result.*pass clean: true to remove them/);
    const cleaned = await callTool(session, 'render_cards', { ...args, clean: true });
    assert.notEqual(cleaned.isError, true, JSON.stringify(cleaned.content[0]));
    assert.deepEqual(fs.readdirSync(folder), ['talk-1.png']);
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
    const png = await decodePng(returned);
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
    assert.deepEqual([(await decodePng(imagesOf(result)[0]!)).width, images[0].height], [880, 1172]);
  });

  it("answers bad arguments with a tool error carrying the API's message", async () => {
    const wrongType = await callTool(session, 'render_cards', { width: 'wide' });
    assert.equal(wrongType.isError, true);
    assert.equal(textOf(wrongType), 'invalid_request: width is not accepted: got "wide"; accepted: card width in CSS px, 100–2000.');
    // MCP Inspector sends null for a number it could not read ("abc"): an error, not a default card.
    const lost = await callTool(session, 'render_cards', { width: null });
    assert.equal(lost.isError, true);
    assert.equal(textOf(lost), 'invalid_request: width is not accepted: got null; accepted: card width in CSS px, 100–2000.');

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
    // Sizes as text, as MD2Card's MCP server passes them on (its 小红书 size, 440 × 586).
    const result = await callTool(session, 'render_cards', { markdown: '# Remote card', theme: 'apple-notes', width: '440', height: '586' });
    assert.notEqual(result.isError, true, JSON.stringify(result.content[0]));
    const { images } = JSON.parse(textOf(result));
    assert.equal(images.length, 1);
    assert.ok(images[0].url.startsWith(`${service.baseUrl}/screenshots/`));
    const [returned] = imagesOf(result);
    const png = await decodePng(returned!);
    assert.deepEqual([png.width, png.height], [880, 1172]);
    assert.deepEqual((await download(images[0].url)).bytes, returned);
    assert.deepEqual(JSON.parse(textOf(result)).warnings, [
      'width was sent as the string "440" and read as the number 440; send it as a JSON number.',
      'height was sent as the string "586" and read as the number 586; send it as a JSON number.',
    ]);
  });

  it('downloads only the images it inlines, and says the truth about what its tools do', async () => {
    const result = await callTool(session, 'render_cards', { markdown: '# A\n\n---\n\n# B', splitMode: 'hrSplit', width: 200, height: 200, scale: 1 });
    assert.notEqual(result.isError, true, JSON.stringify(result.content[0]));
    assert.equal(JSON.parse(textOf(result)).images.length, 2);
    assert.equal(imagesOf(result).length, 1);
    const { tools } = await session.client.listTools();
    const render = tools.find((tool) => tool.name === 'render_cards')!;
    assert.equal(render.annotations?.openWorldHint, true);
    assert.equal(render.annotations?.destructiveHint, false);
    assert.equal((render.inputSchema.properties as Record<string, unknown>).outputDir, undefined, 'no outputDir in remote mode');
  });

  it('renders a batch as a job of the service, or returns its id to check on later', async () => {
    const small = { width: 200, height: 200, scale: 1 };
    const result = await callTool(session, 'render_batch', { requests: [{ markdown: '# Batch one', ...small }, { markdown: '# Batch two', ...small, format: 'jpeg' }] });
    assert.notEqual(result.isError, true, JSON.stringify(result.content[0]));
    const job = JSON.parse(textOf(result));
    assert.equal(job.state, 'done');
    assert.deepEqual(job.results.map((answer: { status: number }) => answer.status), [200, 200]);
    for (const answer of job.results) assert.equal((await download(answer.body.images[0].url)).response.status, 200);

    const submitted = JSON.parse(textOf(await callTool(session, 'render_batch', { requests: [{ markdown: '# Later', ...small }], waitSeconds: 0 })));
    assert.match(submitted.note, new RegExp(`jobId "${submitted.id}"`));
    const checked = JSON.parse(textOf(await callTool(session, 'render_batch', { jobId: submitted.id })));
    assert.equal(checked.state, 'done');

    const bad = await callTool(session, 'render_batch', { requests: [{ markdown: '# fine' }, { scale: 9 }] });
    assert.equal(bad.isError, true);
    assert.equal(textOf(bad), 'invalid_request: requests[1]: scale is not accepted: got number 9; accepted: device pixels per CSS px, 1–3.');
  });

  it('refuses outputDir, which only local rendering writes to, saying what to do', async () => {
    const result = await callTool(session, 'render_cards', { markdown: '# a', outputDir: '/tmp/somewhere' });
    assert.equal(result.isError, true);
    assert.equal(
      textOf(result),
      `invalid_request: outputDir is for local rendering only: the cards of this MCP server are rendered by the cardwright service at ${service.baseUrl}, which stores the images and answers with their URLs. Leave outputDir out, or unset CARDWRIGHT_URL to render and write files here.`,
    );
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

describe('cardwright mcp, refusing bad settings at start-up', () => {
  it('names CARDWRIGHT_URL without a scheme, and folders on pseudo-filesystems, and exits', async () => {
    const noScheme = await runCli(['mcp'], { env: { CARDWRIGHT_URL: 'cards.example.com', CARDWRIGHT_API_KEY: testApiKey }, timeoutMs: 30_000 });
    assert.equal(noScheme.code, 1);
    assert.match(noScheme.stderr, /CARDWRIGHT_URL must be the service's absolute http\(s\) URL, such as https:\/\/cards\.example\.com; got "cards\.example\.com"/);

    const proc = await runCli(['mcp'], { env: { CARDWRIGHT_OUTPUT_DIR: '/proc/cardwright' }, timeoutMs: 30_000 });
    assert.equal(proc.code, 1);
    assert.match(proc.stderr, /CARDWRIGHT_OUTPUT_DIR is \/proc\/cardwright, on the kernel's \/proc pseudo-filesystem/);
  });
});
