// Storing the several images of one request in an S3-protocol server (s3rver, real wire protocol):
// all land with their type and bytes, or none stays behind — also when the store goes away in
// the middle of the uploads, or the request's deadline passes.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import pino from 'pino';
import { CardError } from '../src/cards/errors.js';
import { httpErrorOf } from '../src/http/http-errors.js';
import { PendingDeletions } from '../src/cards/storage/pending-deletions.js';
import { readS3Config } from '../src/cards/storage/s3-config.js';
import { S3Storage } from '../src/cards/storage/s3-storage.js';
import { storeAll, type ImageToStore } from '../src/cards/storage/store-all.js';
import { eventually, startS3rver, type TestS3 } from './helpers/s3rver.js';

const log = pino({ level: process.env.TEST_LOG ? 'debug' : 'silent' });

/** N small, different PNG images, as a multi-card request produces them. */
function cards(count: number): ImageToStore[] {
  return Array.from({ length: count }, (_, index) => {
    const png = new PNG({ width: 40, height: 30 });
    png.data.fill(index * 20);
    for (let alpha = 3; alpha < png.data.length; alpha += 4) png.data[alpha] = 255;
    return { data: PNG.sync.write(png), format: 'png', width: 40, height: 30, alt: `Card ${index + 1}` };
  });
}

function s3StorageFor(s3: TestS3, overrides: Record<string, string> = {}, endpoint = s3.endpoint): S3Storage {
  const env: Record<string, string> = { ...s3.env(overrides), S3_ENDPOINT: endpoint };
  const problems: string[] = [];
  const config = readS3Config((name) => env[name], problems);
  assert.deepEqual(problems, []);
  return new S3Storage(config);
}

describe('storing several images in an S3-compatible store', () => {
  let s3: TestS3;
  before(async () => {
    s3 = await startS3rver();
  });
  after(async () => s3.close());

  it('stores every image of a request under its own key, in card order, with type, length and cache lifetime', async () => {
    const storage = s3StorageFor(s3, { S3_PREFIX: 'multi' });
    const images = cards(9);
    const stored = await storeAll({ storage, log }, images, AbortSignal.timeout(30_000));

    assert.equal(stored.length, 9);
    assert.equal(new Set(stored.map((image) => image.fileName)).size, 9);
    for (const [index, image] of stored.entries()) {
      assert.match(image.fileName, /^screenshots\/\d{13}_[0-9a-f]{24}\.png$/);
      assert.equal(image.url, `${s3.endpoint}/cards/multi/${image.fileName}`);
      const object = await s3.readObject(`multi/${image.fileName}`);
      assert.ok(object.bytes.equals(images[index]!.data), `image ${index} has its own bytes`);
      assert.equal(object.contentType, 'image/png');
      assert.equal(object.contentLength, images[index]!.data.length);
      assert.match(object.cacheControl ?? '', /max-age=31536000/);
    }
  });

  it('retries uploads the store answers with 503 SlowDown, and then succeeds', async () => {
    // A front that refuses the first three uploads the way a throttling store does.
    let refused = 0;
    const front = http.createServer((request, response) => {
      if (request.method === 'PUT' && refused < 3) {
        refused += 1;
        request.resume();
        response.writeHead(503, { 'content-type': 'application/xml' });
        response.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
        return;
      }
      const target = new URL(s3.endpoint);
      const upstream = http.request({ host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      request.pipe(upstream);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const storage = s3StorageFor(s3, { S3_PREFIX: 'retried' }, `http://127.0.0.1:${(front.address() as AddressInfo).port}`);
      const stored = await storeAll({ storage, log }, cards(2), AbortSignal.timeout(30_000));
      assert.equal(refused, 3);
      assert.deepEqual(await s3.listKeys('retried/'), stored.map((image) => `retried/${image.fileName}`).sort());
    } finally {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
    }
  });

  it('answers storage_failed and deletes what it had stored when the store goes away mid-request, once the store is back', async () => {
    const storage = s3StorageFor(s3, { S3_PREFIX: 'mid-run' });
    const pendingDeletions = new PendingDeletions(storage, log);
    // The store dies right after the second image reached its disk.
    let landed = '';
    s3.onObjectCreated(2, (key) => {
      landed = key;
      void s3.stop();
    });

    await assert.rejects(storeAll({ storage, log, pendingDeletions }, cards(12), AbortSignal.timeout(30_000)), (error: unknown) => {
      assert.ok(error instanceof CardError);
      assert.equal(error.kind, 'storage_failed');
      assert.equal(httpErrorOf(error).status, 502);
      assert.match(error.message, /^Could not store the images: the store did not answer \(ECONN\w+\)/);
      assert.match(error.message, /Nothing was stored/);
      return true;
    });
    assert.match(landed, /^mid-run\/screenshots\//);
    assert.ok(pendingDeletions.size >= 2, `objects waiting for deletion: ${pendingDeletions.size}`);

    assert.ok(s3.onDisk(landed), 'the store went away with a partial upload on its disk');
    await s3.start();
    await eventually('the partial uploads are deleted', async () => (await s3.listKeys('mid-run/')).length === 0 && pendingDeletions.size === 0);
    pendingDeletions.close();

    const stored = await storeAll({ storage, log, pendingDeletions }, cards(3), AbortSignal.timeout(30_000));
    assert.equal((await s3.listKeys('mid-run/')).length, 3, `stored ${stored.length} after the store came back`);
  });

  for (const [what, credentials, code] of [
    ['an unknown access key', { S3_ACCESS_KEY_ID: 'NOT-A-KNOWN-KEY' }, 'InvalidAccessKeyId'],
    ['a wrong secret key', { S3_SECRET_ACCESS_KEY: 'not-the-secret' }, 'SignatureDoesNotMatch'],
  ] as const) {
    it(`stores nothing when the store refuses ${what}`, async () => {
      const storage = s3StorageFor(s3, { S3_PREFIX: 'refused', ...credentials });
      await assert.rejects(storeAll({ storage, log }, cards(4), AbortSignal.timeout(30_000)), (error: unknown) => {
        assert.ok(error instanceof CardError);
        assert.equal(error.kind, 'storage_failed');
        assert.equal(
          error.message,
          `Could not store the images: the store refused the service's credentials (${code}): check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY. Nothing was stored; retry when the store is available.`,
        );
        return true;
      });
      assert.deepEqual(await s3.listKeys('refused/'), []);
      await assert.rejects(storage.health(), { name: 'StorageError', message: new RegExp(`credentials \\(${code}\\)`) });
    });
  }

  it('gives up when the request deadline passes mid-upload and leaves nothing behind', async () => {
    const storage = s3StorageFor(s3, { S3_PREFIX: 'deadline' });
    const pendingDeletions = new PendingDeletions(storage, log);
    const deadline = new AbortController();
    s3.onObjectCreated(1, () => deadline.abort(new DOMException('the request passed its deadline', 'TimeoutError')));
    await assert.rejects(storeAll({ storage, log, pendingDeletions }, cards(20), deadline.signal), { name: 'TimeoutError' });
    // Uploads cut off in flight may still land after the first deletion pass; the second removes them.
    await eventually('no object of the request is left', async () => (await s3.listKeys('deadline/')).length === 0 && pendingDeletions.size === 0);
    pendingDeletions.close();
  });
});
