// Runs one request of a job as POST /api/generate would answer it: the same check, the same
// pipeline call (answerGenerate) and the same error answers, recorded as { status, body }.
// A request refused only because the service is busy (503 overloaded) waits and is tried again:
// a job has time, and it should not fail because interactive requests filled the render queue.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { CardError, isAbortError } from '../cards/errors.js';
import type { Logger } from '../cards/logger.js';
import { checkRequest } from '../cards/request/check.js';
import { timeLimit } from '../cards/deadlines.js';
import type { JobResult } from '../jobs/job.js';
import type { RunJobRequest } from '../jobs/job-queue.js';
import { answerGenerate, type GenerateRouteDeps } from './generate-route.js';
import { errorBody, HttpError, httpErrorOf, httpFailures } from './http-errors.js';

/** How often a request refused as busy is tried again before its 503 is its answer. */
const busyRetries = 20;

export function jobRequestRunner(deps: GenerateRouteDeps, log: FastifyBaseLogger): RunJobRequest {
  return async ({ jobId, owner, index, request: body }, stop) => {
    const requestLog = log.child({ job: jobId, request: index });
    for (let retry = 0; ; retry++) {
      const deadline = timeLimit(deps.requestTimeoutMs, `the request did not finish within ${deps.requestTimeoutMs} ms`, stop);
      try {
        const { request, warnings } = checkRequest(body);
        const { answer } = await answerGenerate(deps, request, {
          signal: deadline.signal,
          keyId: owner,
          cacheScope: deps.cacheEnabled ? `job-owner:${owner}` : undefined,
          bodyWarnings: warnings,
          log: requestLog,
        });
        return { status: 200, body: answer };
      } catch (error) {
        const busy = error instanceof CardError && error.kind === 'busy';
        if (busy && retry < busyRetries && !stop.aborted) {
          // Cut short when the queue closes: the request is then left for the job's next run.
          await sleep(1000 * Math.max(1, error.retryAfterSeconds ?? 1), undefined, { signal: stop }).catch(() => undefined);
          continue;
        }
        return failureResult(error, `${jobId}.${index}`, requestLog);
      } finally {
        deadline.clear();
      }
    }
  };
}

/** The answer of a request the queue gave up on: the replicas running it kept stopping, a fault of ours (500). */
export function gaveUpResult({ jobId, index }: { jobId: string; index: number }): JobResult {
  const failure = new HttpError('internal_error', 'This request could not be finished: the service replicas that took it up stopped before answering it, several times.');
  return { status: failure.status, body: errorBody(failure, `${jobId}.${index}`) };
}

/** The error answer the HTTP error handler would have sent for `error` (error-handler.ts). */
function failureResult(error: unknown, requestId: string, log: Logger): JobResult {
  let failure: HttpError;
  if (error instanceof HttpError) failure = error;
  else if (error instanceof CardError) failure = httpErrorOf(error);
  else if (isAbortError(error)) failure = httpFailures.deadline();
  else {
    log.error({ err: error }, 'a job request failed');
    failure = httpFailures.internal();
  }
  return { status: failure.status, body: errorBody(failure, requestId) };
}
