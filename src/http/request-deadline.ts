// One deadline per request, carried through every step (Markdown in its worker, image fetches,
// queue wait, render, upload) as an AbortSignal. It also fires when the client hangs up before the
// answer, so no work continues for nobody. Built as every deadline is (src/cards/deadlines.ts),
// and cleared when the answer is sent.
import type { FastifyReply } from 'fastify';
import { timeLimit } from '../cards/deadlines.js';

export function requestDeadline(reply: FastifyReply, timeoutMs: number): AbortSignal {
  const hangUp = new AbortController();
  const deadline = timeLimit(timeoutMs, `the request did not finish within ${timeoutMs} ms`, hangUp.signal);
  reply.raw.once('close', () => {
    if (reply.raw.writableFinished) deadline.clear();
    else hangUp.abort(new DOMException('the client closed the connection', 'AbortError'));
  });
  return deadline.signal;
}
