// The S3_* settings of STORAGE=s3, read and checked at start-up. Every problem names the variable
// and says what to set, because a storage mistake otherwise only shows up as failed uploads later.
import net from 'node:net';

export interface S3Config {
  bucket: string;
  region: string;
  /** Absent for AWS S3 itself; the S3 API endpoint of any other store. */
  endpoint?: string;
  /** Absent: the SDK's default credential chain (AWS_* variables, profile, container or instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
  /** Public base of the bucket or its CDN, without a trailing slash. URLs are `<publicUrl>/<prefix><fileName>`. */
  publicUrl: string;
  /** "" or a key prefix ending in "/", e.g. "cards/". */
  prefix: string;
}

/** Every S3_* variable; setting any of them without STORAGE=s3 is a mistake worth stopping for. */
export const s3VariableNames = [
  'S3_BUCKET',
  'S3_REGION',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
  'S3_PUBLIC_URL',
  'S3_PREFIX',
] as const;

/** Reads the S3_* variables with `text` (trimmed value or undefined); appends problems to `problems`. */
export function readS3Config(text: (name: string) => string | undefined, problems: string[]): S3Config {
  const bucket = text('S3_BUCKET') ?? '';
  if (!bucket) problems.push('S3_BUCKET is required with STORAGE=s3: set it to the name of the bucket that receives the images.');
  else if (/[\s/\\]/.test(bucket)) problems.push(`S3_BUCKET must be a bare bucket name such as "my-cards" (no slashes or spaces); got "${bucket}".`);

  const rawEndpoint = text('S3_ENDPOINT');
  const endpoint = readEndpoint(rawEndpoint, problems);
  const endpointHost = endpoint ? new URL(endpoint).hostname : undefined;

  // AWS signs with the bucket's region, so it must be given; other stores mostly ignore it.
  let region = text('S3_REGION');
  if (!region) {
    if (rawEndpoint === undefined) problems.push('S3_REGION is required for AWS S3: set it to the region of the bucket, e.g. eu-west-1 (or set S3_ENDPOINT for another S3-compatible store).');
    region = 'us-east-1';
  }

  const accessKeyId = text('S3_ACCESS_KEY_ID');
  const secretAccessKey = text('S3_SECRET_ACCESS_KEY');
  if (accessKeyId && !secretAccessKey) problems.push('S3_SECRET_ACCESS_KEY is missing: S3_ACCESS_KEY_ID is set, so set its secret too (or unset both to use the AWS default credential chain).');
  if (secretAccessKey && !accessKeyId) problems.push('S3_ACCESS_KEY_ID is missing: S3_SECRET_ACCESS_KEY is set, so set the key ID too (or unset both to use the AWS default credential chain).');

  const forcePathStyle = readForcePathStyle(text('S3_FORCE_PATH_STYLE'), endpointHost, problems);
  const prefix = readPrefix(text('S3_PREFIX'), problems);
  const publicUrl = readPublicUrl(text('S3_PUBLIC_URL'), { bucket, region, endpoint, forcePathStyle }, problems);

  return {
    bucket,
    region,
    endpoint,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle,
    publicUrl,
    prefix,
  };
}

function readEndpoint(raw: string | undefined, problems: string[]): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    return raw.replace(/\/+$/, '');
  } catch {
    problems.push(`S3_ENDPOINT must be the absolute http(s) URL of the store's S3 API, e.g. https://<account>.r2.cloudflarestorage.com; got "${raw}".`);
    return undefined;
  }
}

/**
 * Path style (`endpoint/bucket/key`) versus virtual-hosted style (`bucket.endpoint/key`). An IP
 * address or localhost cannot carry the bucket as a sub-domain, so path style is the default
 * there; Aliyun OSS refuses path style, so asking for it there is a contradiction.
 */
function readForcePathStyle(raw: string | undefined, endpointHost: string | undefined, problems: string[]): boolean {
  const hostNeedsPathStyle = endpointHost !== undefined && (net.isIP(endpointHost.replace(/^\[|\]$/g, '')) !== 0 || endpointHost === 'localhost');
  if (raw === undefined) return hostNeedsPathStyle;
  const value = { true: true, '1': true, yes: true, false: false, '0': false, no: false }[raw.toLowerCase()];
  if (value === undefined) {
    problems.push(`S3_FORCE_PATH_STYLE must be true or false; got "${raw}".`);
    return hostNeedsPathStyle;
  }
  if (!value && hostNeedsPathStyle) {
    problems.push(`S3_FORCE_PATH_STYLE=false cannot work with S3_ENDPOINT host "${endpointHost}": an IP address or localhost cannot carry the bucket name as a sub-domain. Set S3_FORCE_PATH_STYLE=true.`);
  }
  if (value && endpointHost?.endsWith('.aliyuncs.com')) {
    problems.push('S3_FORCE_PATH_STYLE=true contradicts S3_ENDPOINT: Aliyun OSS only accepts virtual-hosted requests. Set S3_FORCE_PATH_STYLE=false.');
  }
  return value;
}

/** A prefix is normalised to "a/b/" and kept to characters that need no URL encoding. */
function readPrefix(raw: string | undefined, problems: string[]): string {
  if (raw === undefined) return '';
  const trimmed = raw.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const segments = trimmed.split('/');
  if (!/^[A-Za-z0-9._\-/]+$/.test(trimmed) || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    problems.push(`S3_PREFIX must be a key prefix of letters, digits, ".", "_", "-" and single "/" between parts, e.g. "cards" or "prod/cards"; got "${raw}".`);
    return '';
  }
  return `${trimmed}/`;
}

function readPublicUrl(
  raw: string | undefined,
  store: { bucket: string; region: string; endpoint?: string; forcePathStyle: boolean },
  problems: string[],
): string {
  if (raw === undefined) {
    problems.push(
      `S3_PUBLIC_URL is required with STORAGE=s3: set it to the public base URL of the bucket or of its CDN, e.g. ${suggestedPublicUrl(store)} (image URLs are S3_PUBLIC_URL/<object key>).`,
    );
    return '';
  }
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    if (url.search || url.hash) throw new Error('query or fragment');
    return raw.replace(/\/+$/, '');
  } catch {
    problems.push(`S3_PUBLIC_URL must be an absolute http(s) URL without ?query or #fragment, e.g. https://cdn.example.com; got "${raw}".`);
    return '';
  }
}

/** Where the bucket is usually readable, to put a concrete example in the message. */
function suggestedPublicUrl(store: { bucket: string; region: string; endpoint?: string; forcePathStyle: boolean }): string {
  const bucket = store.bucket || 'my-bucket';
  if (!store.endpoint) return `https://${bucket}.s3.${store.region}.amazonaws.com`;
  if (store.forcePathStyle) return `${store.endpoint}/${bucket}`;
  const url = new URL(store.endpoint);
  return `${url.protocol}//${bucket}.${url.host}`;
}
