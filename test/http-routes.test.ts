// The HTTP layer alone, on the server the service runs (createHttpServer + setUpService) around a
// stand-in core: keys, validation, the answers' shapes, how each failure of the core becomes a
// status and label, the preview budget, readiness. Through fastify.inject, in milliseconds; the
// same routes with the real pipeline behind them are tested over real HTTP (generate-api,
// web-routes, ops-*).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { CardError } from '../src/cards/errors.js';
import { createStorage } from '../src/cards/storage/create-storage.js';
import { loadConfig } from '../src/config.js';
import { createHttpServer } from '../src/http/http-server.js';
import { Metrics } from '../src/http/metrics.js';
import { setUpService } from '../src/http/set-up-service.js';
import { testApiKey, temporaryDir } from './helpers/service.js';
import { standInCards, storedImage, type StandInCards } from './helpers/stand-in-cards.js';

describe('HTTP routes around a stand-in core', () => {
  let server: FastifyInstance;
  let core: StandInCards;
  const dataDir = temporaryDir();

  before(async () => {
    const config = loadConfig({ DATA_DIR: dataDir, API_KEYS: testApiKey, PUBLIC_BASE_URL: 'http://cards.example', PREVIEW_BUDGET_BURST: '30', PREVIEW_BUDGET_PER_SECOND: '1' });
    core = standInCards();
    server = createHttpServer(config, false);
    await setUpService(server, { config, cards: core.cards, storage: await createStorage(config), metrics: new Metrics() });
    await server.ready();
  });
  after(async () => {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    core.calls.generate.length = 0;
    core.calls.preview.length = 0;
    core.answer.generate = undefined;
    core.answer.preview = undefined;
    core.answer.chargeImages = 0;
    core.answer.markdownCpuMs = undefined;
    core.answer.previewHeld = undefined;
    Object.assign(core.pool, { browserUp: true, queueFull: false, isDraining: false });
  });

  const generate = (body: unknown, key: string | null = testApiKey) =>
    server.inject({ method: 'POST', url: '/api/generate', headers: key ? { 'x-api-key': key } : {}, payload: body as object });

  it('refuses generate without a valid key before it reads the body, and never calls the core', async () => {
    for (const key of [null, 'not-a-key']) {
      const answer = await generate({ markdown: '# Hi', width: 'not even a number' }, key);
      assert.equal(answer.statusCode, 401);
      assert.equal(answer.json().error, 'unauthorized');
      assert.match(answer.json().message, /key/i);
    }
    assert.equal(core.calls.generate.length, 0);
  });

  it('answers a body the schema refuses with 400 invalid_request naming the field, and never calls the core', async () => {
    for (const [body, field] of [
      [{ markdown: '# Hi', width: 5000 }, /width/],
      [{ markdown: '# Hi', splitMode: 'sideways' }, /splitMode/],
      [{ markdown: 42 }, /markdown/],
    ] as const) {
      const answer = await generate(body);
      assert.equal(answer.statusCode, 400, JSON.stringify(body));
      const json = answer.json();
      assert.equal(json.error, 'invalid_request');
      assert.match(json.message, field);
      assert.equal(typeof json.requestId, 'string');
    }
    assert.equal(core.calls.generate.length, 0);
  });

  it('hands the core a normalized request with the key as cache scope, and answers in the MD2Card shape', async () => {
    core.answer.generate = { images: [storedImage(1), storedImage(2)], complete: true, warnings: ['a warning'], savedRequestId: 'saved-7', fromCache: true };
    const answer = await generate({ markdown: '# Hi', theme: 'xiaohongshu' });
    assert.equal(answer.statusCode, 200);
    const [call] = core.calls.generate;
    assert.equal(call?.request.markdown, '# Hi');
    assert.equal(call?.request.theme, 'xiaohongshu');
    assert.equal(call?.request.splitMode, 'noSplit', 'defaults are filled in before the core sees the request');
    assert.equal(call?.cacheScope, testApiKey);
    const json = answer.json();
    assert.equal(json.success, true);
    assert.equal(json.cost, 2);
    assert.deepEqual(
      json.images.map((image: { fileName: string }) => image.fileName),
      ['card-1.png', 'card-2.png'],
    );
    assert.deepEqual(json.warnings, ['a warning']);
    assert.match(json.previewUrl, /^http:\/\/cards\.example\//);
    assert.equal(answer.headers['x-cache'], 'hit');
    assert.deepEqual([answer.headers['x-cardwright-warnings']].flat(), ['a warning']);
  });

  it('maps each failure of the core to its status and label, with its message and Retry-After for busy', async () => {
    const cases: [Error, number, string][] = [
      [new CardError('invalid_request', 'The theme "x" does not exist.'), 400, 'invalid_request'],
      [new CardError('busy', 'Every renderer is busy.', { retryAfterSeconds: 3 }), 503, 'overloaded'],
      [new DOMException('the request did not finish within 30000 ms', 'TimeoutError'), 504, 'timeout'],
      [new CardError('render_failed', 'The browser failed twice.'), 500, 'render_failed'],
      [new CardError('storage_failed', 'The store refused the images.'), 502, 'storage_failed'],
      [new Error('a bug with internal details /etc/passwd'), 500, 'internal_error'],
    ];
    for (const [error, status, label] of cases) {
      core.answer.generate = error;
      const answer = await generate({ markdown: '# Hi' });
      assert.equal(answer.statusCode, status, label);
      const json = answer.json();
      assert.equal(json.error, label);
      if (error instanceof CardError) assert.equal(json.message, error.message);
      if (label === 'internal_error') assert.doesNotMatch(json.message, /passwd/, 'an unexpected error says nothing of its details');
      if (label === 'overloaded') assert.equal(answer.headers['retry-after'], '3');
    }
  });

  it('previews without a key, charging each client its budget until it answers 429', async () => {
    const preview = (ip: string) => server.inject({ method: 'POST', url: '/api/preview', remoteAddress: ip, payload: { markdown: '# Hi' } });
    const first = await preview('127.0.0.9');
    assert.equal(first.statusCode, 200);
    assert.equal(first.json().cards.length, 1);
    assert.equal(first.headers['cache-control'], 'no-store');

    // Each remote image costs the client; this one's budget (30 tokens, 1 a second) runs out.
    core.answer.chargeImages = 10;
    let refused: { statusCode: number; json(): any; headers: Record<string, unknown> } | undefined;
    for (let attempt = 0; attempt < 10 && !refused; attempt++) {
      const answer = await preview('127.0.0.9');
      if (answer.statusCode !== 200) refused = answer;
    }
    assert.equal(refused?.statusCode, 429);
    assert.equal(refused?.json().error, 'rate_limited');
    assert.ok(Number(refused?.headers['retry-after']) >= 1);
    // Another address has a budget of its own.
    core.answer.chargeImages = 0;
    assert.equal((await preview('127.0.0.10')).statusCode, 200);
  });

  it("charges a preview its Markdown's CPU time after the fact: a document heavy to highlight leaves its client's budget empty, never refusing the preview that ran", async () => {
    const preview = (ip: string) => server.inject({ method: 'POST', url: '/api/preview', remoteAddress: ip, payload: { markdown: '# Heavy' } });
    // 500 ms of CPU owes 50 tokens: this preview is answered, and its client's bucket (30) is left empty.
    core.answer.markdownCpuMs = 500;
    assert.equal((await preview('127.0.0.30')).statusCode, 200);
    core.answer.markdownCpuMs = 10;
    const next = await preview('127.0.0.30');
    assert.equal(next.statusCode, 429, next.body);
    assert.equal(next.json().error, 'rate_limited');
    // A light document owes nothing more, and another address has its own budget.
    assert.equal((await preview('127.0.0.31')).statusCode, 200);
    assert.equal((await preview('127.0.0.31')).statusCode, 200);
  });

  it('takes previews in turns per client: one running per address, two waiting behind it, more refused; other addresses go through meanwhile', async () => {
    // Previews of one address are held in the core until released, in the order they reached it.
    const held: Array<{ markdown: string; release: () => void }> = [];
    core.answer.previewHeld = (request) => new Promise<void>((release) => held.push({ markdown: request.markdown, release }));
    const preview = (ip: string, markdown: string) => server.inject({ method: 'POST', url: '/api/preview', remoteAddress: ip, payload: { markdown } });
    const answers = ['one', 'two', 'three'].map((markdown) => preview('127.0.0.20', markdown));
    while (held.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    // The fourth at once is refused: one running and two waiting are the most one address may have.
    const fourth = await preview('127.0.0.20', 'four');
    assert.equal(fourth.statusCode, 429);
    assert.equal(fourth.json().error, 'rate_limited');
    assert.match(fourth.json().message, /already has 3 previews in progress or waiting/);
    assert.equal(fourth.headers['retry-after'], '1');
    assert.equal(held.length, 1, 'only the first preview of the address reached the core');
    // Another address is not held behind them.
    const other = preview('127.0.0.21', 'other');
    while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    held[1]!.release();
    assert.equal((await other).statusCode, 200);
    // The address's previews reach the core one after the other, in the order they came.
    for (const expected of ['one', 'two', 'three']) {
      const turn = held.find((entry) => entry.markdown === expected);
      assert.ok(turn, `${expected} reached the core`);
      assert.equal(held.filter((entry) => entry.markdown !== 'other').length, ['one', 'two', 'three'].indexOf(expected) + 1, 'one at a time');
      turn.release();
      while (held.filter((entry) => entry.markdown !== 'other').length < Math.min(3, ['one', 'two', 'three'].indexOf(expected) + 2)) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    for (const answer of await Promise.all(answers)) assert.equal(answer.statusCode, 200);
    // Once they are done, the address may preview again.
    core.answer.previewHeld = undefined;
    assert.equal((await preview('127.0.0.20', 'again')).statusCode, 200);
  });

  it('is ready only while the store writes, the browser is up, the queue has room and it is not stopping', async () => {
    assert.equal((await server.inject('/ready')).statusCode, 200);
    for (const [field, value, reason] of [
      ['browserUp', false, 'browser'],
      ['queueFull', true, 'queue'],
      ['isDraining', true, 'draining'],
    ] as const) {
      Object.assign(core.pool, { browserUp: true, queueFull: false, isDraining: false, [field]: value });
      const answer = await server.inject('/ready');
      assert.equal(answer.statusCode, 503, field);
      assert.equal(typeof answer.json()[reason], 'string', field);
      assert.equal((await server.inject('/health')).statusCode, 200, '/health stays 200: the process answers');
    }
  });

  it('lists the themes of the registry, and answers an unknown route in the error shape', async () => {
    const themes = await server.inject('/api/themes');
    assert.equal(themes.statusCode, 200);
    assert.ok(JSON.stringify(themes.json()).includes('xiaohongshu'));
    const missing = await server.inject('/api/nothing-here');
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error, 'not_found');
  });
});

describe('jobs around a stand-in core', () => {
  const otherKey = 'other-key-0123456789abcdef';
  const dataDir = temporaryDir();
  let receiver: http.Server;
  let receiverPort: number;
  const settings = () => ({
    DATA_DIR: dataDir,
    API_KEYS: `${testApiKey},${otherKey}`,
    PUBLIC_BASE_URL: 'http://cards.example',
    WEBHOOK_SECRET: 'webhook-secret-0123456789',
    WEBHOOK_ALLOWLIST: `127.0.0.1:${receiverPort}`,
  });
  const startServer = async (env: Record<string, string>, core: StandInCards) => {
    const config = loadConfig(env);
    const server = createHttpServer(config, false);
    await setUpService(server, { config, cards: core.cards, storage: await createStorage(config), metrics: new Metrics() });
    await server.ready();
    return server;
  };
  const submit = (server: FastifyInstance, body: unknown, key = testApiKey) =>
    server.inject({ method: 'POST', url: '/api/jobs', headers: { 'x-api-key': key }, payload: body as object });
  const status = (server: FastifyInstance, id: string, key = testApiKey) => server.inject({ method: 'GET', url: `/api/jobs/${id}`, headers: { 'x-api-key': key } });
  const finished = async (server: FastifyInstance, id: string) => {
    for (let poll = 0; poll < 1000; poll++) {
      const job = (await status(server, id)).json();
      if (job.state === 'done' || job.state === 'failed') return job;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`job ${id} did not finish`);
  };
  const jobFiles = () => (fs.existsSync(path.join(dataDir, 'jobs')) ? fs.readdirSync(path.join(dataDir, 'jobs')) : []);

  before(async () => {
    receiver = http.createServer((_request, response) => response.end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverPort = (receiver.address() as net.AddressInfo).port;
  });
  after(async () => {
    receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a bad batch up front, naming the request, and queues nothing', async () => {
    const core = standInCards();
    const server = await startServer(settings(), core);
    try {
      const unauthorized = await submit(server, { markdown: '# Hi' }, 'not-a-key');
      assert.equal(unauthorized.statusCode, 401);
      const cases: [unknown, RegExp][] = [
        [{ requests: [{ markdown: '# One' }, { markdown: '# Two', width: 5000 }] }, /^requests\[1\]: .*width/],
        [{ requests: [] }, /1 to 200/],
        [{ requests: Array.from({ length: 201 }, () => ({})) }, /1 to 200/],
        [{ requests: 'not a list' }, /1 to 200/],
        [[{ markdown: '# Hi' }], /JSON object/],
        [{ markdown: '# Hi', callbackUrl: 'ftp://example.com/hook' }, /http\(s\)/],
        [{ markdown: '# Hi', callbackUrl: 'http://10.0.0.1/hook' }, /10\.0\.0\.1 is not a public address/],
        [{ markdown: '# Hi', callbackUrl: 'http://127.0.0.1:1/hook' }, /WEBHOOK_ALLOWLIST/],
        [{ markdown: '# Hi', callbackUrl: 'http://localhost:1/hook' }, /not a public address/],
      ];
      for (const [body, message] of cases) {
        const answer = await submit(server, body);
        assert.equal(answer.statusCode, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(answer.json().error, 'invalid_request');
        assert.match(answer.json().message, message);
      }
      // The same message as POST /api/generate gives for that request.
      const generated = await server.inject({ method: 'POST', url: '/api/generate', headers: { 'x-api-key': testApiKey }, payload: { markdown: '# Two', width: 5000 } });
      assert.equal((await submit(server, { requests: [{}, { markdown: '# Two', width: 5000 }] })).json().message, `requests[1]: ${generated.json().message}`);
      assert.deepEqual(jobFiles(), []);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(core.calls.generate.length, 0, 'the core was never called');
    } finally {
      await server.close();
    }
  });

  it('refuses a callbackUrl when no WEBHOOK_SECRET is set', async () => {
    const server = await startServer({ ...settings(), WEBHOOK_SECRET: '' }, standInCards());
    try {
      const answer = await submit(server, { markdown: '# Hi', callbackUrl: `http://127.0.0.1:${receiverPort}/hook` });
      assert.equal(answer.statusCode, 400);
      assert.match(answer.json().message, /WEBHOOK_SECRET/);
    } finally {
      await server.close();
    }
  });

  it('answers 202 at once, then each request exactly as POST /api/generate answers it, to its own key only', async () => {
    const core = standInCards();
    const server = await startServer(settings(), core);
    try {
      const accepted = await submit(server, { requests: [{ markdown: '# One' }, { markdown: '# Two', width: '600' }], callbackUrl: `http://127.0.0.1:${receiverPort}/hook` });
      assert.equal(accepted.statusCode, 202);
      const { id, state, statusUrl } = accepted.json();
      assert.equal(state, 'queued');
      assert.ok(Buffer.from(id, 'base64url').length >= 12, 'at least 96 random bits');
      assert.equal(statusUrl, `http://cards.example/api/jobs/${id}`);
      const job = await finished(server, id);
      assert.equal(job.state, 'done');
      assert.deepEqual(job.progress, { done: 2, total: 2 });
      const direct = await server.inject({ method: 'POST', url: '/api/generate', headers: { 'x-api-key': testApiKey }, payload: { markdown: '# Two', width: '600' } });
      assert.deepEqual(job.results[1], { index: 1, status: 200, body: direct.json() });
      assert.equal(core.calls.generate[1]?.request.width, 600);

      core.answer.generate = new CardError('storage_failed', 'The store refused the images.');
      const failing = await finished(server, (await submit(server, { markdown: '# Hi' })).json().id);
      assert.equal(failing.state, 'failed');
      assert.deepEqual(failing.results[0].status, 502);
      assert.deepEqual({ ...failing.results[0].body, requestId: undefined }, { success: false, error: 'storage_failed', message: 'The store refused the images.', requestId: undefined });

      for (const [url, key] of [[`/api/jobs/${id}`, otherKey], ['/api/jobs/AAAAAAAAAAAAAAAAAAAAAA', testApiKey], ['/api/jobs/..%2F..%2Fapi-keys', testApiKey]] as const) {
        const answer = await server.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
        assert.equal(answer.statusCode, 404, url);
        assert.equal(answer.json().error, 'not_found');
      }
      assert.equal((await server.inject({ method: 'GET', url: `/api/jobs/${id}` })).statusCode, 401);
    } finally {
      await server.close();
    }
  });

  it('waits and tries again a request refused only because the service is busy', async () => {
    const core = standInCards();
    core.answer.generate = new CardError('busy', 'Every renderer is busy.', { retryAfterSeconds: 1 });
    core.answer.generateHeld = async () => {
      if (core.calls.generate.length === 2) core.answer.generate = undefined;
    };
    const server = await startServer(settings(), core);
    try {
      const job = await finished(server, (await submit(server, { markdown: '# Hi' })).json().id);
      assert.equal(job.state, 'done');
      assert.equal(job.results[0].status, 200);
      assert.equal(core.calls.generate.length, 2);
    } finally {
      await server.close();
    }
  });

  it('takes up an unfinished job after a restart, without redoing the requests already answered', async () => {
    const first = standInCards();
    let release = () => {};
    first.answer.generateHeld = async (request) => {
      if (request.markdown === '# Two') await new Promise<void>((resolve) => (release = resolve));
    };
    let server = await startServer(settings(), first);
    const { id } = (await submit(server, { requests: [{ markdown: '# One' }, { markdown: '# Two' }, { markdown: '# Three' }] })).json();
    while (first.calls.generate.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    // Stopped while the second request is being rendered.
    const closed = server.close();
    // The request ends only once the service is stopping: its answer is not recorded.
    setTimeout(() => release(), 100);
    await closed;
    const second = standInCards();
    server = await startServer(settings(), second);
    try {
      const job = await finished(server, id);
      assert.equal(job.state, 'done');
      assert.deepEqual(job.progress, { done: 3, total: 3 });
      assert.deepEqual(
        second.calls.generate.map((call) => call.request.markdown),
        ['# Two', '# Three'],
        'the first request was answered before the restart and is not run again',
      );
    } finally {
      await server.close();
    }
  });

  it('goes on posting a callback after a restart, where its attempts stopped', async () => {
    const calls: { attempt: number; body: string; signature: string }[] = [];
    let refuse = true;
    const flaky = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        calls.push({ attempt: calls.length + 1, body: Buffer.concat(chunks).toString('utf8'), signature: String(request.headers['x-cardwright-signature']) });
        response.statusCode = refuse ? 503 : 200;
        response.end();
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const { port } = flaky.address() as net.AddressInfo;
    // The second attempt would wait a minute: the service is stopped before it.
    const env = { ...settings(), WEBHOOK_ALLOWLIST: `127.0.0.1:${port}`, WEBHOOK_ATTEMPTS: '3', WEBHOOK_RETRY_MS: '60000' };
    let server = await startServer(env, standInCards());
    try {
      const { id } = (await submit(server, { markdown: '# Hi', callbackUrl: `http://127.0.0.1:${port}/hook` })).json();
      const attemptsKept = () => JSON.parse(fs.readFileSync(path.join(dataDir, 'jobs', `${id}.json`), 'utf8')).callbackAttempts;
      for (let wait = 0; wait < 500 && attemptsKept() !== 1; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(attemptsKept(), 1, 'the job keeps the attempts made');
      await server.close();
      assert.equal(calls.length, 1);

      refuse = false;
      server = await startServer(env, standInCards());
      for (let wait = 0; wait < 500 && calls.length < 2; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(calls.length, 2, 'posted again by the restarted service');
      assert.deepEqual(JSON.parse(calls[1]!.body), (await status(server, id)).json());
      for (let wait = 0; wait < 100 && attemptsKept() !== undefined; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(attemptsKept(), undefined, 'delivered: nothing left to post');
      await server.close();
      server = await startServer(env, standInCards());
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(calls.length, 2, 'a delivered callback is not posted again');
    } finally {
      await server.close();
      flaky.close();
    }
  });
});
