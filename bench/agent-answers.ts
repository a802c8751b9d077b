/**
 * The agent answers the fake upstream gives the long-stream and Codex cases (bench/streams.ts): text, then a tool call whose
 * arguments arrive in fragments, written once in each wire format (Anthropic SSE and JSON, OpenAI chat chunks and JSON,
 * and Responses for the passthrough's Codex calls), so the gateway and (c) get the same answer.
 */
import type { StreamEvent } from '../lib/messages/events';
import type { MessageResponse } from '../lib/messages/request';
import { messagesFromResponses, reasoningSeal, ResponseEnvelope, responseFromMessage, ResponsesStream, type ResponsesRequest } from '../lib/formats/openai-responses';

/** One answer: `texts` text deltas, then a call of `tool` whose arguments (`args`, as JSON) come in `fragments` pieces. */
export interface AgentAnswer { texts: number; fragments: number; tool: string; args: Record<string, unknown> }

/** Every format of one answer: what the fake upstream writes for each path. */
export interface AnswerWires { anthropicSse: string; anthropicJson: string; chatSse: string; chatJson: string }

const USAGE = { input_tokens: 1_200, output_tokens: 1 };
const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
/** The arguments' JSON cut into `n` pieces of (nearly) equal length. */
const pieces = (json: string, n: number): string[] => {
  const size = Math.ceil(json.length / n);
  return Array.from({ length: Math.ceil(json.length / size) }, (_, i) => json.slice(i * size, (i + 1) * size));
};
/** Text deltas: short words, as models stream them. */
const word = (i: number): string => (i % 13 === 12 ? 'done.\n' : `word${i % 7} `);

/** The Anthropic events of the answer (the stream the gateway's Anthropic adapter reads). */
export function anthropicEvents(a: AgentAnswer): StreamEvent[] {
  const args = JSON.stringify(a.args);
  return [
    { type: 'message_start', message: { id: 'msg_bench_agent', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: USAGE } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...Array.from({ length: a.texts }, (_, i): StreamEvent => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: word(i) } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_bench_01', name: a.tool, input: {} } },
    ...pieces(args, a.fragments).map((p): StreamEvent => ({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: p } })),
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: a.texts + a.fragments } },
    { type: 'message_stop' },
  ];
}

/** The same answer as one Message (the JSON answer). */
export function anthropicMessage(a: AgentAnswer): MessageResponse {
  return {
    id: 'msg_bench_agent', type: 'message', role: 'assistant', model: 'm',
    content: [{ type: 'text', text: Array.from({ length: a.texts }, (_, i) => word(i)).join('') }, { type: 'tool_use', id: 'toolu_bench_01', name: a.tool, input: a.args }],
    stop_reason: 'tool_use', stop_sequence: null, usage: { ...USAGE, output_tokens: a.texts + a.fragments },
  } as MessageResponse;
}

/** The answer in every upstream format. */
export function answerWires(a: AgentAnswer): AnswerWires {
  const chunk = (delta: object, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-agent', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const args = JSON.stringify(a.args);
  const text = Array.from({ length: a.texts }, (_, i) => word(i)).join('');
  const usage = { prompt_tokens: USAGE.input_tokens, completion_tokens: a.texts + a.fragments, total_tokens: USAGE.input_tokens + a.texts + a.fragments };
  const chatSse = chunk({ role: 'assistant', content: '' })
    + Array.from({ length: a.texts }, (_, i) => chunk({ content: word(i) })).join('')
    + chunk({ tool_calls: [{ index: 0, id: 'call_bench_01', type: 'function', function: { name: a.tool, arguments: '' } }] })
    + pieces(args, a.fragments).map((p) => chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] })).join('')
    + chunk({}, 'tool_calls')
    + `data: ${JSON.stringify({ id: 'chatcmpl-agent', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage })}\n\ndata: [DONE]\n\n`;
  const chatJson = JSON.stringify({
    id: 'chatcmpl-agent', object: 'chat.completion', created: 1, model: 'm', usage,
    choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: text, tool_calls: [{ id: 'call_bench_01', type: 'function', function: { name: a.tool, arguments: args } }] } }],
  });
  return {
    anthropicSse: anthropicEvents(a).map((e) => frame(e.type, e)).join(''),
    anthropicJson: JSON.stringify(anthropicMessage(a)),
    chatSse,
    chatJson,
  };
}

/**
 * The answer as an OpenAI Responses server gives it to `body` (the passthrough's Codex calls): written by the gateway's own
 * Responses writer, so (c) relays the very bytes the gateway writes (its echo of the request's instructions and tools included).
 */
export function responsesWires(a: AgentAnswer, body: Record<string, unknown>): { sse: string; json: string } {
  const { plan } = messagesFromResponses(body as unknown as ResponsesRequest, { format: 'anthropic', defaultMaxTokens: 4096, seal: reasoningSeal(undefined, 'bench') });
  const envelope = (): ResponseEnvelope => new ResponseEnvelope(plan, 'resp_bench_agent', String(body.model), 1_795_000_000);
  return { sse: new ResponsesStream(envelope()).framesOf(anthropicEvents(a)), json: JSON.stringify(responseFromMessage(anthropicMessage(a), envelope())) };
}
