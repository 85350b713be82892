// One deadline per request, carried through every step (queue wait, render, upload) as an
// AbortSignal. It also fires when the client hangs up before the answer, so no work continues
// for nobody.
import type { FastifyReply } from 'fastify';

export function requestDeadline(reply: FastifyReply, timeoutMs: number): AbortSignal {
  const clientGone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) clientGone.abort(new DOMException('the client closed the connection', 'AbortError'));
  });
  return AbortSignal.any([AbortSignal.timeout(timeoutMs), clientGone.signal]);
}
