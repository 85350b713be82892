// API keys from a file (plain and hashed entries), reloaded when the file changes, keys made with
// createApiKey(), and the per-key rate limit.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../src/http/api-keys.js';
import { eventually } from './helpers/processes.js';
import { startService, temporaryDir, testApiKey, type RunningService } from './helpers/service.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A body that fails validation: cheap, and still counted by the rate limit. */
const invalidBody = { width: 'wide' };

describe('API key file', () => {
  let service: RunningService;
  let keyFile: string;
  const plainKey = 'plain-key-0123456789abcdef';
  const hashedKey = 'hashed-key-0123456789abcdef';
  before(async () => {
    keyFile = path.join(temporaryDir(), 'keys.txt');
    fs.writeFileSync(keyFile, `# comment\n${plainKey}\n\nsha256:${sha256(hashedKey)}\n`);
    service = await startService({ API_KEYS: '', API_KEYS_FILE: keyFile });
  });
  after(async () => service.close());

  it('accepts plain keys and keys given as sha256:<hex>, and nothing else', async () => {
    assert.equal((await service.generate(invalidBody, { 'x-api-key': plainKey })).status, 400);
    assert.equal((await service.generate(invalidBody, { 'x-api-key': hashedKey })).status, 400);
    const wrong = await service.generate(invalidBody, { 'x-api-key': `sha256:${sha256(hashedKey)}` });
    assert.equal(wrong.status, 401, 'the digest itself is not a key');
    assert.equal(wrong.json.error, 'unauthorized');
  });

  it('picks up a key added with createApiKey() and drops a removed one, without a restart', async () => {
    const created = createApiKey({ file: keyFile, hashed: true });
    assert.match(created.key, /^cw_[\w-]{32}$/);
    assert.equal(created.entry, `sha256:${sha256(created.key)}`);
    assert.ok(!fs.readFileSync(keyFile, 'utf8').includes(created.key), 'a hashed entry does not store the key');
    assert.ok(
      await eventually(async () => (await service.generate(invalidBody, { 'x-api-key': created.key })).status === 400, 5_000),
      'the new key works',
    );
    fs.writeFileSync(keyFile, `${created.entry}\n`);
    assert.ok(await eventually(async () => (await service.generate(invalidBody, { 'x-api-key': plainKey })).status === 401, 5_000), 'the removed key stops working');
    assert.equal((await service.generate(invalidBody, { 'x-api-key': created.key })).status, 400);
  });

  it('keeps the loaded keys when the file becomes empty or broken', async () => {
    const created = createApiKey({ file: keyFile });
    assert.ok(await eventually(async () => (await service.generate(invalidBody, { 'x-api-key': created.key })).status === 400, 5_000));
    fs.writeFileSync(keyFile, 'sha256:not-hex\n');
    service.app.apiKeys.reload();
    assert.equal((await service.generate(invalidBody, { 'x-api-key': created.key })).status, 400);
    assert.ok(service.app.apiKeys.count >= 1);
  });

  it('makes plain keys of 192 random bits that differ every time', () => {
    const made = Array.from({ length: 20 }, () => createApiKey());
    assert.equal(new Set(made.map((created) => created.key)).size, 20);
    for (const created of made) assert.equal(created.entry, created.key, 'a plain entry is the key itself');
  });
});

describe('rate limit', () => {
  let service: RunningService;
  const otherKey = 'other-key-0123456789abcdef';
  before(async () => {
    service = await startService({ API_KEYS: `${testApiKey},${otherKey}`, RATE_LIMIT_PER_MINUTE: '3' });
  });
  after(async () => service.close());

  it('answers 429 rate_limited with Retry-After once a key exceeds RATE_LIMIT_PER_MINUTE', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await service.generate(invalidBody)).status, 400);
    const limited = await service.generate(invalidBody);
    assert.equal(limited.status, 429);
    assert.equal(limited.json.error, 'rate_limited');
    assert.match(limited.json.message, /more than 3 requests in a minute/);
    assert.equal(typeof limited.json.requestId, 'string');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  });

  it('counts each key on its own, and never limits probes, metrics or stored images', async () => {
    assert.equal((await service.generate(invalidBody, { 'x-api-key': otherKey })).status, 400);
    for (let i = 0; i < 10; i++) {
      assert.equal((await fetch(`${service.baseUrl}/health`)).status, 200);
      assert.equal((await fetch(`${service.baseUrl}/metrics`)).status, 200);
    }
  });

  it('answers wrong keys with 401, not 429, however many there are', async () => {
    for (let i = 0; i < 6; i++) {
      const wrong = await service.generate(invalidBody, { 'x-api-key': `wrong-key-${i}-0123456789abcdef` });
      assert.equal(wrong.status, 401);
    }
  });
});
