// Verifies AWS Signature Version 4 on every signed request, as a real S3 store does. s3rver only
// checks that the access key ID exists (its own code marks V4 verification as unimplemented), so
// without this a wrong secret key would be accepted. Written from the published algorithm,
// independently of the SDK's signer, so it checks the SDK rather than repeating it.
// Anonymous requests pass, as on a public-read bucket.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
/** RFC 3986 encoding, as SigV4 canonicalisation requires. */
const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Why the request's signature is not valid, or undefined when it is valid or the request is anonymous. */
export function sigV4Problem(request: IncomingMessage, secrets: ReadonlyMap<string, string>): { code: string; message: string } | undefined {
  const authorization = request.headers.authorization;
  if (authorization === undefined) return undefined;
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return { code: 'AuthorizationHeaderMalformed', message: 'The authorization header is malformed.' };
  const [, accessKeyId, date, region, service, signedHeaders, signature] = match as unknown as string[];
  const secret = secrets.get(accessKeyId!);
  if (secret === undefined) return { code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  const amzDate = request.headers['x-amz-date'];
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (typeof amzDate !== 'string' || !amzDate.startsWith(date!) || typeof payloadHash !== 'string') {
    return { code: 'AccessDenied', message: 'x-amz-date and x-amz-content-sha256 must be sent and match the credential scope.' };
  }

  const [rawPath = '/', rawQuery = ''] = (request.url ?? '/').split('?', 2) as [string?, string?];
  const query = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      const [name, value] = at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
      return [encode(decodeURIComponent(name)), encode(decodeURIComponent(value))] as const;
    })
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers = signedHeaders!
    .split(';')
    .map((name) => `${name}:${String(request.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [request.method, rawPath, query, headers, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, date!), region!), service!), 'aws4_request');
  const expected = hmac(signingKey, stringToSign);
  if (!timingSafeEqual(expected, Buffer.from(signature!, 'hex'))) {
    return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.' };
  }
  return undefined;
}
