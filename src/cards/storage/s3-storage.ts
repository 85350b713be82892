// S3-compatible storage (AWS S3, Cloudflare R2, MinIO, Aliyun OSS, Tencent COS, …) through the
// official AWS SDK. The SDK retries transient failures (network errors, 5xx, throttling) with
// jittered exponential backoff and stops waiting as soon as the request's deadline signal fires.
import { createHash, randomBytes } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, NoSuchKey, NotFound, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { timeLimit } from '../deadlines.js';
import type { S3Config } from './s3-config.js';
import { describeStorageFailure, StorageError } from './storage-error.js';
import type { Storage } from './storage.js';

/** Object names are unique and never rewritten, so browsers and CDNs may keep them for a year. */
const cacheControl = 'public, max-age=31536000, immutable';
/** Attempts per operation, the first included (the SDK's default is 3). */
const maxAttempts = 4;
/** A health probe or a clean-up deletion gives up after this long, whatever the SDK retries. */
const probeTimeoutMs = 10_000;
/** How long a health answer is reused, so frequent /ready probes do not each write to the bucket. */
const healthyForMs = 5_000;
const unhealthyForMs = 1_000;

export class S3Storage implements Storage {
  private readonly client: S3Client;
  private lastHealth?: { at: number; ok: boolean; result: Promise<void> };

  constructor(private readonly config: S3Config) {
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
      maxAttempts,
      // Checksums only where the API requires them: the SDK's newer default (CRC32 on every
      // upload) is refused by several S3-compatible stores. Uploads carry Content-MD5 instead,
      // which every S3-compatible store checks.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that accepts the connection but never answers must not hold an upload for minutes.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
    });
  }

  async put(key: string, body: Buffer, contentType: string, signal?: AbortSignal): Promise<void> {
    await this.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: this.objectKey(key),
        Body: body,
        ContentType: contentType,
        ContentLength: body.length,
        // The store refuses a body damaged on the way (BadDigest) instead of serving it.
        ContentMD5: createHash('md5').update(body).digest('base64'),
        CacheControl: cacheControl,
      }),
      signal,
    );
  }

  async get(key: string): Promise<Buffer | undefined> {
    // A plain timer, as sendWithin's: AbortSignal.timeout can be lost to a garbage collection.
    const limit = timeLimit(probeTimeoutMs, `the store did not answer within ${probeTimeoutMs / 1000} s`);
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }), { abortSignal: limit.signal });
      return answer.Body ? Buffer.from(await answer.Body.transformToByteArray()) : undefined;
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw new StorageError(describeStorageFailure(error), { cause: error });
    } finally {
      limit.clear();
    }
  }

  async exists(key: string): Promise<boolean> {
    const limit = timeLimit(probeTimeoutMs, `the store did not answer within ${probeTimeoutMs / 1000} s`);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }), { abortSignal: limit.signal });
      return true;
    } catch (error) {
      if (error instanceof NotFound || (error as { name?: string }).name === 'NotFound' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
      throw new StorageError(describeStorageFailure(error), { cause: error });
    } finally {
      limit.clear();
    }
  }

  async delete(key: string): Promise<void> {
    await this.sendWithin(probeTimeoutMs, [new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) })]);
  }

  url(key: string): string {
    return `${this.config.publicUrl}/${this.objectKey(key)}`;
  }

  /**
   * Writes and deletes a small probe object: that needs exactly the permissions uploads need
   * (unlike HeadBucket, which needs list rights many upload-only policies do not grant).
   * Concurrent callers share one probe, and its answer is reused for a few seconds.
   */
  health(): Promise<void> {
    const now = Date.now();
    const last = this.lastHealth;
    if (last && now - last.at < (last.ok ? healthyForMs : unhealthyForMs)) return last.result;
    const entry = { at: now, ok: true, result: this.probe() };
    entry.result.catch(() => {
      entry.ok = false;
    });
    this.lastHealth = entry;
    return entry.result;
  }

  private async probe(): Promise<void> {
    // Beside the images, so a policy that only allows writing images allows the probe too.
    const probeKey = `screenshots/.health-${Date.now()}_${randomBytes(8).toString('hex')}`;
    await this.sendWithin(probeTimeoutMs, [
      new PutObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(probeKey), Body: Buffer.alloc(0), ContentLength: 0, ContentType: 'text/plain' }),
      new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(probeKey) }),
    ]);
  }

  private objectKey(key: string): string {
    return `${this.config.prefix}${key}`;
  }

  /** Sends commands one after the other within `timeoutMs`; running out of time is a StorageError too. */
  private async sendWithin(timeoutMs: number, commands: Array<PutObjectCommand | DeleteObjectCommand>): Promise<void> {
    const limit = timeLimit(timeoutMs, `the store did not answer within ${timeoutMs / 1000} s`);
    try {
      for (const command of commands) await this.send(command, limit.signal);
    } catch (error) {
      if (error instanceof StorageError) throw error;
      throw new StorageError(`the store did not answer within ${timeoutMs / 1000} s`, { cause: error });
    } finally {
      limit.clear();
    }
  }

  /** Sends one command; a failure other than the caller's own cancellation becomes a StorageError. */
  private async send(command: PutObjectCommand | DeleteObjectCommand, signal?: AbortSignal): Promise<void> {
    try {
      // The union of commands does not fit the overloads of send(); each alone does.
      await this.client.send(command as PutObjectCommand, { abortSignal: signal });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new StorageError(describeStorageFailure(error), { cause: error });
    }
  }
}
