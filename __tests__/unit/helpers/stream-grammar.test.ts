/** The conformance suite's grammar checkers catch each way peers' translations were seen to break agents (docs/translation.md). */
import { chatViolations, messagesViolations, parseFrames, type Frame } from '../../helpers/stream-grammar';

type Json = Record<string, unknown>;
const ev = (data: Json): Frame => ({ event: String(data.type), data });
const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const start = ev({ type: 'message_start', message: { content: [], usage } });
const text = (index: number): Frame[] => [ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }), ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: 'x' } }), ev({ type: 'content_block_stop', index })];
const tool = (index: number, ...json: string[]): Frame[] => [
  ev({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: `t${index}`, name: 'f', input: {} } }),
  ...json.map((partial_json) => ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } })), ev({ type: 'content_block_stop', index }),
];
const end = (stop_reason: string): Frame[] => [ev({ type: 'message_delta', delta: { stop_reason }, usage }), ev({ type: 'message_stop' })];

describe('messagesViolations', () => {
  it('passes a well-formed stream with pings anywhere', () => {
    expect(messagesViolations([ev({ type: 'ping' }), start, ...text(0), ev({ type: 'ping' }), ...tool(1, '{"a":', '1}'), ...end('tool_use')])).toEqual([]);
  });

  it.each<[string, Frame[], RegExp]>([
    ['a duplicate message_start (LiteLLM #32357)', [start, start, ...text(0), ...end('end_turn')], /second message_start/],
    ['a text_delta on an open tool_use block (sglang #24293)', [start, ...tool(0, '{}').slice(0, 1), ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } }), ev({ type: 'content_block_stop', index: 0 }), ...end('tool_use')], /text_delta on a tool_use block/],
    ['a thinking_delta inside a text block (LiteLLM #33224)', [start, ...text(0).slice(0, 1), ev({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'x' } }), ev({ type: 'content_block_stop', index: 0 }), ...end('end_turn')], /thinking_delta on a text block/],
    ['end_turn although a tool was called (LiteLLM #34692)', [start, ...tool(0, '{}'), ...end('end_turn')], /stop_reason end_turn with 1 tool_use/],
    ['parallel calls merged into one block (sglang #39782)', [start, ...tool(0, '{"a":1}', '{"b":2}'), ...end('tool_use')], /is not a JSON object/],
    ['tool input only in content_block_start (LiteLLM PR #25411, ccrelay PR #119)', [start, ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'f', input: { a: 1 } } }), ev({ type: 'content_block_stop', index: 0 }), ...end('tool_use')], /tool input sent in content_block_start/],
    ['a delta for a block never started (LiteLLM #13373)', [start, ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } }), ...end('end_turn')], /not open/],
    ['a block started before the previous stopped', [start, ...text(0).slice(0, 2), ...tool(1, '{}'), ev({ type: 'content_block_stop', index: 0 }), ...end('tool_use')], /starts while block 0 is open/],
    ['message_start usage without the cache fields (LiteLLM #24176)', [ev({ type: 'message_start', message: { content: [], usage: { input_tokens: 1, output_tokens: 1 } } }), ...text(0), ...end('end_turn')], /usage.cache_read_input_tokens missing/],
    ['no message_stop', [start, ...text(0), ...end('end_turn').slice(0, 1)], /no message_stop/],
    ['a frame without its event line', [start, { event: undefined, data: { type: 'ping' } }, ...text(0), ...end('end_turn')], /event line/],
  ])('catches %s', (_name, frames, violation) => {
    expect(messagesViolations(frames).join('\n')).toMatch(violation);
  });
});

describe('chatViolations', () => {
  const chunk = (delta: Json, finish: string | null = null): string => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const call = (index: number, first: boolean, args: string): Json => ({ tool_calls: [{ index, ...(first ? { id: `c${index}`, type: 'function' } : {}), function: { ...(first ? { name: 'f' } : {}), arguments: args } }] });
  const usageChunk = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [], usage: {} })}\n\n`;
  const role = chunk({ role: 'assistant', content: '' });
  const check = (...frames: string[]): string => chatViolations(parseFrames([...frames, 'data: [DONE]\n\n'].join(''))).join('\n');

  it('passes a well-formed stream with keep-alive comments', () => {
    expect(check(role, ': keep-alive\n\n', chunk(call(0, true, '{"a"')), chunk(call(0, false, ':1}')), chunk(call(1, true, '{}')), chunk({}, 'tool_calls'), usageChunk)).toBe('');
  });

  it.each([
    ['a first fragment without its name', [role, chunk({ tool_calls: [{ index: 0, id: 'c0', type: 'function', function: { arguments: '{}' } }] }), chunk({}, 'tool_calls')], /starts without id, type and name/],
    ['a skipped index', [role, chunk(call(1, true, '{}')), chunk({}, 'tool_calls')], /index 1, expected 0/],
    ['stop although tools were called', [role, chunk(call(0, true, '{}')), chunk({}, 'stop')], /finish_reason stop with 1 tool calls/],
    ['arguments that are no JSON object', [role, chunk(call(0, true, '')), chunk({}, 'tool_calls')], /not a JSON object/],
    ['a choice after the finish reason', [role, chunk({}, 'stop'), chunk({ content: 'x' })], /a choice after the finish reason/],
    ['usage before the finish reason', [role, usageChunk, chunk({}, 'stop')], /usage chunk before the finish reason/],
  ])('catches %s', (_name, frames, violation) => {
    expect(check(...frames)).toMatch(violation);
  });
});
