// A quick pass over every way in, for checking that the service runs on another Node release
// (scripts/smoke-on-node.sh runs this file on Node 24 and 22; the full suite runs on the machine's
// Node). One service: a card, a preview, a Mermaid diagram; then the MCP server calling that
// service, and the CLI rendering on its own. It lives below test/ so the full suite, which covers
// all of this in depth, does not run it a second time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildIfStale } from '../helpers/build.js';
import { cleanEnv, cliBin, runCli } from '../helpers/cli.js';
import { decodePng, distinctColours, download, isPng, previewImage } from '../helpers/images.js';
import { postJson } from '../helpers/post-json.js';
import { startService, temporaryDir, testApiKey, type RunningService } from '../helpers/service.js';

describe(`smoke test on Node ${process.version}`, () => {
  let service: RunningService;
  let folder: string;
  before(async () => {
    folder = temporaryDir('cardwright-smoke-');
    service = await startService();
  });
  after(async () => {
    await service.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('generates a card that is served at its URL', async () => {
    const { status, json } = await service.generate({ markdown: '# 你好 Smoke 🚀\n\nA card, with $e^{i\\pi} + 1 = 0$.', theme: 'plain-notes' });
    assert.equal(status, 200, JSON.stringify(json));
    const { bytes, response } = await download(json.images[0].url);
    assert.equal(response.status, 200);
    assert.ok(isPng(bytes));
    const png = await decodePng(bytes);
    assert.deepEqual([png.width, png.height], [880, 1172]);
    assert.ok(distinctColours(png) > 50, 'the card shows text, not a blank page');
  });

  it('previews a card as HTML, with a Mermaid diagram drawn as a picture', async () => {
    const markdown = '# Flow\n\n```mermaid\nflowchart LR\n  A[Markdown] --> B[Card]\n```';
    const { status, json } = await postJson(service.baseUrl, '/api/preview', { markdown });
    assert.equal(status, 200, JSON.stringify(json));
    const html: string = json.cards[0].html;
    assert.doesNotMatch(html, /diagram-error/);
    // Shown by address: the preview's own copy of the drawn image.
    const picture = /<figure class="diagram"[^>]*><img src="(\/api\/preview\/images\/[0-9a-f]{40})"[^>]* alt="([^"]*)">/.exec(html);
    assert.ok(picture, 'the diagram is a picture');
    assert.match(picture[2]!, /^Flowchart/);
    assert.ok(distinctColours(await decodePng(await previewImage(service.baseUrl, picture[1]!))) > 10, 'the diagram is drawn');
  });

  it('runs the MCP server, which renders through the service', async () => {
    buildIfStale();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp'],
      env: { ...cleanEnv(), CARDWRIGHT_URL: service.baseUrl, CARDWRIGHT_API_KEY: testApiKey },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cardwright-smoke', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'render_cards'));
      const result = (await client.callTool({ name: 'render_cards', arguments: { markdown: '# MCP', width: 300, height: 400, scale: 1 } }, undefined, { timeout: 60_000 })) as CallToolResult;
      assert.notEqual(result.isError, true, JSON.stringify(result.content[0]));
      const image = result.content.find((item) => item.type === 'image');
      assert.ok(image?.type === 'image');
      const png = await decodePng(Buffer.from(image.data, 'base64'));
      assert.deepEqual([png.width, png.height], [300, 400]);
    } finally {
      await client.close();
    }
  });

  it('keeps the code Node compiles for the next start, on Node 22.1 and later', { skip: !('enableCompileCache' in module) && 'Node 20 has no compile cache' }, async () => {
    // A temporary folder of the test's own: Node's default cache folder is node-compile-cache in it.
    const tmp = path.join(folder, 'tmp');
    fs.mkdirSync(tmp);
    assert.equal(process.env.NODE_COMPILE_CACHE, undefined, 'run without NODE_COMPILE_CACHE, which would choose the folder instead');
    const { code, stderr } = await runCli(['themes'], { cwd: folder, env: { TMPDIR: tmp } });
    assert.equal(code, 0, stderr);
    const cached = fs.readdirSync(path.join(tmp, 'node-compile-cache'), { recursive: true });
    assert.ok(cached.length > 20, `the CLI's modules are cached: ${cached.length} entries`);
  });

  it('renders a file with the CLI', async () => {
    fs.writeFileSync(path.join(folder, 'notes.md'), '# Notes\n\n- first\n- second\n');
    const { code, stdout, stderr } = await runCli(['render', 'notes.md', '-o', 'out/', '--format', 'png'], { cwd: folder });
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `${path.join('out', 'notes-1.png')}\n`);
    assert.ok(isPng(fs.readFileSync(path.join(folder, 'out', 'notes-1.png'))));
  });
});
