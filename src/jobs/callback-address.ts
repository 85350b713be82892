// Where a job's callback may be posted: the address rules of remote images
// (src/cards/images/address-policy.ts). Only http(s) URLs without credentials; only public
// addresses, unless the host is on WEBHOOK_ALLOWLIST (the way to reach a receiver on loopback or a
// private network). Checked when the job is submitted, and again by the connection's own DNS step
// when the callback is posted, so a name that later resolves to a private address is still refused.
import { bareHostName, checkedLookup, HostAllowlist, isIpLiteral, isPublicAddress, systemResolve } from '../cards/images/address-policy.js';
import type net from 'node:net';

export class CallbackRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackRefused';
  }
}

export class CallbackAddresses {
  private readonly allowlist: HostAllowlist;

  constructor(allowlist: readonly string[], private readonly resolve: (hostName: string) => Promise<string[]> = systemResolve) {
    this.allowlist = new HostAllowlist(allowlist);
  }

  /** The URL, checked against the rules (DNS included); throws CallbackRefused saying why not. */
  async check(raw: string): Promise<URL> {
    const url = this.vet(raw);
    if (this.trusted(url) || isIpLiteral(bareHostName(url))) return url;
    let addresses: string[];
    try {
      addresses = await this.resolve(bareHostName(url));
    } catch {
      throw new CallbackRefused(`callbackUrl: ${url.hostname} does not resolve.`);
    }
    const forbidden = addresses.find((address) => !isPublicAddress(address));
    if (forbidden !== undefined) throw new CallbackRefused(`callbackUrl: ${url.hostname} resolves to ${forbidden}, not a public address; an operator may allow it with WEBHOOK_ALLOWLIST.`);
    return url;
  }

  /** The URL's syntax and, for an IP literal, its address; no DNS. Throws CallbackRefused. */
  vet(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new CallbackRefused(`callbackUrl "${raw}" is not an absolute URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CallbackRefused('callbackUrl must be an http(s) URL.');
    if (url.username || url.password) throw new CallbackRefused('callbackUrl must not carry a user name or password.');
    const host = bareHostName(url);
    if (!this.trusted(url) && isIpLiteral(host) && !isPublicAddress(host)) {
      throw new CallbackRefused(`callbackUrl: ${host} is not a public address; an operator may allow it with WEBHOOK_ALLOWLIST.`);
    }
    return url;
  }

  trusted(url: URL): boolean {
    return this.allowlist.matches(url);
  }

  /** The DNS step of the connection that posts to `url`: it connects only to addresses it has checked. */
  lookupFor(url: URL): net.LookupFunction {
    return checkedLookup(this.resolve, this.trusted(url), (message) => new CallbackRefused(message));
  }
}
