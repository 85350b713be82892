// A real S3-protocol server (s3rver) for tests: on 127.0.0.1, an ephemeral port and its own temp
// directory, with one bucket, verifying SigV4 signatures. It can be stopped (the store "goes away", open connections cut) and
// started again on the same port and directory, as a store that comes back would be.
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import S3rver from 's3rver';
import { temporaryDir } from './service.js';
import { sigV4Problem } from './sigv4-check.js';

/** The one key pair s3rver knows. */
export const s3rverCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

interface KoaContext {
  req: http.IncomingMessage;
  status: number;
  type: string;
  body: unknown;
}

/** What s3rver is besides its typings: a Koa app that emits S3 events and owns an http.Server. */
interface S3rverInternals {
  httpServer?: http.Server;
  middleware: Array<(ctx: KoaContext, next: () => Promise<void>) => Promise<void>>;
  on(event: 'event', listener: (event: { Records: Array<{ eventName: string; s3: { object: { key: string } } }> }) => void): void;
}

export interface TestS3 {
  bucket: string;
  endpoint: string;
  directory: string;
  /** Environment for startService() that stores into this bucket. */
  env(overrides?: Record<string, string>): Record<string, string>;
  /** A client that reads back what the service stored. */
  client: S3Client;
  running(): boolean;
  start(): Promise<void>;
  /** Stops listening and cuts every open connection, as a crashed store would. */
  stop(): Promise<void>;
  /** Calls `listener` once, with the key, after the n-th image (not health probe) has been written to disk. */
  onObjectCreated(count: number, listener: (key: string) => void): void;
  listKeys(prefix?: string): Promise<string[]>;
  /** The request headers of the last upload of `key`. */
  uploadHeaders(key: string): http.IncomingHttpHeaders | undefined;
  /** Whether the object is in s3rver's directory; works while the store is stopped too. */
  onDisk(key: string): boolean;
  readObject(key: string): Promise<{ bytes: Buffer; contentType?: string; contentLength?: number; cacheControl?: string }>;
  close(): Promise<void>;
}

export async function startS3rver(bucket = 'cards'): Promise<TestS3> {
  const directory = temporaryDir('cardwright-s3-');
  let port = 0;
  let server: (S3rver & S3rverInternals) | undefined;
  let createdListeners: Array<{ remaining: number; listener: (key: string) => void }> = [];
  const uploads = new Map<string, http.IncomingHttpHeaders>();

  const start = async () => {
    const instance = new S3rver({ address: '127.0.0.1', port, directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] }) as S3rver & S3rverInternals;
    // Checked before s3rver sees the request, so a wrong secret key is refused as S3 refuses it.
    const secrets = new Map([[s3rverCredentials.accessKeyId, s3rverCredentials.secretAccessKey]]);
    instance.middleware.unshift(async (ctx, next) => {
      const problem = sigV4Problem(ctx.req, secrets);
      if (!problem) {
        const pathOnly = (ctx.req.url ?? '').split('?')[0]!;
        if (ctx.req.method === 'PUT' && pathOnly.startsWith(`/${bucket}/`)) uploads.set(decodeURIComponent(pathOnly.slice(bucket.length + 2)), ctx.req.headers);
        return next();
      }
      ctx.status = 403;
      ctx.type = 'application/xml';
      ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${problem.code}</Code><Message>${problem.message}</Message></Error>`;
    });
    instance.on('event', (event) => {
      for (const record of event.Records) {
        const key = decodeURIComponent(record.s3.object.key);
        if (!record.eventName.startsWith('ObjectCreated') || !key.includes('screenshots/') || key.includes('/.health-')) continue;
        for (const entry of createdListeners) {
          entry.remaining -= 1;
          if (entry.remaining === 0) entry.listener(key);
        }
        createdListeners = createdListeners.filter((entry) => entry.remaining > 0);
      }
    });
    const address: AddressInfo = await instance.run();
    port = address.port;
    server = instance;
    // s3rver removes a folder once its last object is deleted; a PUT into that folder at the same
    // moment then fails to open its file with no error listener, and s3rver ends the test process.
    // A plain file (not an object: listings skip it) keeps the images' folder from ever being empty.
    fs.mkdirSync(path.join(directory, bucket, 'screenshots'), { recursive: true });
    fs.writeFileSync(path.join(directory, bucket, 'screenshots', 'keep-folder'), '');
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: s3rverCredentials });

  const stop = async () => {
    const stopping = server;
    server = undefined;
    if (!stopping) return;
    const closed = stopping.close();
    stopping.httpServer?.closeAllConnections();
    await closed;
  };

  return {
    bucket,
    endpoint,
    directory,
    client,
    env: (overrides = {}) => ({
      STORAGE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: s3rverCredentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PUBLIC_URL: `${endpoint}/${bucket}`,
      ...overrides,
    }),
    running: () => server !== undefined,
    start,
    stop,
    onObjectCreated(count, listener) {
      createdListeners.push({ remaining: count, listener });
    },
    async listKeys(prefix) {
      const listing = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listing.Contents ?? []).map((object) => object.Key!).sort();
    },
    uploadHeaders: (key) => uploads.get(key),
    onDisk: (key) => {
      // s3rver's file layout: <directory>/<bucket>/<key's folders>/<key's last part>._S3rver_object
      const parts = key.split('/');
      return fs.existsSync(path.join(directory, bucket, ...parts.slice(0, -1), `${parts.at(-1)}._S3rver_object`));
    },
    async readObject(key) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return {
        bytes: Buffer.from(await object.Body!.transformToByteArray()),
        contentType: object.ContentType,
        contentLength: object.ContentLength,
        cacheControl: object.CacheControl,
      };
    },
    async close() {
      await stop();
      client.destroy();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Polls `check` every 200 ms until it returns true; fails after `timeoutMs`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
