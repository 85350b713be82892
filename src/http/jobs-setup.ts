// The jobs of the service: the queue (local files, or BullMQ with REDIS_URL), what runs each of
// their requests (job-request.ts), the callbacks posted when they end, and their routes.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { CallbackAddresses } from '../jobs/callback-address.js';
import { createJobQueue } from '../jobs/create-job-queue.js';
import { jobView } from '../jobs/job.js';
import { WebhookSender } from '../jobs/webhook.js';
import type { GenerateRouteDeps } from './generate-route.js';
import { gaveUpResult, jobRequestRunner } from './job-request.js';
import { registerJobRoutes } from './jobs-route.js';

export async function registerJobs(server: FastifyInstance, config: Config, generateDeps: GenerateRouteDeps): Promise<void> {
  const { webhooks } = config.jobs;
  const secret = webhooks.secret;
  const callbacks = secret ? new CallbackAddresses(webhooks.allowlist) : undefined;
  const sender = secret && callbacks ? new WebhookSender({ ...webhooks, secret }, callbacks, server.log) : undefined;
  const queue = await createJobQueue(
    config,
    {
      run: jobRequestRunner(generateDeps, server.log),
      gaveUp: gaveUpResult,
      ...(sender ? { callbacks: { attempts: webhooks.attempts, retryMs: webhooks.retryMs, deliver: (job, attempt) => sender.deliver(job.callbackUrl, job.id, jobView(job), attempt) } } : {}),
    },
    server.log,
  );
  server.addHook('onReady', async () => queue.start());
  // Closed before the card pipeline (whose hook was added earlier, and so runs later).
  server.addHook('onClose', async () => queue.close());
  registerJobRoutes(server, { apiKeys: generateDeps.apiKeys, queue, callbacks, publicBaseUrl: config.publicBaseUrl });
}
