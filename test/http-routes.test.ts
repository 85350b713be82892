// The HTTP layer alone, on the server the service runs (createHttpServer + setUpService) around a
// stand-in core: keys, validation, the answers' shapes, how each failure of the core becomes a
// status and label, the preview budget, readiness. Through fastify.inject, in milliseconds; the
// same routes with the real pipeline behind them are tested over real HTTP (generate-api,
// web-routes, ops-*).
import assert from 'node:assert/strict';
import fs from 'node:fs';
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
