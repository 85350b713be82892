// Fetches an image for a card on the server (the render page never touches the network) and
// refuses anything that could turn the service into a proxy into its own network (SSRF):
// - only http(s); the host must pass the policy (REMOTE_IMAGES=off|public|allowlist);
// - every address a name resolves to is checked AFTER DNS, and the socket connects to exactly the
//   addresses that were checked (the check runs inside the connection's own lookup), so a DNS
//   answer cannot change between check and connect;
// - each redirect (at most 3) is checked again from the start, as a new request;
// - only `image/*` responses whose bytes really are an image, within a size and time budget.
import http from 'node:http';
import https from 'node:https';
import { timeLimit } from '../deadlines.js';
import { bareHostName, checkedLookup, HostAllowlist, isIpLiteral, isPublicAddress, systemResolve } from './address-policy.js';
import { maxImagePixels, sniffImage } from './sniff-image.js';

/** Which remote images cards may show: none, any public address, or the hosts of an allowlist. */
export type RemoteImagesPolicy = 'off' | 'public' | 'allowlist';

export interface RemoteImageOptions {
  policy: RemoteImagesPolicy;
  /** REMOTE_IMAGES_ALLOWLIST entries: `host`, `host:port` or `*.domain`. */
  allowlist?: readonly string[];
  /** Largest accepted image, in bytes. Default 10 MB. */
  maxBytes?: number;
  /** Time for one image including its redirects, in ms. Default 10 s. */
  timeoutMs?: number;
  /** Redirects followed, each re-checked. Default 3. */
  maxRedirects?: number;
  /** Largest accepted width × height, against decompression bombs. Default 40 megapixels. */
  maxPixels?: number;
  /**
   * Resolves a host name to its addresses. Default: the system resolver (dns.lookup, which also
   * reads /etc/hosts). Whatever it returns is what is checked and what is connected to.
   */
  resolve?: (hostName: string) => Promise<string[]>;
}

export interface FetchedImage {
  /** The type found in the bytes (not the one the server claimed). */
  mimeType: string;
  bytes: Buffer;
  width: number;
  height: number;
  /** For an SVG drawn as pixels (svg-raster.ts): the width in CSS px it is shown at, its own size. */
  cssWidth?: number;
  /**
   * Where the card's reader loads it from instead of from its bytes, which are then empty: a
   * preview shown as markup links its images (see ImageLinker in markdown-pool.ts).
   */
  link?: { url: string; byteLength: number };
}

/** Where cards get remote images: the guarded fetcher, or a cache in front of it. */
export interface ImageSource {
  /** Fetches one image, or throws RemoteImageRefused (or the signal's reason when it aborted). */
  fetch(source: string, signal?: AbortSignal): Promise<FetchedImage>;
}

/** A remote image that was not fetched, with a reason meant for logs. */
export class RemoteImageRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteImageRefused';
  }
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

export class RemoteImageFetcher implements ImageSource {
  readonly policy: RemoteImagesPolicy;
  private readonly allowlist: HostAllowlist;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly maxPixels: number;
  private readonly resolve: (hostName: string) => Promise<string[]>;

  constructor(options: RemoteImageOptions) {
    this.policy = options.policy;
    this.allowlist = new HostAllowlist(options.allowlist ?? []);
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxRedirects = options.maxRedirects ?? 3;
    this.maxPixels = options.maxPixels ?? maxImagePixels;
    this.resolve = options.resolve ?? systemResolve;
  }

  /** Fetches one image, or throws RemoteImageRefused (or the signal's reason when it aborted). */
  async fetch(source: string, signal?: AbortSignal): Promise<FetchedImage> {
    // A plain timer owned by this fetch (see src/cards/deadlines.ts), so it fires even after a GC.
    const limit = timeLimit(this.timeoutMs, `the image did not arrive within ${this.timeoutMs} ms`, signal);
    const budget = limit.signal;
    try {
      let url = parseRemoteUrl(source);
      for (let redirects = 0; ; redirects++) {
        const trusted = this.vet(url);
        const response = await this.request(url, trusted, budget);
        const location = response.headers.location;
        if (redirectStatuses.has(response.statusCode ?? 0) && location) {
          response.destroy();
          if (redirects >= this.maxRedirects) throw new RemoteImageRefused(`more than ${this.maxRedirects} redirects`);
          url = parseRemoteUrl(location, url);
          continue;
        }
        return await this.readImage(response, budget);
      }
    } finally {
      limit.clear();
    }
  }

  /** Refuses a URL the policy does not allow; returns whether its host is on the allowlist. */
  private vet(url: URL): boolean {
    if (this.policy === 'off') throw new RemoteImageRefused('remote images are off (REMOTE_IMAGES=off)');
    const trusted = this.allowlist.matches(url);
    if (this.policy === 'allowlist' && !trusted) throw new RemoteImageRefused(`${url.host} is not on REMOTE_IMAGES_ALLOWLIST`);
    const host = bareHostName(url);
    if (!trusted && isIpLiteral(host) && !isPublicAddress(host)) {
      throw new RemoteImageRefused(`${host} is not a public address`);
    }
    return trusted;
  }

  private request(url: URL, trusted: boolean, signal: AbortSignal): Promise<http.IncomingMessage> {
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(url, {
        method: 'GET',
        // No pooled sockets: every connection goes through the checked lookup below.
        agent: false,
        lookup: checkedLookup(this.resolve, trusted, (message) => new RemoteImageRefused(message)),
        signal,
        headers: { accept: 'image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8', 'user-agent': 'cardwright-image-fetcher' },
      });
      request.once('response', resolve);
      request.once('error', (error) => reject(signal.aborted ? abortReason(signal) : error));
      request.end();
    });
  }

  private async readImage(response: http.IncomingMessage, signal: AbortSignal): Promise<FetchedImage> {
    try {
      if (response.statusCode !== 200) throw new RemoteImageRefused(`the server answered HTTP ${response.statusCode}`);
      const declared = String(response.headers['content-type'] ?? '');
      if (!/^image\//i.test(declared)) throw new RemoteImageRefused(`content-type "${declared}" is not image/*`);
      const length = Number(response.headers['content-length']);
      if (length > this.maxBytes) throw new RemoteImageRefused(`${length} bytes is over the ${this.maxBytes}-byte limit`);
      const chunks: Buffer[] = [];
      let received = 0;
      for await (const chunk of response) {
        received += (chunk as Buffer).length;
        if (received > this.maxBytes) throw new RemoteImageRefused(`the image is over the ${this.maxBytes}-byte limit`);
        chunks.push(chunk as Buffer);
      }
      const bytes = Buffer.concat(chunks);
      return sniffImage(bytes, declared, this.maxPixels);
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      throw error;
    } finally {
      response.destroy();
    }
  }
}

export const toDataUri = (image: FetchedImage): string => `data:${image.mimeType};base64,${image.bytes.toString('base64')}`;

function parseRemoteUrl(source: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(source, base);
  } catch {
    throw new RemoteImageRefused(`"${source}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RemoteImageRefused(`${url.protocol} URLs are not fetched`);
  if (url.username || url.password) throw new RemoteImageRefused('URLs with credentials are not fetched');
  return url;
}

/** A deadline that passed reads as a time-out; the caller's own abort keeps its reason. */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new RemoteImageRefused('the image fetch was cancelled');
}
