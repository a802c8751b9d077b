/** A fake OpenAI Chat Completions upstream; the upstream model name picks the behaviour. */
import type http from 'node:http';
import { failWith, gate, SECRET_MARKER, sleep, sse, startFake, UPSTREAM_KEY, type GatedFake } from './fake-server';

export const OPENAI_USAGE = { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42, prompt_tokens_details: { cached_tokens: 10 } };
export const OPENAI_DELTAS = ['Hi', ' there', '!'];

const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> =>
  ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{ index: 0, delta, finish_reason: finish }], usage: null });

/**
 * Behaviours: `*-json`, `*-stream`, `*-slow`, `*-nousage`, `*-error-wrapped`, `*-error-unwrapped`, `*-reset`, `*-length`,
 * `*-onewrite` (one socket write), `*-status-<code>`, `*-gated` (waits after its first delta until `openGates()`).
 */
/** Keeps a response's writes and sends them all with end(), in one socket write (on Node 24, res.cork() sends end()'s last chunk before the corked ones). */
function holdWrites(res: http.ServerResponse): void {
  const held: Buffer[] = [];
  const end = res.end.bind(res);
  res.write = ((chunk: string | Buffer) => { held.push(Buffer.from(chunk)); return true; }) as typeof res.write;
  res.end = (() => end(Buffer.concat(held))) as typeof res.end;
}

export async function startOpenAIFake(): Promise<GatedFake> {
  const gates = gate();
  const fake = await startFake(async (req, res) => {
    const model = String(req.body.model ?? '');
    const status = /status-(\d{3})/.exec(model);
    if (status) return failWith(res, Number(status[1]), { 'retry-after': '3' });
    const finish = model.endsWith('-length') ? 'length' : 'stop';
    if (!req.body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({
        id: 'chatcmpl-1', object: 'chat.completion', created: 1, model,
        choices: [{ index: 0, message: { role: 'assistant', content: OPENAI_DELTAS.join('') }, finish_reason: finish }],
        ...(model.endsWith('-nousage') ? {} : { usage: OPENAI_USAGE }),
      }));
    }
    if (model.endsWith('-onewrite')) holdWrites(res); // the whole stream in one socket write, at end()
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    sse(res, chunk({ role: 'assistant', content: '' }));
    sse(res, chunk({ content: OPENAI_DELTAS[0] }));
    if (model.endsWith('-error-wrapped')) {
      sse(res, { error: { message: `boom ${SECRET_MARKER} key ${UPSTREAM_KEY}`, type: 'InternalServerError', code: 500 } });
      sse(res, '[DONE]');
      return void res.end();
    }
    if (model.endsWith('-error-unwrapped')) {
      sse(res, { object: 'error', message: `boom ${SECRET_MARKER}`, type: 'BadRequestError', code: 503 });
      return void res.end();
    }
    if (model.endsWith('-reset')) {
      await sleep(20);
      return void res.socket?.destroy();
    }
    if (model.endsWith('-gated')) await gates.wait();
    if (res.destroyed) return;
    for (const text of OPENAI_DELTAS.slice(1)) {
      if (res.destroyed) return;
      if (model.endsWith('-slow')) await sleep(40);
      sse(res, chunk({ content: text }));
    }
    sse(res, chunk({}, finish));
    if (!model.endsWith('-nousage')) sse(res, { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model, choices: [], usage: OPENAI_USAGE });
    sse(res, '[DONE]');
    res.end();
  });
  return Object.assign(fake, { openGates: gates.open });
}
