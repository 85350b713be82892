// Posts a finished job to its callbackUrl, signed so the receiver can tell it came from this
// service and was not replayed later (docs/api.md#webhooks):
//   X-Cardwright-Timestamp: <unix seconds>
//   X-Cardwright-Signature: sha256=<hex HMAC-SHA256, keyed by WEBHOOK_SECRET, of "<timestamp>.<raw body>">
//   X-Cardwright-Job: <job id>
// This file makes one attempt; the job queues retry a failed one (no connection, no answer within
// its time, a status other than 2xx) after retryMs, then twice that, and so on, WEBHOOK_ATTEMPTS
// times in all, keeping the count with the job so that a restart goes on where it stopped.
// Redirects are not followed.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from '../cards/logger.js';
import type { CallbackAddresses } from './callback-address.js';

export interface WebhookSettings {
  /** WEBHOOK_SECRET: without it, no job may have a callbackUrl. */
  secret?: string;
  /** WEBHOOK_ALLOWLIST: hosts a callback may reach at any address (loopback, private). */
  allowlist: string[];
  attempts: number;
  /** The wait before the first retry; each later wait doubles. */
  retryMs: number;
}

/** Time for one delivery attempt, connection and answer included. */
const attemptTimeoutMs = 10_000;

/** The signature header's value for `body` sent at `timestamp` (unix seconds). */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export class WebhookSender {
  constructor(
    private readonly settings: WebhookSettings & { secret: string },
    private readonly addresses: CallbackAddresses,
    private readonly log: Logger,
  ) {}

  /** One signed delivery attempt (number `attempt` of `settings.attempts`); rejects, logged, when it failed. */
  async deliver(url: string, jobId: string, payload: unknown, attempt: number): Promise<void> {
    try {
      await this.post(this.addresses.vet(url), jobId, JSON.stringify(payload));
      this.log.info({ job: jobId, attempt }, 'job callback delivered');
    } catch (error) {
      const problem = (error as Error).message;
      const last = attempt >= this.settings.attempts;
      this.log[last ? 'warn' : 'info']({ job: jobId, attempt, problem }, last ? 'job callback failed; no attempts left' : 'job callback failed; will retry');
      throw error;
    }
  }

  private post(url: URL, jobId: string, body: string): Promise<void> {
    const timestamp = Math.floor(Date.now() / 1000);
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(url, {
        method: 'POST',
        // No pooled sockets: every connection goes through the checked lookup.
        agent: false,
        lookup: this.addresses.lookupFor(url),
        timeout: attemptTimeoutMs,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'cardwright-webhook',
          'x-cardwright-job': jobId,
          'x-cardwright-timestamp': String(timestamp),
          'x-cardwright-signature': webhookSignature(this.settings.secret, timestamp, body),
        },
      });
      request.once('timeout', () => request.destroy(new Error(`no answer within ${attemptTimeoutMs} ms`)));
      request.once('error', reject);
      request.once('response', (response) => {
        response.resume();
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`the receiver answered HTTP ${status}`));
      });
      request.end(body);
    });
  }
}
