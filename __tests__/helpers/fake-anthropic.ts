/** A fake Anthropic Messages upstream; the upstream model name picks the behaviour. */
import type http from 'node:http';
import { failWith, gate, SECRET_MARKER, sleep, sse, startFake, UPSTREAM_KEY, type GatedFake } from './fake-server';

export const ANTHROPIC_USAGE = { input_tokens: 25, output_tokens: 15 };
export const DELTAS = ['Hello', ' from', ' the', ' fake', ' upstream'];
/** Events of the `*-flood` behaviour (1 KiB each) and how many were written so far. */
export const FLOOD_EVENTS = 50_000;
export const flood = { written: 0 };

function start(res: http.ServerResponse, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  sse(res, { type: 'message_start', message: { id: 'msg_fake', type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { input_tokens: 25, output_tokens: 1 } } }, 'message_start');
  sse(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start');
  sse(res, { type: 'ping' }, 'ping');
}

function delta(res: http.ServerResponse, text: string): void {
  sse(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta');
}

/** Output tokens the `*-huge-usage` behaviour reports: an integer no store column can hold. */
export const HUGE_OUTPUT = 1e20;

/** Ends the stream; with `linger`, the body stays open after message_stop until it resolves. */
function finish(res: http.ServerResponse, linger?: Promise<void>, outputTokens = 15): void {
  sse(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
  sse(res, { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: outputTokens } }, 'message_delta');
  sse(res, { type: 'message_stop' }, 'message_stop');
  if (linger) void linger.then(() => res.end());
  else res.end();
}

/** Behaviours: `*-onewrite` (a whole stream in one write), `*-noisy` (comment, id and retry fields between deltas), `*-tail` (a read with a misnamed event line, one with an event after message_stop), `*-reset-before-headers`, `*-reset-mid-body`, `*-badjson`, `*-big`, `*-bad-sse`, `*-drip`, `*-json`, `*-stream`, `*-slow` (deltas 40 ms apart), `*-midstream-error`, `*-reset`,
 * `*-flood` (50 MiB honouring backpressure), `*-stall`, `*-stall-midstream`, `*-truncated`, `*-status-<code>`, `*-html`,
 * `*-linger` (ends its body after message_stop only at `openGates()`), `*-error-open` (an error event, then the body stays open),
 * `*-long-<ms>` (deltas spread over <ms> milliseconds), `*-trickle` (comment lines every 100 ms after message_stop, for 10 s),
 * `*-huge-usage` (output_tokens 1e20, JSON and stream), `*-gated` (a stream that waits after its first delta until
 * `openGates()`: in flight for as long as a test needs, whatever the machine's speed). `POST /v1/messages/count_tokens`
 * answers `{input_tokens}`: the length of `JSON.stringify([system ?? '', messages])`. */
export async function startAnthropicFake(): Promise<GatedFake> {
  const gates = gate();
  const fake = await startFake(async (req, res) => {
    const model = String(req.body.model ?? '');
    const status = /status-(\d{3})/.exec(model);
    if (status) return failWith(res, Number(status[1]), { 'retry-after': '7' });
    if (req.path === '/v1/messages/count_tokens') {
      // Anthropic's count: characters of the messages and system, as a stand-in tokenizer; refuses any other field.
      const extra = Object.keys(req.body).filter((k) => !['model', 'messages', 'system'].includes(k));
      if (extra.length > 0) return failWith(res, 400);
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ input_tokens: JSON.stringify([req.body.system ?? '', req.body.messages]).length }));
    }
    if (model.endsWith('-stall')) return; // never answers
    if (model.endsWith('-reset-before-headers')) return void res.socket?.destroy();
    if (model.endsWith('-reset-mid-body')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"id":"msg_fake","type":"mess');
      await sleep(20);
      return void res.socket?.destroy();
    }
    if (model.endsWith('-badjson')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(`{not json ${SECRET_MARKER}`);
    }
    if (model.endsWith('-big')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ padding: 'x'.repeat(5000), marker: SECRET_MARKER }));
    }
    if (model.endsWith('-html')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end(`<html>${SECRET_MARKER}</html>`);
    }
    const outputTokens = model.endsWith('-huge-usage') ? HUGE_OUTPUT : ANTHROPIC_USAGE.output_tokens;
    if (!req.body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({
        id: 'msg_fake', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: DELTAS.join('') }],
        stop_reason: 'end_turn', stop_sequence: null, usage: { ...ANTHROPIC_USAGE, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      }));
    }
    if (model.endsWith('-onewrite')) {
      // The whole stream in one write, so it reaches the gateway as one read.
      const frames: string[] = [];
      const capture = { write: (text: string) => frames.push(text), writeHead: () => capture, end: () => undefined, destroyed: false } as unknown as http.ServerResponse;
      start(capture, model);
      for (const text of DELTAS) delta(capture, text);
      finish(capture);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.end(frames.join(''));
    }
    start(res, model);
    if (model.endsWith('-midstream-error')) {
      delta(res, DELTAS[0] as string);
      sse(res, { type: 'error', error: { type: 'overloaded_error', message: `Overloaded ${SECRET_MARKER} key ${UPSTREAM_KEY}` } }, 'error');
      return void res.end();
    }
    if (model.endsWith('-error-open')) {
      delta(res, DELTAS[0] as string);
      return void sse(res, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error');
    }
    if (model.endsWith('-reset')) {
      delta(res, DELTAS[0] as string);
      await sleep(20);
      return void res.socket?.destroy();
    }
    if (model.endsWith('-stall-midstream')) return void delta(res, DELTAS[0] as string);
    if (model.endsWith('-gated')) {
      delta(res, DELTAS[0] as string);
      await gates.wait();
      if (res.destroyed) return;
      for (const text of DELTAS.slice(1)) delta(res, text);
      return finish(res);
    }
    if (model.endsWith('-bad-sse')) {
      res.write(`event: content_block_delta\ndata: {broken ${SECRET_MARKER}\n\n`);
      return void res.end();
    }
    if (model.endsWith('-noisy')) {
      // Events with what a client must not get from the gateway: a comment, an id and a retry field, each in a chunk of its own.
      const [a, b, c] = DELTAS.map((text) => `data: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`);
      for (const chunk of [`: keep-alive ${SECRET_MARKER}\n\nevent: content_block_delta\n${a}`, `id: 7\nevent: content_block_delta\n${b}`, `retry: 900\n\nevent: content_block_delta\n${c}`]) {
        res.write(chunk);
        await sleep(10);
      }
      return finish(res);
    }
    if (model.endsWith('-tail')) {
      delta(res, DELTAS[0] as string);
      await sleep(10);
      // A read with an event line that is not its data's type, then one with an event after message_stop.
      res.write(`event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: delta\ndata: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 15 } })}\n\n`);
      await sleep(10);
      return void res.end('event: message_stop\ndata: {"type":"message_stop"}\n\nevent: ping\ndata: {"type":"ping"}\n\n');
    }
    if (model.endsWith('-drip')) {
      // Each remaining frame goes out a few bytes at a time, 30 ms apart.
      for (const text of DELTAS) {
        const frame = `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`;
        for (let i = 0; i < frame.length; i += 40) {
          res.write(frame.slice(i, i + 40));
          await sleep(30);
        }
      }
      return finish(res);
    }
    if (model.endsWith('-truncated')) {
      delta(res, DELTAS[0] as string);
      return void res.end();
    }
    if (model.endsWith('-flood')) {
      const chunk = 'x'.repeat(1024);
      for (let i = 0; i < FLOOD_EVENTS && !res.destroyed; i++) {
        flood.written = i + 1;
        sse(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: chunk } }, 'content_block_delta');
        if (res.writableNeedDrain) await new Promise((r) => res.once('drain', r));
      }
      return finish(res);
    }
    const long = /-long-(\d+)$/.exec(model);
    if (long) {
      const until = Date.now() + Number(long[1]);
      while (Date.now() < until && !res.destroyed) {
        delta(res, '.');
        await sleep(50);
      }
      return finish(res);
    }
    if (model.endsWith('-trickle')) {
      for (const text of DELTAS) delta(res, text);
      sse(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
      sse(res, { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 15 } }, 'message_delta');
      sse(res, { type: 'message_stop' }, 'message_stop');
      for (let i = 0; i < 100 && !res.destroyed; i++) {
        res.write(': still here\n\n');
        await sleep(100);
      }
      return void res.end();
    }
    for (const text of DELTAS) {
      if (res.destroyed) return;
      delta(res, text);
      if (model.endsWith('-slow')) await sleep(40);
    }
    finish(res, model.endsWith('-linger') ? gates.wait() : undefined, outputTokens);
  });
  return Object.assign(fake, { openGates: gates.open });
}
