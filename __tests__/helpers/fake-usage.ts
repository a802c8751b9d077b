/**
 * A fake Anthropic Messages upstream whose confirmed usage the upstream model name sets:
 * `usage-<input>-<output>` (JSON or SSE, as asked). With `-gated`, its answer waits until
 * `openGates()`, so a request stays in flight for as long as a test needs.
 */
import { gate, sse, startFake, type GatedFake } from './fake-server';

export async function startUsageFake(): Promise<GatedFake> {
  let gates = gate();
  const fake = await startFake(async (req, res) => {
    const model = String(req.body.model ?? '');
    const [, input = '1', output = '1'] = /usage-(\d+)-(\d+)/.exec(model) ?? [];
    const usage = { input_tokens: Number(input), output_tokens: Number(output), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (model.endsWith('-gated')) await gates.wait();
    if (!req.body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg_usage', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    sse(res, { type: 'message_start', message: { id: 'msg_usage', type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }, 'message_start');
    sse(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start');
    sse(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }, 'content_block_delta');
    sse(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
    sse(res, { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }, 'message_delta');
    sse(res, { type: 'message_stop' }, 'message_stop');
    res.end();
  });
  return Object.assign(fake, {
    openGates: () => {
      gates.open();
      gates = gate();
    },
  });
}
