/**
 * Scripted upstreams of every format from one description of a turn: what the model says (thinking,
 * text, tool calls, a web search) and its usage, rendered as Anthropic Messages (JSON and SSE),
 * OpenAI Chat Completions (JSON and chunks) or, for text and calls, OpenAI Responses (through
 * fake-responses). Each request is recorded with its raw body; the script picks each turn from the
 * request it answers.
 */
import type http from 'node:http';
import { pieces, sendJson, startAgentServer, type AgentRequest, type AgentServer } from './fake-agent-server';
import { functionCall, message, responsesUsage, startResponsesFake, type ResponsesTurn } from './fake-responses';

type Json = Record<string, unknown>;

/** Prices of one minor unit per input token (0.1 per cache read, 1.25 and 2 per cache write, 2 per output, 1,000 per search): each call's exact cost is a number to check. */
export const UNIT_PRICING = { input: 1_000_000, output: 2_000_000, cacheRead: 100_000, cacheWrite5m: 1_250_000, cacheWrite1h: 2_000_000, webSearch: 1_000_000 };

/** One turn of the model, in neither format. */
export interface ScriptedTurn {
  thinking?: { text: string[]; signature: string };
  /** Anthropic only: a redacted_thinking block's data. */
  redacted?: string;
  /** Anthropic only: a web search the upstream ran (server_tool_use and its result) before the text. */
  search?: { query: string };
  text?: string[];
  calls?: Array<{ id: string; name: string; input: Json }>;
  /** The stop reason; default: tool_use with calls, else end_turn. */
  stop?: 'end_turn' | 'tool_use' | 'max_tokens';
  usage: { input: number; output: number; cacheRead?: number; cache5m?: number; cache1h?: number; searches?: number };
  /** Awaited before the response's headers (an upstream silent before its first event). */
  before?: Promise<void>;
  /** Awaited after the first text delta (an upstream silent mid-stream). */
  pause?: Promise<void>;
  /** Anthropic only: this many `ping` events, 15 ms apart, after the first event (a long thinking phase says nothing else). */
  pings?: number;
  /** Ends the stream with an upstream error event after the first text delta. */
  failMidStream?: boolean;
  /** Answers this HTTP status with an error body in the format's shape carrying `message`. */
  status?: { code: number; message: string };
}

export type Script = (body: Json, n: number) => ScriptedTurn;

export interface ScriptedUpstream extends AgentServer {
  script: Script;
  /** The recorded chat or messages requests (count_tokens excluded). */
  calls(): AgentRequest[];
}

const stopOf = (t: ScriptedTurn): string => t.stop ?? ((t.calls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');

/** The Anthropic usage object of a turn (message_start carries it with the output placeholder 1). */
export function anthropicUsageOf(t: ScriptedTurn): Json {
  const u = t.usage;
  const split = { ephemeral_5m_input_tokens: u.cache5m ?? 0, ephemeral_1h_input_tokens: u.cache1h ?? 0 };
  return {
    input_tokens: u.input, cache_creation_input_tokens: split.ephemeral_5m_input_tokens + split.ephemeral_1h_input_tokens, cache_read_input_tokens: u.cacheRead ?? 0,
    cache_creation: split, output_tokens: u.output, ...(u.searches ? { server_tool_use: { web_search_requests: u.searches } } : {}),
  };
}

function anthropicBlocks(t: ScriptedTurn): Json[] {
  const blocks: Json[] = [];
  if (t.thinking) blocks.push({ type: 'thinking', thinking: t.thinking.text.join(''), signature: t.thinking.signature });
  if (t.redacted) blocks.push({ type: 'redacted_thinking', data: t.redacted });
  if (t.search) {
    blocks.push({ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: t.search.query } });
    blocks.push({ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Example', encrypted_content: 'enc', page_age: null }] });
  }
  if (t.text) blocks.push({ type: 'text', text: t.text.join('') });
  for (const call of t.calls ?? []) blocks.push({ type: 'tool_use', ...call });
  return blocks;
}

function anthropicEvents(t: ScriptedTurn, model: string): Json[] {
  const usage = anthropicUsageOf(t);
  const events: Json[] = [{ type: 'message_start', message: { id: 'msg_scripted', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }];
  anthropicBlocks(t).forEach((block, index) => {
    const delta = (d: Json): Json => ({ type: 'content_block_delta', index, delta: d });
    if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      events.push(...(t.thinking?.text ?? []).map((thinking) => delta({ type: 'thinking_delta', thinking })), delta({ type: 'signature_delta', signature: block.signature }));
    } else if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, ...(t.text ?? []).map((text) => delta({ type: 'text_delta', text })));
    } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } }, ...['', ...pieces(JSON.stringify(block.input), 7)].map((partial_json) => delta({ type: 'input_json_delta', partial_json })));
    } else {
      events.push({ type: 'content_block_start', index, content_block: block });
    }
    events.push({ type: 'content_block_stop', index });
  });
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens, server_tool_use } = usage;
  events.push({ type: 'message_delta', delta: { stop_reason: stopOf(t), stop_sequence: null }, usage: { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens, ...(server_tool_use ? { server_tool_use } : {}) } });
  events.push({ type: 'message_stop' });
  return events;
}

function openaiUsageOf(t: ScriptedTurn): Json {
  const prompt = t.usage.input + (t.usage.cacheRead ?? 0);
  return { prompt_tokens: prompt, completion_tokens: t.usage.output, total_tokens: prompt + t.usage.output, prompt_tokens_details: { cached_tokens: t.usage.cacheRead ?? 0 } };
}

const FINISH: Readonly<Record<string, string>> = { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' };

function openaiChunks(t: ScriptedTurn, model: string): Json[] {
  const base = { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1, model };
  const chunk = (delta: Json, finish: string | null = null): Json => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks = [chunk({ role: 'assistant', content: '' })];
  chunks.push(...(t.thinking?.text ?? []).map((reasoning_content) => chunk({ reasoning_content })), ...(t.text ?? []).map((content) => chunk({ content })));
  (t.calls ?? []).forEach((call, index) => {
    const [first = '', ...rest] = pieces(JSON.stringify(call.input), 9);
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: first } }] }));
    chunks.push(...rest.map((args) => chunk({ tool_calls: [{ index, function: { arguments: args } }] })));
  });
  chunks.push(chunk({}, FINISH[stopOf(t)] ?? 'stop'), { ...base, choices: [], usage: openaiUsageOf(t) });
  return chunks;
}

function openaiCompletion(t: ScriptedTurn, model: string): Json {
  const message: Json = { role: 'assistant', content: t.text ? t.text.join('') : null };
  if (t.thinking) message.reasoning_content = t.thinking.text.join('');
  if (t.calls) message.tool_calls = t.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));
  return { id: 'chatcmpl-scripted', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message, finish_reason: FINISH[stopOf(t)] ?? 'stop' }], usage: openaiUsageOf(t) };
}

async function stream(res: http.ServerResponse, frames: string[], t: ScriptedTurn, failure: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  // A pause or a failure comes after the first text delta (the role chunk's empty content is none).
  const firstDelta = frames.findIndex((f) => f.includes('text_delta') || (f.includes('"content":"') && !f.includes('"role"')));
  const cut = t.pause || t.failMidStream ? firstDelta + 1 : t.pings ? 1 : frames.length;
  res.write(frames.slice(0, cut).join(''));
  for (let i = 0; i < (t.pings ?? 0) && !res.destroyed; i++) {
    await new Promise((r) => setTimeout(r, 15));
    res.write('event: ping\ndata: {"type":"ping"}\n\n');
  }
  if (t.pause) await t.pause;
  if (t.failMidStream) return void res.end(failure);
  res.end(frames.slice(cut).join(''));
}

/** Starts a scripted upstream of `format` on 127.0.0.1:0. Anthropic also answers count_tokens (`{input_tokens: 4242}`). */
export async function startScripted(format: 'anthropic' | 'openai', script: Script): Promise<ScriptedUpstream> {
  const self = { script };
  const server = await startAgentServer((req, res) => {
    if (req.path.endsWith('/count_tokens')) return sendJson(res, 200, { input_tokens: 4242 });
    const body = req.body ?? {};
    const turn = self.script(body, server.requests.filter((r) => !r.path.endsWith('/count_tokens')).length - 1);
    void (async () => {
      if (turn.before) await turn.before;
      if (turn.status) {
        const error = format === 'anthropic' ? { type: 'error', error: { type: 'invalid_request_error', message: turn.status.message } } : { error: { message: turn.status.message, type: 'invalid_request_error', code: null } };
        return sendJson(res, turn.status.code, error);
      }
      const model = String(body.model);
      if (format === 'anthropic') {
        const blocks = anthropicBlocks(turn);
        if (body.stream !== true) return sendJson(res, 200, { id: 'msg_scripted', type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopOf(turn), stop_sequence: null, usage: anthropicUsageOf(turn) });
        const frames = anthropicEvents(turn, model).map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`);
        return stream(res, frames, turn, `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded (upstream words)' } })}\n\n`);
      }
      if (body.stream !== true) return sendJson(res, 200, openaiCompletion(turn, model));
      const frames = [...openaiChunks(turn, model).map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'];
      return stream(res, frames, turn, `data: ${JSON.stringify({ error: { message: 'boom (upstream words)', type: 'server_error', code: 500 } })}\n\n`);
    })();
  });
  const calls = (): AgentRequest[] => server.requests.filter((r) => !r.path.endsWith('/count_tokens'));
  return Object.assign(self, server, { calls });
}

/** A turn as a Responses answer: a message and function calls; `input_tokens` is the whole prompt, its cached and written parts in `input_tokens_details`. */
function responsesTurnOf(t: ScriptedTurn): ResponsesTurn {
  const { thinking, redacted, search, before, pause, pings, failMidStream, status } = t;
  if ([thinking, redacted, search, before, pause, pings, failMidStream, status, t.usage.cache1h, t.usage.searches].some((x) => x !== undefined)) throw new Error('fake: a Responses turn scripts text, calls and usage only');
  const output = [...(t.text ? [message(t.text.join(''))] : []), ...(t.calls ?? []).map((c, i) => functionCall(c.name, c.input, c.id, `fc_scripted_${i}`))];
  const u = t.usage;
  const usage = responsesUsage({ input: u.input + (u.cacheRead ?? 0) + (u.cache5m ?? 0), cached: u.cacheRead ?? 0, cacheWrite: u.cache5m ?? 0, output: u.output, reasoning: 0 });
  return { output, usage, status: stopOf(t) === 'max_tokens' ? 'incomplete' : 'completed' };
}

/** A scripted native Responses upstream (`POST /v1/responses`, JSON and SSE) on 127.0.0.1:0: startResponsesFake answering the script's turns, storing what it answers as OpenAI does. */
export async function startScriptedResponses(script: Script): Promise<ScriptedUpstream> {
  const self = { script };
  const fake = await startResponsesFake((req) => responsesTurnOf(self.script(req.body ?? {}, fake.responses().length - 1)));
  return Object.assign(self, { url: fake.url, requests: fake.requests, close: () => fake.close(), calls: () => fake.responses() });
}
