// The render_batch tool (remote mode): submits its requests as one job of the service
// (POST /api/jobs), or takes the id of one submitted earlier, and polls GET /api/jobs/:id until the
// job ends or waitSeconds pass. It answers with the job as the API gives it: each request's answer
// in order, images by URL only (a batch inlined would be far too large for a model's context).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JobView } from '../jobs/job.js';
import { ToolError } from './tool-errors.js';
import { batchWait } from './tools.js';

/** What the tool needs of the service: the jobs API. */
export interface JobClient {
  submitJob(body: { requests: unknown[] }): Promise<{ id: string }>;
  job(id: string): Promise<JobView>;
}

const pollMs = 1000;

export async function renderBatch(jobs: JobClient, args: Record<string, unknown>): Promise<CallToolResult> {
  const { requests, jobId, waitSeconds } = args;
  const waitMs = waitSecondsOf(waitSeconds) * 1000;
  if ((requests === undefined) === (jobId === undefined)) throw new ToolError('invalid_request', 'Give either requests (to submit a batch) or jobId (to check on one), not both.');
  if (jobId !== undefined && typeof jobId !== 'string') throw new ToolError('invalid_request', 'jobId must be the id a batch was given (a string).');
  if (requests !== undefined && !Array.isArray(requests)) throw new ToolError('invalid_request', 'requests must be a list of render requests.');
  const id = typeof jobId === 'string' ? jobId : (await jobs.submitJob({ requests: requests as unknown[] })).id;

  const waitEnds = Date.now() + waitMs;
  let job = await jobs.job(id);
  while (!finished(job) && Date.now() < waitEnds) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, Math.max(0, waitEnds - Date.now()))));
    job = await jobs.job(id);
  }
  const note = finished(job) ? undefined : `The batch is still ${job.state} (${job.progress.done} of ${job.progress.total} done); call render_batch with jobId "${id}" to check on it.`;
  return { content: [{ type: 'text', text: JSON.stringify({ ...job, ...(note ? { note } : {}) }, null, 2) }] };
}

const finished = (job: JobView) => job.state === 'done' || job.state === 'failed';

function waitSecondsOf(value: unknown): number {
  if (value === undefined || value === null) return batchWait.defaultSeconds;
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 0 && seconds <= batchWait.maxSeconds) return seconds;
  throw new ToolError('invalid_request', `waitSeconds must be a whole number from 0 to ${batchWait.maxSeconds}; got ${JSON.stringify(value)}.`);
}
