// Three replicas of the service behind a real load balancer, as an operator scales out: each a
// `node dist/server.js` process with STORAGE=s3 (s3rver) and REDIS_URL (a real redis-server), and
// HAProxy in front probing /ready and retrying refused, cut or 503 answers on another replica.
// What a client of the one public URL must see: every request answered, one rate limit and one
// preview budget in total, cache hits across replicas, API keys revoked everywhere, and no failed
// request (nor half-stored image) when a replica is killed, drained, or Redis goes away and back.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import { killAll, startHaproxy, startRedis, startReplica, type LoadBalancer, type Replica, type TestRedis } from './helpers/cluster.js';
import { buildIfStale } from './helpers/build.js';
import { cliBin, cleanEnv } from './helpers/cli.js';
import { decodePng, download, isPng, previewImageLink } from './helpers/images.js';
import { metric } from './helpers/metrics.js';
import { startS3rver, type TestS3 } from './helpers/s3rver.js';

const rateLimit = 30;
const webhookSecret = 'cluster-webhook-secret-0123456789';
const previewBurst = 12;
/** One key per scenario, so each stays under the shared rate limit except the one that tests it. */
const keys = Object.fromEntries(
  ['roundRobin', 'cache', 'usage', 'rateLimit', 'revoked', 'redisOutage', 'killed', 'drained', 'jobs'].map((name) => [name, `cluster-${name}-key-0123456789abcdef`]),
) as Record<'roundRobin' | 'cache' | 'usage' | 'rateLimit' | 'revoked' | 'redisOutage' | 'killed' | 'drained' | 'jobs', string>;

interface Answer {
  status: number;
  servedBy: string;
  cache: string | null;
  body: any;
}

async function generate(baseUrl: string, key: string, markdown: string): Promise<Answer> {
  const response = await fetch(`${baseUrl}/api/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ markdown, width: 400, height: 500 }),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, servedBy: response.headers.get('x-served-by') ?? '', cache: response.headers.get('x-cache'), body };
}

/** `clients` clients each sending `perClient` distinct documents one after the other. */
async function load(baseUrl: string, key: string, label: string, clients: number, perClient: number, onAnswer?: (answer: Answer) => void): Promise<Answer[]> {
  const answers: Answer[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = 0; i < perClient; i += 1) {
        const answer = await generate(baseUrl, key, `# ${label} ${client}-${i}\n\nA card rendered by whichever replica the balancer chose.`);
        answers.push(answer);
        onAnswer?.(answer);
      }
    }),
  );
  return answers;
}

function assertAllSucceeded(answers: Answer[], what: string): void {
  const failed = answers.filter((answer) => answer.status !== 200);
  assert.deepEqual(
    failed.map((answer) => `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`),
    [],
    `${what}: every request succeeds`,
  );
}

/** Every image is complete (decodes, CRCs and end chunk included) at the size asked for. */
async function assertImagesWhole(answers: Answer[]): Promise<void> {
  for (const answer of answers) {
    for (const image of answer.body.images) {
      const { bytes, response } = await download(image.url);
      assert.equal(response.status, 200, image.url);
      const png = await decodePng(bytes);
      assert.equal(png.width, image.width);
      assert.equal(png.height, image.height);
    }
  }
}

/** Resolves once `condition` holds, polled every 20 ms; fails after `timeoutMs`. */
async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const renderingNow = (replica: Replica) => metric(replica.baseUrl, 'cardwright_active_renders').then((active) => active > 0);

// Bounded: about a minute and a half on the shared 2-core machine, most of it three replicas starting at once.
describe('three replicas behind HAProxy, sharing Redis and S3', { timeout: 180_000 }, () => {
  let s3: TestS3;
  let redis: TestRedis;
  let replicas: Replica[];
  let balancer: LoadBalancer;
  let redisClient: Redis;
  let env: Record<string, string>;

  before(async () => {
    buildIfStale();
    [s3, redis] = await Promise.all([startS3rver(), startRedis()]);
    env = s3.env({
      REDIS_URL: redis.url,
      API_KEYS: Object.values(keys).join(','),
      RATE_LIMIT_PER_MINUTE: String(rateLimit),
      PREVIEW_BUDGET_BURST: String(previewBurst),
      PREVIEW_BUDGET_PER_SECOND: '1',
      // Two cores for three replicas: one render page and one Markdown thread each.
      RENDER_CONCURRENCY: '1',
      MARKDOWN_THREADS: '1',
      LOG_LEVEL: 'warn',
      // A killed replica's job is taken over by another within seconds (BullMQ's stalled-job check).
      JOBS_STALLED_MS: '3000',
      // Job callbacks go to a receiver of this test, on loopback.
      WEBHOOK_SECRET: webhookSecret,
      WEBHOOK_ALLOWLIST: '127.0.0.1',
      WEBHOOK_RETRY_MS: '200',
    });
    replicas = await Promise.all(['a', 'b', 'c'].map((name) => startReplica(name, env, 90_000)));
    balancer = await startHaproxy(replicas);
    redisClient = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    // HAProxy counts a replica up after two good probes.
    await until('every replica up behind the balancer', async () => {
      const served = new Set<string>();
      for (let i = 0; i < 6; i += 1) served.add((await fetch(`${balancer.url}/api/themes`)).headers.get('x-served-by') ?? '');
      return served.size === 3;
    });
  });

  after(async () => {
    redisClient?.disconnect();
    killAll();
    await s3?.close();
  });

  it("serves a preview's images from every replica, whichever drew them", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    // An SVG, drawn as PNG by replica a (a cheap preview: the budget test below starts from a full bucket).
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#093"/></svg>').toString('base64');
    const response = await fetch(`${a.baseUrl}/api/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ markdown: `![green](data:image/svg+xml;base64,${svg})` }),
    });
    assert.equal(response.status, 200);
    const { cards } = (await response.json()) as { cards: { html: string }[] };
    const link = previewImageLink.exec(cards[0]!.html)?.[0];
    assert.ok(link, cards[0]!.html);
    for (const replica of [b, c]) {
      const served: Response = await fetch(new URL(link, replica.baseUrl));
      assert.equal(served.status, 200, `replica ${replica.name} serves replica a's preview image`);
      assert.ok(isPng(Buffer.from(await served.arrayBuffer())));
    }
  });

  it('spreads clients over every replica, and every request succeeds', async () => {
    const answers = await load(balancer.url, keys.roundRobin, 'round robin', 4, 6);
    assertAllSucceeded(answers, 'round robin');
    assert.deepEqual(new Set(answers.map((answer) => answer.servedBy)), new Set(['a', 'b', 'c']));
    await assertImagesWhole(answers);
  });

  it('answers an identical request from the cache on another replica, and renders again once its image is gone', async () => {
    const markdown = '# Shared cache\n\nRendered once, served by every replica.';
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const first = await generate(a.baseUrl, keys.cache, markdown);
    assert.equal(first.status, 200);
    assert.equal(first.cache, 'miss');
    const imagesBefore = await metric(b.baseUrl, 'cardwright_images_stored_total');
    const second = await generate(b.baseUrl, keys.cache, markdown);
    assert.equal(second.cache, 'hit', 'replica b answers from the entry replica a shared');
    assert.deepEqual(second.body.images, first.body.images);
    assert.equal(await metric(b.baseUrl, 'cardwright_images_stored_total'), imagesBefore, 'replica b stored nothing');

    // An object removed from the bucket (a lifecycle rule, an operator) is never served as a broken URL.
    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: first.body.images[0].fileName }));
    const third = await generate(c.baseUrl, keys.cache, markdown);
    assert.equal(third.status, 200);
    assert.equal(third.cache, 'miss', 'replica c renders again: the shared entry named a deleted image');
    assert.notEqual(third.body.images[0].url, first.body.images[0].url);
    await assertImagesWhole([third]);
  });

  it("counts a key's cards in total for GET /api/user/info, whichever replica made them", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    assert.equal((await generate(a.baseUrl, keys.usage, '# Counted on a')).status, 200);
    assert.equal((await generate(b.baseUrl, keys.usage, '# Counted on b')).status, 200);
    for (const replica of [a, c]) {
      const info = await (await fetch(`${replica.baseUrl}/api/user/info`, { headers: { 'x-api-key': keys.usage } })).json();
      assert.deepEqual(info, { success: true, data: { used: 2, balance: null, unlimited: true } }, `replica ${replica.name}`);
    }
  });

  it('holds the rate limit in total, whichever replica counts a request', async () => {
    const answers = await Promise.all(
      Array.from({ length: rateLimit + 12 }, async () => {
        const response = await fetch(`${balancer.url}/api/themes`, { headers: { 'x-api-key': keys.rateLimit } });
        await response.arrayBuffer();
        return { status: response.status, servedBy: response.headers.get('x-served-by') };
      }),
    );
    assert.equal(new Set(answers.map((answer) => answer.servedBy)).size, 3, 'the requests went to every replica');
    assert.equal(answers.filter((answer) => answer.status === 200).length, rateLimit);
    assert.equal(answers.filter((answer) => answer.status === 429).length, 12);
  });

  it('holds the preview budget in total', async () => {
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < previewBurst * 2; i += 1) {
      const response = await fetch(`${balancer.url}/api/preview`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ markdown: `# Preview ${i}`, splitMode: 'noSplit' }),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    const refilled = Math.ceil((Date.now() - started) / 1000);
    const passed = statuses.filter((status) => status === 200).length;
    assert.ok(passed >= previewBurst, `${passed} previews passed; the burst is ${previewBurst}`);
    assert.ok(passed <= previewBurst + refilled, `${passed} previews passed: more than one budget of ${previewBurst} (+${refilled} refilled)`);
    assert.ok(statuses.includes(429));
  });

  it('revokes a key on every replica at once', async () => {
    for (const replica of replicas) assert.equal((await generate(replica.baseUrl, keys.revoked, '# Before')).status, 200);
    const revoke = spawn(process.execPath, [cliBin, 'keys', 'revoke', keys.revoked], { env: { ...cleanEnv(), REDIS_URL: redis.url, API_KEYS: keys.revoked }, stdio: 'ignore' });
    const [code] = await once(revoke, 'exit');
    assert.equal(code, 0);
    for (const replica of replicas) {
      await until(`replica ${replica.name} refuses the revoked key`, async () => (await generate(replica.baseUrl, keys.revoked, '# After')).status === 401, 5_000);
    }
  });

  it('keeps answering while Redis is stopped and restarted, and shares again once it is back', async () => {
    let answered = 0;
    let stopped = false;
    const running = load(balancer.url, keys.redisOutage, 'redis outage', 3, 7, () => {
      answered += 1;
    });
    await until('a few answers before the outage', async () => answered >= 3);
    // Only what is logged from now on: a busy machine may already have logged a slow first connection.
    const outageWarnings = (replica: Replica) => replica.output().split('\n').filter((line) => line.includes('shared state (Redis) unavailable'));
    const warnedBefore = new Map(replicas.map((replica) => [replica, outageWarnings(replica).length]));
    await redis.stop();
    stopped = true;
    await until('a few answers during the outage', async () => answered >= 9);
    for (const replica of replicas) assert.equal(await metric(replica.baseUrl, 'cardwright_shared_state_up'), 0, `replica ${replica.name} reports Redis down`);
    // The jobs API needs Redis: a client is told at once to retry, rather than left waiting.
    const job = await fetch(`${replicas[0]!.baseUrl}/api/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keys.redisOutage },
      body: JSON.stringify({ markdown: '# Not now' }),
    });
    assert.equal(job.status, 503);
    assert.equal(job.headers.get('retry-after'), '5');
    await redis.start();
    const answers = await running;
    assert.ok(stopped);
    assertAllSucceeded(answers, 'Redis outage');
    await assertImagesWhole(answers);
    for (const replica of replicas) {
      const warnings = outageWarnings(replica).slice(warnedBefore.get(replica));
      assert.equal(warnings.length, 1, `replica ${replica.name} logs the outage once: ${warnings.join('\n')}`);
    }
    // Back: a new answer is indexed in Redis again for the other replicas.
    await redisClient.connect();
    await until('replicas reconnected', async () => {
      const answer = await generate(balancer.url, keys.redisOutage, `# Redis is back ${Date.now()}`);
      return answer.status === 200 && (await redisClient.keys('cardwright:render-cache:*')).length > 0;
    });
    for (const replica of replicas) await until(`replica ${replica.name} reports Redis up`, async () => (await metric(replica.baseUrl, 'cardwright_shared_state_up')) === 1, 5_000);
  });

  it('loses no request when a replica is killed mid-render: HAProxy retries it elsewhere', async () => {
    const c = replicas[2]!;
    const retriedBefore = await balancer.stats();
    const running = load(balancer.url, keys.killed, 'killed', 3, 6);
    await until('replica c rendering', () => renderingNow(c));
    c.child.kill('SIGKILL');
    const answers = await running;
    assertAllSucceeded(answers, 'SIGKILL of a replica');
    const retried = await balancer.stats();
    assert.ok(retried.redispatches + retried.retries > retriedBefore.redispatches + retriedBefore.retries, 'the request cut by the kill was retried');
    await assertImagesWhole(answers);
    // Nothing in the bucket is half an image, whoever wrote it.
    for (const key of await s3.listKeys('screenshots/')) {
      if (!key.endsWith('.png')) continue;
      const { bytes } = await s3.readObject(key);
      await assert.doesNotReject(decodePng(bytes), key);
    }
  });

  it('drains a replica on SIGTERM without a failed request', async () => {
    const b = replicas[1]!;
    const running = load(balancer.url, keys.drained, 'drained', 3, 6);
    await until('replica b rendering', () => renderingNow(b));
    b.child.kill('SIGTERM');
    // At once: /ready refuses (503) or the listener is already closed; never 200 again.
    await until('replica b not ready', async () => (await fetch(`${b.baseUrl}/ready`).then((r) => r.status, () => 503)) === 503, 1_000);
    const answers = await running;
    assertAllSucceeded(answers, 'draining a replica');
    assert.equal(await b.exited(), 0, 'replica b finished its requests and stopped cleanly');
    await assertImagesWhole(answers);
  });

  // Last: replicas b and c are gone by now, so a fresh replica d and replica a share the queue.
  it('spreads a batch job over the replicas, and when one is killed mid-job every request is still answered once', async () => {
    const a = replicas[0]!;
    const d = await startReplica('d', env, 90_000);
    const callbacks: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        callbacks.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.end('ok');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const { port } = receiver.address() as AddressInfo;
    try {
      const total = 20;
      const requests = Array.from({ length: total }, (_, i) => ({ markdown: `# Job card ${i}\n\nRendered by whichever replica is free.`, width: 400, height: 500 }));
      const submitted = await fetch(`${d.baseUrl}/api/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': keys.jobs },
        body: JSON.stringify({ requests, callbackUrl: `http://127.0.0.1:${port}/hook` }),
      });
      assert.equal(submitted.status, 202);
      const { id } = (await submitted.json()) as { id: string };
      const read = async (replica: Replica) => (await fetch(`${replica.baseUrl}/api/jobs/${id}`, { headers: { 'x-api-key': keys.jobs } })).json() as Promise<any>;

      // Watched through /metrics: GET /api/jobs/:id counts towards the key's rate limit (RATE_LIMIT_PER_MINUTE).
      const stored = (replica: Replica) => metric(replica.baseUrl, 'cardwright_images_stored_total');
      const storedBefore = new Map([[a, await stored(a)], [d, await stored(d)]]);
      // Both replicas take requests of the one job: neither waits for the other to finish it.
      await until('both replicas answering requests of the job', async () => (await stored(a)) > storedBefore.get(a)! && (await stored(d)) > storedBefore.get(d)!, 60_000);
      let worker: Replica | undefined;
      await until('a replica rendering a request of the job', async () => {
        for (const replica of [a, d]) if (await renderingNow(replica)) worker = replica;
        return worker !== undefined;
      }, 30_000);
      worker!.child.kill('SIGKILL');
      const survivor = worker === a ? d : a;

      let job: any;
      for (const givesUp = Date.now() + 120_000; Date.now() < givesUp; await new Promise((resolve) => setTimeout(resolve, 1_000))) {
        job = await read(survivor);
        if (job.state === 'done' || job.state === 'failed') break;
      }
      assert.equal(job.state, 'done', JSON.stringify(job).slice(0, 500));
      assert.deepEqual(job.progress, { done: total, total });
      // Once each: every index answered by exactly one result, each with images of its own.
      assert.deepEqual(job.results.map((result: { index: number }) => result.index), requests.map((_, i) => i));
      assert.deepEqual(job.results.filter((result: { status: number }) => result.status !== 200), []);
      const urls = job.results.map((result: { body: { images: { url: string }[] } }) => result.body.images[0]!.url);
      assert.equal(new Set(urls).size, total, 'a distinct image for every request');
      await assertImagesWhole(job.results.map((result: { body: unknown }) => ({ body: result.body }) as Answer));

      // One callback, signed, carrying the job as GET /api/jobs/:id gives it; none after it.
      await until('the callback delivered', async () => callbacks.length > 0, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(callbacks.length, 1, 'the job is posted once');
      const [callback] = callbacks;
      const timestamp = String(callback!.headers['x-cardwright-timestamp']);
      assert.equal(callback!.headers['x-cardwright-signature'], `sha256=${createHmac('sha256', webhookSecret).update(`${timestamp}.${callback!.body}`).digest('hex')}`);
      assert.deepEqual(JSON.parse(callback!.body), await read(survivor));
    } finally {
      receiver.close();
    }
  });
});
