// STORAGE=s3 settings: a missing or contradictory one stops start-up with a message that names
// the variable and says what to set; good ones are normalised.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, type Config } from '../src/config.js';

const minio = {
  STORAGE: 's3',
  S3_BUCKET: 'cards',
  S3_ENDPOINT: 'http://127.0.0.1:9000',
  S3_ACCESS_KEY_ID: 'minioadmin',
  S3_SECRET_ACCESS_KEY: 'minioadmin',
  S3_PUBLIC_URL: 'http://127.0.0.1:9000/cards',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
  assert.fail('the configuration was accepted');
}

function s3Of(env: Record<string, string>): NonNullable<Config['s3']> {
  const config = loadConfig(env);
  assert.equal(config.storage, 's3');
  return config.s3!;
}

describe('S3 configuration', () => {
  it('accepts a MinIO set-up and defaults the region and path style that an IP address needs', () => {
    assert.deepEqual(s3Of(minio), {
      bucket: 'cards',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9000',
      credentials: { accessKeyId: 'minioadmin', secretAccessKey: 'minioadmin' },
      forcePathStyle: true,
      publicUrl: 'http://127.0.0.1:9000/cards',
      prefix: '',
    });
  });

  it('accepts AWS S3 with the default credential chain, and normalises the public URL and prefix', () => {
    const s3 = s3Of({ STORAGE: 's3', S3_BUCKET: 'my-cards', S3_REGION: 'eu-west-1', S3_PUBLIC_URL: 'https://cdn.example.com/', S3_PREFIX: '/prod/cards/' });
    assert.equal(s3.endpoint, undefined);
    assert.equal(s3.credentials, undefined);
    assert.equal(s3.forcePathStyle, false);
    assert.equal(s3.publicUrl, 'https://cdn.example.com');
    assert.equal(s3.prefix, 'prod/cards/');
  });

  it('names every missing variable at once, with an example public URL for the bucket', () => {
    assert.deepEqual(problemsOf({ STORAGE: 's3' }), [
      'S3_BUCKET is required with STORAGE=s3: set it to the name of the bucket that receives the images.',
      'S3_REGION is required for AWS S3: set it to the region of the bucket, e.g. eu-west-1 (or set S3_ENDPOINT for another S3-compatible store).',
      'S3_PUBLIC_URL is required with STORAGE=s3: set it to the public base URL of the bucket or of its CDN, e.g. https://my-bucket.s3.us-east-1.amazonaws.com (image URLs are S3_PUBLIC_URL/<object key>).',
    ]);
    const { S3_PUBLIC_URL: _, ...withoutPublicUrl } = minio;
    assert.match(problemsOf(withoutPublicUrl)[0]!, /^S3_PUBLIC_URL is required .* e\.g\. http:\/\/127\.0\.0\.1:9000\/cards /);
  });

  it('refuses half a key pair, naming the missing half', () => {
    const { S3_SECRET_ACCESS_KEY: _secret, ...noSecret } = minio;
    assert.match(problemsOf(noSecret).join('\n'), /^S3_SECRET_ACCESS_KEY is missing: S3_ACCESS_KEY_ID is set/);
    const { S3_ACCESS_KEY_ID: _id, ...noId } = minio;
    assert.match(problemsOf(noId).join('\n'), /^S3_ACCESS_KEY_ID is missing: S3_SECRET_ACCESS_KEY is set/);
  });

  it('refuses contradictory addressing: virtual-hosted style on an IP address, path style on Aliyun OSS', () => {
    assert.match(problemsOf({ ...minio, S3_FORCE_PATH_STYLE: 'false' }).join('\n'), /S3_FORCE_PATH_STYLE=false cannot work .*Set S3_FORCE_PATH_STYLE=true\./);
    const oss = { STORAGE: 's3', S3_BUCKET: 'cards', S3_REGION: 'cn-hangzhou', S3_ENDPOINT: 'https://s3.oss-cn-hangzhou.aliyuncs.com', S3_PUBLIC_URL: 'https://cards.oss-cn-hangzhou.aliyuncs.com' };
    assert.equal(s3Of(oss).forcePathStyle, false);
    assert.match(problemsOf({ ...oss, S3_FORCE_PATH_STYLE: 'true' }).join('\n'), /Aliyun OSS only accepts virtual-hosted requests\. Set S3_FORCE_PATH_STYLE=false\./);
    assert.match(problemsOf({ ...minio, S3_FORCE_PATH_STYLE: 'maybe' }).join('\n'), /S3_FORCE_PATH_STYLE must be true or false; got "maybe"\./);
  });

  it('refuses malformed values, quoting what it got', () => {
    const problems = problemsOf({ ...minio, S3_BUCKET: 'cards/images', S3_ENDPOINT: 'minio:9000', S3_PUBLIC_URL: 'https://cdn.example.com/?v=1', S3_PREFIX: 'a/../b' });
    assert.deepEqual(problems, [
      'S3_BUCKET must be a bare bucket name such as "my-cards" (no slashes or spaces); got "cards/images".',
      'S3_ENDPOINT must be the absolute http(s) URL of the store\'s S3 API, e.g. https://<account>.r2.cloudflarestorage.com; got "minio:9000".',
      'S3_PREFIX must be a key prefix of letters, digits, ".", "_", "-" and single "/" between parts, e.g. "cards" or "prod/cards"; got "a/../b".',
      'S3_PUBLIC_URL must be an absolute http(s) URL without ?query or #fragment, e.g. https://cdn.example.com; got "https://cdn.example.com/?v=1".',
    ]);
  });

  it('refuses S3 settings without STORAGE=s3, rather than silently storing images on local disk', () => {
    assert.deepEqual(problemsOf({ S3_BUCKET: 'cards', S3_REGION: 'eu-west-1' }), [
      'S3_BUCKET, S3_REGION are set but STORAGE is "local": set STORAGE=s3 to store images in the bucket, or remove the S3_* settings.',
    ]);
  });
});
