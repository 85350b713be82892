// The service with STORAGE=s3 against an S3-protocol server (s3rver on loopback, real wire
// protocol): images land in the bucket and their URLs serve them; a store that refuses the
// credentials or goes away answers 502 storage_failed and leaves nothing behind; the service
// starts and keeps serving during an outage and recovers by itself when the store is back.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodePng, download, isPng } from './helpers/images.js';
import { metric } from './helpers/metrics.js';
import { eventually, startS3rver, type TestS3 } from './helpers/s3rver.js';
import { startService, type RunningService } from './helpers/service.js';

/** Four sections separated by top-level rules: four hrSplit cards. */
const fourSections = ['# One', '# Two', '# Three', '# Four'].map((heading) => `${heading}\n\nA short section, 一段文字。`).join('\n\n---\n\n');

async function ready(service: RunningService): Promise<{ status: number; json: any }> {
  const response = await fetch(`${service.baseUrl}/ready`);
  return { status: response.status, json: await response.json() };
}

describe('STORAGE=s3', () => {
  let s3: TestS3;
  before(async () => {
    s3 = await startS3rver();
  });
  after(async () => s3.close());

  describe('with a working store', () => {
    let service: RunningService;
    before(async () => {
      service = await startService(s3.env({ S3_PREFIX: '/tenant-a/' }));
    });
    after(async () => service.close());

    it('reports ready, with storage ok, and leaves no probe object behind', async () => {
      assert.deepEqual(await ready(service), { status: 200, json: { status: 'ready', storage: 'ok' } });
      assert.deepEqual(await s3.listKeys(), []);
    });

    it('stores the image in the bucket under the prefixed key, with type, length and cache lifetime, and its URL serves it', async () => {
      const { status, json } = await service.generate({ markdown: '# 存储 S3\n\nStored in a bucket.' });
      assert.equal(status, 200, JSON.stringify(json));
      const [image] = json.images;
      assert.match(image.fileName, /^screenshots\/\d{13}_[0-9a-f]{24}\.png$/);
      assert.equal(image.url, `${s3.endpoint}/cards/tenant-a/${image.fileName}`);

      const object = await s3.readObject(`tenant-a/${image.fileName}`);
      assert.equal(object.contentType, 'image/png');
      assert.equal(object.contentLength, image.bytes);
      assert.equal(object.cacheControl, 'public, max-age=31536000, immutable');
      const uploaded = s3.uploadHeaders(`tenant-a/${image.fileName}`);
      assert.equal(uploaded?.['content-md5'], createHash('md5').update(object.bytes).digest('base64'), 'the upload carried the MD5 of the bytes');
      assert.match(String(uploaded?.authorization), /SignedHeaders=[^,]*content-md5/);
      assert.ok(isPng(object.bytes));
      const png = await decodePng(object.bytes);
      assert.deepEqual([png.width, png.height], [image.width, image.height]);

      const { bytes, response } = await download(image.url);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'image/png');
      assert.ok(bytes.equals(object.bytes), 'the public URL serves the stored bytes');

      // The request is saved beside the image, in the bucket, and the editor's route reads it back.
      const id = new URL(json.previewUrl).searchParams.get('edit');
      const saved = await s3.readObject(`tenant-a/screenshots/${id}.json`);
      assert.equal(saved.contentType, 'application/json');
      const reread = (await (await fetch(`${service.baseUrl}/api/requests/${id}`)).json()) as { markdown: string; theme: string };
      assert.deepEqual([reread.markdown, reread.theme], ['# 存储 S3\n\nStored in a bucket.', 'plain-notes']);
      const missing = `${id!.slice(0, -1)}${id!.endsWith('0') ? '1' : '0'}`;
      assert.equal((await fetch(`${service.baseUrl}/api/requests/${missing}`)).status, 404, 'a well-formed id with nothing stored');
    });

    it('stores JPEG and WebP with their own type and extension', async () => {
      for (const [format, extension, type] of [
        ['jpeg', 'jpg', 'image/jpeg'],
        ['webp', 'webp', 'image/webp'],
      ] as const) {
        const { status, json } = await service.generate({ format });
        assert.equal(status, 200);
        assert.ok(json.images[0].fileName.endsWith(`.${extension}`));
        assert.equal((await s3.readObject(`tenant-a/${json.images[0].fileName}`)).contentType, type);
      }
    });

    it('stores every card of a multi-card request under its own key, in card order', async () => {
      const { status, json } = await service.generate({ markdown: fourSections, splitMode: 'hrSplit' });
      assert.equal(status, 200, JSON.stringify(json));
      assert.equal(json.images.length, 4);
      assert.equal(new Set(json.images.map((image: { fileName: string }) => image.fileName)).size, 4);
      const stored = await Promise.all(json.images.map((image: { fileName: string }) => s3.readObject(`tenant-a/${image.fileName}`)));
      for (const [index, image] of json.images.entries()) {
        assert.equal(image.url, `${s3.endpoint}/cards/tenant-a/${image.fileName}`);
        assert.equal(stored[index]!.contentLength, image.bytes);
        assert.ok((await download(image.url)).bytes.equals(stored[index]!.bytes));
      }
      // Each card is its own picture, not four copies of one.
      assert.equal(new Set(stored.map((object) => object.bytes.toString('base64'))).size, 4);
    });

    it('serves no local /screenshots route: images live only in the bucket', async () => {
      const { json } = await service.generate({});
      const response = await fetch(`${service.baseUrl}/${json.images[0].fileName}`);
      assert.equal(response.status, 404);
    });

    // Last of this service's tests: the store goes away under it, and comes back.
    it('answers 502 when the store goes away mid-upload, leaves no partial object, and works again once the store is back', async () => {
      // The service has stored the earlier tests' images; this test looks at what it adds to them.
      const earlier = new Set(await s3.listKeys('tenant-a/'));
      const added = async () => (await s3.listKeys('tenant-a/')).filter((key) => !earlier.has(key));
      // Each request new to the render cache, so each one stores (a repeated one would be answered from the cache).
      const outageSections = fourSections.replace('# One', '# One, during the outage');
      try {
        // The store dies right after the second of four cards reached its disk, before it could answer.
        let landed = '';
        s3.onObjectCreated(2, (key) => {
          landed = key;
          void s3.stop();
        });
        const failed = await service.generate({ markdown: outageSections, splitMode: 'hrSplit' });
        assert.equal(failed.status, 502, JSON.stringify(failed.json));
        assert.equal(failed.json.error, 'storage_failed');
        assert.match(failed.json.message, /^Could not store the images: the store did not answer \(ECONN\w+\)/);

        // While it is away: alive, not ready, every request a clean 502.
        assert.equal((await fetch(`${service.baseUrl}/health`)).status, 200);
        await eventually('/ready reports the outage', async () => (await ready(service)).status === 503);
        assert.match((await ready(service)).json.storage, /did not answer/);
        assert.equal((await service.generate({ markdown: '# While the store is away' })).status, 502);

        // Back on the same port and disk: the partial uploads are removed without any request.
        assert.match(landed, /^tenant-a\/screenshots\//);
        assert.ok(s3.onDisk(landed), 'the store went away with a partial upload on its disk');
        await s3.start();
        await eventually('the partial upload is deleted', async () => (await added()).length === 0);
        await eventually('/ready reports ready again', async () => (await ready(service)).status === 200);
        const again = await service.generate({ markdown: '# Once the store is back' });
        assert.equal(again.status, 200, JSON.stringify(again.json));
        // The image and the request saved beside it (previewUrl), nothing else.
        const savedId = new URL(again.json.previewUrl).searchParams.get('edit');
        assert.deepEqual((await added()).sort(), [`tenant-a/${again.json.images[0].fileName}`, `tenant-a/screenshots/${savedId}.json`].sort());
      } finally {
        if (!s3.running()) await s3.start();
      }
    });
  });

  it('answers 502 storage_failed with a clear message when the store refuses the credentials, and stores nothing', async () => {
    const service = await startService(s3.env({ S3_SECRET_ACCESS_KEY: 'not-the-secret-key', S3_PREFIX: 'wrong-key' }));
    try {
      // It started anyway, and says why it is not ready.
      assert.equal((await fetch(`${service.baseUrl}/health`)).status, 200);
      const readiness = await ready(service);
      assert.equal(readiness.status, 503);
      assert.equal(readiness.json.status, 'not_ready');
      assert.match(readiness.json.storage, /credentials \(SignatureDoesNotMatch\)/);

      const { status, json } = await service.generate({});
      assert.equal(status, 502);
      assert.equal(json.error, 'storage_failed');
      assert.equal(
        json.message,
        "Could not store the images: the store refused the service's credentials (SignatureDoesNotMatch): check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY. Nothing was stored; retry when the store is available.",
      );
      assert.deepEqual(await s3.listKeys('wrong-key/'), []);
      assert.equal(await metric(service.baseUrl, 'cardwright_storage_failures_total'), 1, 'the failure is counted for alerts');
    } finally {
      await service.close();
    }
  });

  it('starts while the store is down, and becomes ready by itself when it comes up', async () => {
    await s3.stop();
    let service: RunningService | undefined;
    try {
      service = await startService(s3.env({ S3_PREFIX: 'late-store' }));
      assert.equal((await fetch(`${service.baseUrl}/health`)).status, 200);
      assert.equal((await ready(service)).status, 503);
      assert.equal((await service.generate({})).json.error, 'storage_failed');

      await s3.start();
      await eventually('/ready reports ready', async () => (await ready(service!)).status === 200);
      const { status, json } = await service.generate({});
      assert.equal(status, 200);
      assert.equal((await s3.readObject(`late-store/${json.images[0].fileName}`)).contentLength, json.images[0].bytes);
    } finally {
      if (!s3.running()) await s3.start();
      await service?.close();
    }
  });
});
