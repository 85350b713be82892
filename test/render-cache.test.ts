// The render cache: an identical repeated request is answered with the images already stored;
// anything that changes the pixels (format, scale, theme, mode, size, content) renders anew.
// Its two services also carry the jobs API on the real pipeline: a batch with a signed, retried
// callback, and a job left unfinished by the first service that the second finishes.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { download, isPng } from './helpers/images.js';
import { postJson } from './helpers/post-json.js';
import { startService, temporaryDir, testApiKey, type RunningService } from './helpers/service.js';

const otherKey = 'second-key-0123456789abcdef';
const webhookSecret = 'webhook-secret-0123456789abcdef';

/** A callback receiver on loopback that answers 500 to its first `failFirst` calls. */
function callbackReceiver(failFirst: number) {
  const calls: { headers: http.IncomingHttpHeaders; body: string; status: number }[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = calls.length < failFirst ? 500 : 200;
      calls.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      response.statusCode = status;
      response.end();
    });
  });
  return { server, calls };
}

// The same service runs jobs: its settings (a webhook secret, the receiver allow-listed, short
// retries) change nothing of the cache's behaviour, and a second service start would cost ~10 s.
const receiver = callbackReceiver(2);
// Both services of this file keep their state here: the first stops with a job unfinished, and the
// second, started on the same folder, must finish it (jobs survive a restart).
const dataDir = temporaryDir();
let unfinishedJob: string | undefined;

describe('render cache', () => {
  let service: RunningService;
  before(async () => {
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.server.address() as net.AddressInfo;
    service = await startService({
      DATA_DIR: dataDir,
      API_KEYS: `${testApiKey},${otherKey}`,
      WEBHOOK_SECRET: webhookSecret,
      WEBHOOK_ALLOWLIST: `127.0.0.1:${port}`,
      WEBHOOK_RETRY_MS: '50',
    });
  });
  after(async () => {
    receiver.server.close();
    if (!unfinishedJob) await service.close();
  });

  it('runs a batch as a job: each answer as POST /api/generate gives it, then one signed callback, retried after failures', async () => {
    const { port } = receiver.server.address() as net.AddressInfo;
    // Twenty, as an automation flow sends a day's notes: three compared with POST /api/generate, the rest small.
    const compared = [{ markdown: '# Job one' }, { markdown: '# Job two', format: 'jpeg' }, { markdown: '# Job three', width: 300, height: 300 }];
    const themes = ['plain-notes', 'darktech', 'minimal', 'warm'];
    const small = Array.from({ length: 17 }, (_, i) => ({ markdown: `# Note ${i + 4}\n\nOne of a day's notes.`, theme: themes[i % themes.length], width: 200, height: 200, scale: 1 }));
    const requests = [...compared, ...small];
    const accepted = await postJson(service.baseUrl, '/api/jobs', { requests, callbackUrl: `http://127.0.0.1:${port}/hook` }, { 'x-api-key': testApiKey });
    assert.equal(accepted.status, 202, JSON.stringify(accepted.json));
    const { id, statusUrl } = accepted.json;
    let job: any;
    for (let poll = 0; poll < 600; poll++) {
      job = await (await fetch(statusUrl, { headers: { 'x-api-key': testApiKey } })).json();
      if (job.state === 'done' || job.state === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(job.state, 'done', JSON.stringify(job));
    assert.deepEqual(job.progress, { done: 20, total: 20 });
    assert.deepEqual(job.results.map((result: { index: number; status: number }) => [result.index, result.status]), requests.map((_, i) => [i, 200]));
    assert.equal(new Set(job.results.map((result: { body: { images: { url: string }[] } }) => result.body.images[0]!.url)).size, 20, 'a distinct image for every request');
    for (const { body } of job.results.slice(3)) assert.deepEqual([body.images.length, body.images[0].width, body.images[0].height], [1, 200, 200]);
    for (const [index, request] of compared.entries()) {
      const direct = await service.generate(request);
      const result = job.results[index];
      assert.equal(result.status, direct.status);
      assert.deepEqual(Object.keys(result.body).sort(), Object.keys(direct.json).sort());
      assert.deepEqual(
        result.body.images.map((image: { width: number; height: number; fileName: string }) => [image.width, image.height, image.fileName.split('.').pop()]),
        direct.json.images.map((image: { width: number; height: number; fileName: string }) => [image.width, image.height, image.fileName.split('.').pop()]),
      );
      const { response } = await download(result.body.images[0].url);
      assert.equal(response.status, 200);
    }

    for (let wait = 0; wait < 100 && receiver.calls.length < 3; wait++) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(receiver.calls.map((call) => call.status), [500, 500, 200], 'two failures, then delivered once');
    for (const call of receiver.calls) {
      const timestamp = String(call.headers['x-cardwright-timestamp']);
      const expected = `sha256=${createHmac('sha256', webhookSecret).update(`${timestamp}.${call.body}`).digest('hex')}`;
      assert.equal(call.headers['x-cardwright-signature'], expected);
      assert.equal(call.headers['x-cardwright-job'], id);
      assert.ok(Math.abs(Date.now() / 1000 - Number(timestamp)) < 60);
    }
    assert.deepEqual(JSON.parse(receiver.calls[2]!.body), job);
  });

  it('answers an identical request with the same stored images, without rendering again', async () => {
    const body = { markdown: '# Cached\n\nSame input, same card.' };
    const first = await service.generate(body);
    const second = await service.generate(body);
    assert.equal(first.headers.get('x-cache'), 'miss');
    assert.equal(second.headers.get('x-cache'), 'hit');
    assert.deepEqual(second.json, first.json);
    const { bytes, response } = await download(second.json.images[0].url);
    assert.equal(response.status, 200);
    assert.ok(isPng(bytes));
  });

  it("tells a hit the content's own warnings, as the render that stored it did", async () => {
    // A pie chart whose legend is too wide for its text to stay legible on the card, even folded under the pie.
    const body = { markdown: '```mermaid\npie\n  "第一季度市场推广与品牌建设的全部线上线下活动费用合计以及第二季度的渠道拓展与用户增长投入和第三季度的内容制作预算" : 60\n  "其他" : 40\n```', themeMode: 'no-such-mode' };
    const first = await service.generate(body);
    const second = await service.generate(body);
    assert.equal(second.headers.get('x-cache'), 'hit');
    assert.equal(first.json.warnings.length, 2, JSON.stringify(first.json.warnings));
    assert.match(first.json.warnings[1], /^A pie diagram is drawn with text of /);
    assert.deepEqual(second.json.warnings, first.json.warnings);
  });

  it('does not remember a card whose remote image could not be loaded', async () => {
    // Loopback addresses are refused to remote images, so the image is drawn as a placeholder.
    const body = { markdown: '# Placeholder\n\n![a chart](http://127.0.0.1:9/chart.png)' };
    const first = await service.generate(body);
    const second = await service.generate(body);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(first.headers.get('x-cache'), 'miss');
    assert.equal(second.headers.get('x-cache'), 'miss', 'the same request renders again, so the image may load this time');
    assert.notEqual(second.json.images[0].url, first.json.images[0].url);
  });

  it('treats an alias and an omitted default mode as the same request', async () => {
    const markdown = '# Alias';
    const first = await service.generate({ markdown, theme: 'plain-notes', themeMode: 'light-mode' });
    const second = await service.generate({ markdown, theme: 'apple-notes' });
    assert.equal(second.headers.get('x-cache'), 'hit');
    assert.equal(second.json.images[0].url, first.json.images[0].url);
  });

  it('never crosses formats, scales, font scales, modes, sizes or content', async () => {
    const base = { markdown: '# Variants' };
    const variants = [
      base,
      { ...base, format: 'jpeg' },
      { ...base, scale: 1 },
      { ...base, fontScale: 1.5 },
      { ...base, themeMode: 'dark-mode' },
      { ...base, width: 500 },
      { ...base, overHiddenMode: true },
      { markdown: '# Variants!' },
    ];
    const urls = [];
    for (const body of variants) {
      const { status, json, headers } = await service.generate(body);
      assert.equal(status, 200);
      assert.equal(headers.get('x-cache'), 'miss', JSON.stringify(body));
      urls.push(json.images[0].url);
    }
    assert.equal(new Set(urls).size, variants.length);
  });

  it('keeps each API key\'s renders to itself', async () => {
    const body = { markdown: '# Per key' };
    const mine = await service.generate(body);
    const theirs = await service.generate(body, { 'x-api-key': otherKey });
    assert.equal(theirs.headers.get('x-cache'), 'miss');
    assert.notEqual(theirs.json.images[0].url, mine.json.images[0].url);
  });
  // Last: it stops this service.
  it('stops with a job under way, leaving it for the next start', async () => {
    const requests = [1, 2, 3].map((n) => ({ markdown: `# Restarted job ${n}`, width: 200, height: 200, scale: 1 }));
    const accepted = await postJson(service.baseUrl, '/api/jobs', { requests }, { 'x-api-key': testApiKey });
    assert.equal(accepted.status, 202);
    unfinishedJob = accepted.json.id;
    await service.close();
    const left = JSON.parse(fs.readFileSync(path.join(dataDir, 'jobs', `${unfinishedJob}.json`), 'utf8'));
    assert.notEqual(left.state, 'done', 'the job had not finished when the service stopped');
  });
});

describe('render cache turned off', () => {
  let service: RunningService;
  before(async () => {
    service = await startService({ RENDER_CACHE: 'off', DATA_DIR: dataDir });
  });
  after(async () => {
    await service.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the job the stopped service left, on the same data folder', async () => {
    assert.ok(unfinishedJob, 'the first service left a job');
    let job: any;
    for (let poll = 0; poll < 600; poll++) {
      job = await (await fetch(`${service.baseUrl}/api/jobs/${unfinishedJob}`, { headers: { 'x-api-key': testApiKey } })).json();
      if (job.state === 'done' || job.state === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(job.state, 'done', JSON.stringify(job));
    assert.deepEqual(job.progress, { done: 3, total: 3 });
    for (const result of job.results) assert.equal((await download(result.body.images[0].url)).response.status, 200);
  });

  it('renders every request anew', async () => {
    const body = { markdown: '# Not cached' };
    const first = await service.generate(body);
    const second = await service.generate(body);
    assert.equal(second.headers.get('x-cache'), null);
    assert.notEqual(second.json.images[0].url, first.json.images[0].url);
  });
});
