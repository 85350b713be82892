// POST /api/jobs and GET /api/jobs/:id: generate requests run in the background, one job at a
// time (docs/api.md#post-apijobs). A job is one generate request or a batch of them, every one checked
// before anything is queued, so a bad request is a 400 naming its index, never a failed job. Jobs
// are read only with the API key that created them; to any other key an id is unknown (404).
// The queue behind them (local files or BullMQ) is the JobQueue interface; this file never knows which.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { CardError } from '../cards/errors.js';
import { checkRequest } from '../cards/request/check.js';
import { GenerateBody } from '../cards/request/schema.js';
import { CallbackRefused, type CallbackAddresses } from '../jobs/callback-address.js';
import { jobView, maxJobRequests, newJob } from '../jobs/job.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { ApiKeyStore } from './api-keys.js';
import { requireApiKey } from './generate-route.js';
import { HttpError } from './http-errors.js';

export interface JobsRouteDeps {
  apiKeys: ApiKeyStore;
  queue: JobQueue;
  /** Present when WEBHOOK_SECRET is set: only then may a job have a callbackUrl. */
  callbacks?: CallbackAddresses;
  publicBaseUrl: string;
}

const CallbackUrl = Type.String({ maxLength: 2048, description: 'an http(s) URL the finished job is posted to, signed (see the API reference, Webhooks); needs WEBHOOK_SECRET on the server' });

/** For the API reference only: the route checks bodies itself, each request with the generate schema. */
export const JobBody = Type.Union([
  Type.Intersect([GenerateBody, Type.Object({ callbackUrl: Type.Optional(CallbackUrl) })], { title: 'one request' }),
  Type.Object(
    { requests: Type.Array(GenerateBody, { minItems: 1, maxItems: maxJobRequests }), callbackUrl: Type.Optional(CallbackUrl) },
    { title: 'a batch' },
  ),
]);

export const JobParams = Type.Object({ id: Type.String({ maxLength: 64, description: 'the id POST /api/jobs answered' }) });

const invalid = (message: string) => new HttpError('invalid_request', message);

export const unknownJob = (id: string) => new HttpError('not_found', `No job "${id}": it never existed, has expired, or was created with another API key.`);

export function registerJobRoutes(app: FastifyInstance, deps: JobsRouteDeps): void {
  app.post<{ Body: unknown }>(
    '/api/jobs',
    // The schema documents the body; the handler checks it, so each request's message names its index.
    { onRequest: requireApiKey(deps.apiKeys), schema: { body: JobBody }, validatorCompiler: () => () => true },
    async (request, reply) => {
      const { requests, callbackUrl } = await readJobBody(request.body ?? {}, deps.callbacks);
      const owner = deps.apiKeys.idOf(String(request.headers['x-api-key']))!;
      const job = newJob(owner, requests, callbackUrl);
      await deps.queue.add(job);
      const statusUrl = `${deps.publicBaseUrl}/api/jobs/${job.id}`;
      reply.code(202).header('Location', statusUrl);
      return { success: true, id: job.id, state: job.state, statusUrl };
    },
  );

  app.get<{ Params: { id: string } }>('/api/jobs/:id', { onRequest: requireApiKey(deps.apiKeys), schema: { params: JobParams } }, async (request) => {
    const job = await deps.queue.get(request.params.id);
    if (!job || job.owner !== deps.apiKeys.idOf(String(request.headers['x-api-key']))) throw unknownJob(request.params.id);
    return jobView(job);
  });
}

async function readJobBody(body: unknown, callbacks: CallbackAddresses | undefined): Promise<{ requests: unknown[]; callbackUrl?: string }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid(`The body must be a JSON object: one generate request, or {"requests": [...]} with up to ${maxJobRequests} of them.`);
  }
  const { callbackUrl, ...rest } = body as Record<string, unknown>;
  const batch = 'requests' in rest;
  const given = batch ? rest.requests : [rest];
  if (!Array.isArray(given) || given.length === 0 || given.length > maxJobRequests) {
    throw invalid(`requests must be an array of 1 to ${maxJobRequests} generate requests.`);
  }
  // null stands for all defaults, as a null body does for POST /api/generate.
  const requests: unknown[] = given.map((item: unknown) => item ?? {});
  requests.forEach((item, index) => {
    try {
      checkRequest(item);
    } catch (error) {
      if (error instanceof CardError) throw invalid(batch ? `requests[${index}]: ${error.message}` : error.message);
      throw error;
    }
  });
  if (callbackUrl === undefined || callbackUrl === null || callbackUrl === '') return { requests };
  if (typeof callbackUrl !== 'string' || callbackUrl.length > 2048) throw invalid('callbackUrl must be a URL of at most 2048 characters.');
  if (!callbacks) throw invalid('This service has no WEBHOOK_SECRET, so a job cannot have a callbackUrl; poll its statusUrl instead.');
  try {
    await callbacks.check(callbackUrl);
  } catch (error) {
    if (error instanceof CallbackRefused) throw invalid(error.message);
    throw error;
  }
  return { requests, callbackUrl };
}
