// The DevTools pipe (src/cards/render/devtools/pipe-connection.ts) without a browser: two streams
// stand for Chromium's descriptors 3 and 4, and the test plays the browser's side, so framing,
// replies, events and failures can be sent exactly as they would arrive in pieces.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PipeConnection, ProtocolError } from '../src/cards/render/devtools/pipe-connection.js';

/** A connection, what it wrote (parsed), and a way to send it bytes as the browser would. */
function connect() {
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const connection = new PipeConnection(toBrowser, fromBrowser);
  const written: Array<{ id: number; method: string; params: unknown; sessionId?: string }> = [];
  let pending = '';
  toBrowser.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const parts = pending.split('\0');
    pending = parts.pop()!;
    for (const part of parts) written.push(JSON.parse(part));
  });
  const answer = (message: object) => fromBrowser.write(`${JSON.stringify(message)}\0`);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { connection, written, answer, fromBrowser, settle };
}

describe('the DevTools pipe', () => {
  it('sends each command as one NUL-ended JSON message, with its session, and resolves it with its reply', async () => {
    const { connection, written, answer, settle } = connect();
    const version = connection.root.send('Browser.getVersion');
    const evaluated = connection.session('S1').send('Runtime.evaluate', { expression: '1 + 1' });
    await settle();
    assert.deepEqual(written, [
      { id: 1, method: 'Browser.getVersion', params: {} },
      { id: 2, method: 'Runtime.evaluate', params: { expression: '1 + 1' }, sessionId: 'S1' },
    ]);
    answer({ id: 2, result: { result: { type: 'number', value: 2 } }, sessionId: 'S1' });
    answer({ id: 1, result: { product: 'HeadlessChrome/147.0.7727.0' } });
    assert.equal((await version).product, 'HeadlessChrome/147.0.7727.0');
    assert.equal((await evaluated).result.value, 2);
  });

  it('reads messages however the bytes are cut: several in one chunk, one over many, a cut inside a character', async () => {
    const messages = fc.array(fc.record({ id: fc.integer({ min: 1, max: 50 }), text: fc.string({ unit: 'grapheme', maxLength: 40 }) }), { minLength: 1, maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(messages, fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 20 }), async (events, cuts) => {
        const { connection, fromBrowser, settle } = connect();
        const seen: unknown[] = [];
        connection.root.on('Log.entryAdded', (params) => seen.push(params));
        const bytes = Buffer.from(events.map((event) => `${JSON.stringify({ method: 'Log.entryAdded', params: event })}\0`).join(''), 'utf8');
        let at = 0;
        for (let i = 0; at < bytes.length; i++) {
          const size = cuts[i % cuts.length]!;
          fromBrowser.write(bytes.subarray(at, at + size));
          at += size;
        }
        await settle();
        assert.deepEqual(seen, JSON.parse(JSON.stringify(events)));
      }),
      { numRuns: 200 },
    );
  });

  it('delivers events to the session they name, and stops once a listener is removed', async () => {
    const { connection, answer, settle } = connect();
    const page = connection.session('PAGE');
    const other = connection.session('OTHER');
    const onPage: unknown[] = [];
    const onOther: unknown[] = [];
    const off = page.on('Page.loadEventFired', (params) => onPage.push(params));
    other.on('Page.loadEventFired', (params) => onOther.push(params));
    answer({ method: 'Page.loadEventFired', params: { timestamp: 1 }, sessionId: 'PAGE' });
    answer({ method: 'Page.loadEventFired', params: { timestamp: 2 }, sessionId: 'OTHER' });
    await settle();
    off();
    answer({ method: 'Page.loadEventFired', params: { timestamp: 3 }, sessionId: 'PAGE' });
    await settle();
    assert.deepEqual(onPage, [{ timestamp: 1 }]);
    assert.deepEqual(onOther, [{ timestamp: 2 }]);
  });

  it("rejects a command with the browser's error, naming the command", async () => {
    const { connection, answer, settle } = connect();
    const sent = connection.root.send('Target.closeTarget', { targetId: 'nope' });
    await settle();
    answer({ id: 1, error: { code: -32602, message: 'No target with given id found' } });
    await assert.rejects(sent, (error: unknown) => error instanceof ProtocolError && error.message === 'Target.closeTarget: No target with given id found');
  });

  it('fails every waiting command once the pipe closes, and each later one at once; close listeners hear it once', async () => {
    const { connection, fromBrowser } = connect();
    let closes = 0;
    connection.onClose(() => closes++);
    const waiting = connection.root.send('Browser.getVersion');
    fromBrowser.end();
    fromBrowser.destroy();
    await assert.rejects(waiting, /Browser\.getVersion: the browser closed its DevTools pipe/);
    await assert.rejects(connection.root.send('Browser.getVersion'), /Browser\.getVersion: the browser closed its DevTools pipe/);
    assert.equal(connection.closed, true);
    let late = 0;
    connection.onClose(() => late++);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([closes, late], [1, 1]);
  });

  it("fails a session's waiting commands when its target goes away, and leaves the others waiting", async () => {
    const { connection, answer, settle } = connect();
    const gone = connection.session('GONE').send('Runtime.evaluate', { expression: 'x' });
    const staying = connection.session('STAYS').send('Runtime.evaluate', { expression: 'y' });
    await settle();
    answer({ method: 'Target.detachedFromTarget', params: { sessionId: 'GONE' } });
    await assert.rejects(gone, /Runtime\.evaluate: the target is gone/);
    answer({ id: 2, result: { result: { type: 'string', value: 'y' } }, sessionId: 'STAYS' });
    assert.equal((await staying).result.value, 'y');
  });
});
