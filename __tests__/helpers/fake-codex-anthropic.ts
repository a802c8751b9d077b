/** A scripted fake Anthropic Messages upstream for Codex through the gateway: the tasks of codex-tasks.ts as tool_use turns of the
 * tools the gateway presents, with a signed thinking block (task `reason`) that must come back byte for byte, first in its turn.
 * Optionally its input figures come from a simulated prompt cache, and a turn's stream falls silent but for Anthropic's pings. */
import type http from 'node:http';
import { ANSWERS, ANTHROPIC_USAGE, CODEX_SIGNATURE, CODEX_THINKING, taskOf, toolCall, type CodexTask, type CodexTurn } from './codex-tasks';
import { anthropicUsage, type SseEvent, type TurnUsage } from './fake-agent-anthropic-turns';
import { pieces, sendJson, startAgentServer, type AgentRequest, type AgentServer } from './fake-agent-server';
import { sleep, sse } from './fake-server';
import { PromptCache } from './prompt-cache';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const blocksOf = (m: unknown): Json[] => (isObject(m) && Array.isArray(m.content) ? m.content.filter(isObject) : []);

export const codexToolUseId = (task: CodexTask): string => `toolu_01Codex${task[0]?.toUpperCase()}${task.slice(1)}Call`;

export interface CodexAnthropicFake extends AgentServer {
  /** The recorded `POST /v1/messages` requests, in order. */
  messages(): AgentRequest[];
  /** What each answered `/v1/messages` request played, with the usage it reported. */
  turns: Array<{ task: CodexTask; turn: CodexTurn; usage: TurnUsage }>;
  /** When set, a call's input, cache-read and cache-write figures are what this cache makes of its breakpoints (the output
   * figure stays scripted); unset, every figure is scripted (ANTHROPIC_USAGE). */
  cache: PromptCache | undefined;
  /** When set, the streamed answer of this turn falls silent after its opening events for `ms`, sending only a `ping` every
   * `pingMs` (as Anthropic does while a model thinks at length), then goes on. */
  stall: { turn: CodexTurn; ms: number; pingMs: number } | undefined;
}

/** Writes a turn's events; with `stall`, silent but for pings after the first two (message_start, the first block's start). */
async function play(res: http.ServerResponse, events: SseEvent[], stall: { ms: number; pingMs: number } | undefined): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [i, e] of events.entries()) {
    if (i === 2 && stall) {
      for (let until = Date.now() + stall.ms; Date.now() < until && !res.destroyed;) {
        await sleep(stall.pingMs);
        sse(res, { type: 'ping' }, 'ping');
      }
    }
    if (res.destroyed) return;
    sse(res, e.data, e.event);
  }
  res.end();
}

/** A turn as a Message (the JSON answer) and as the SSE events that stream it, in Anthropic's order and framing. */
export function anthropicTurn(blocks: Json[], usage: TurnUsage, model: string, id: string): { message: Json; events: SseEvent[] } {
  const stop_reason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const full = anthropicUsage(usage);
  const message = { id, type: 'message', role: 'assistant', model, content: blocks, stop_reason, stop_sequence: null, usage: full };
  const events: SseEvent[] = [{ event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...full, output_tokens: 1 } } } }];
  blocks.forEach((block, index) => {
    const delta = (d: Json): SseEvent => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
    const parts: SseEvent[] = [];
    if (block.type === 'thinking') {
      parts.push(...CODEX_THINKING.map((thinking) => delta({ type: 'thinking_delta', thinking })), delta({ type: 'signature_delta', signature: block.signature }));
    } else if (block.type === 'tool_use') {
      parts.push(...['', ...pieces(JSON.stringify(block.input), 16)].map((partial_json) => delta({ type: 'input_json_delta', partial_json })));
    } else {
      parts.push(...pieces(String(block.text), 12).map((text) => delta({ type: 'text_delta', text })));
    }
    const start = block.type === 'thinking' ? { type: 'thinking', thinking: '', signature: '' } : block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } }, ...parts, { event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = full;
  events.push(
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  events.splice(2, 0, { event: 'ping', data: { type: 'ping' } });
  return { message, events };
}

/** What Anthropic would refuse in the replayed history; undefined when it is fine. A thinking block must carry the fake's own
 * signature, and the assistant turn of the signed tool call must start with that thinking block, unchanged. */
function refusal(messages: unknown[]): string | undefined {
  for (const [i, m] of messages.entries()) {
    if (!isObject(m) || m.role !== 'assistant') continue;
    const blocks = blocksOf(m);
    for (const [j, b] of blocks.entries()) {
      if ((b.type === 'thinking' && b.signature !== CODEX_SIGNATURE) || (b.type === 'thinking' && b.thinking !== CODEX_THINKING.join(''))) return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
    }
    if (blocks.some((b) => b.type === 'tool_use' && b.id === codexToolUseId('reason')) && blocks[0]?.type !== 'thinking') {
      return `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(blocks[0]?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
    }
  }
  return undefined;
}

function fail(res: http.ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message } });
}

/** Starts the fake: `POST /v1/messages` (JSON or SSE) plays the task named in the request; `POST /v1/messages/count_tokens`
 * answers a fixed count; anything else gets a 404 in Anthropic's error shape. Every request is recorded raw. */
export async function startCodexAnthropic(): Promise<CodexAnthropicFake> {
  const turns: CodexAnthropicFake['turns'] = [];
  const server = await startAgentServer((req, res) => {
    const route = `${req.method} ${req.path.split('?')[0] ?? ''}`;
    const body = req.body;
    if (route === 'POST /v1/messages/count_tokens') return sendJson(res, 200, { input_tokens: 4_242 });
    if (route !== 'POST /v1/messages') return fail(res, 404, 'not_found_error', `${req.method} ${req.path} is not scripted by the fake`);
    if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages) || typeof body.max_tokens !== 'number') {
      return fail(res, 400, 'invalid_request_error', 'model, messages and max_tokens are required');
    }
    const task = taskOf(req.text);
    if (task === undefined) return fail(res, 400, 'invalid_request_error', 'fake: no codex-task:<task> marker in the request');
    const problem = refusal(body.messages);
    if (problem) return fail(res, 400, 'invalid_request_error', problem);
    const turn: CodexTurn = body.messages.some((m) => blocksOf(m).some((b) => b.type === 'tool_result')) ? 'answer' : 'tool';
    let blocks: Json[] = [{ type: 'text', text: ANSWERS[task].join('') }];
    if (turn === 'tool') {
      const tools = (Array.isArray(body.tools) ? body.tools.filter(isObject) : []).map((t): [string, unknown] => [String(t.name), t.input_schema]);
      const call = toolCall(task, tools);
      if (typeof call === 'string') return fail(res, 400, 'invalid_request_error', call);
      blocks = [{ type: 'tool_use', id: codexToolUseId(task), ...call }];
      if (task === 'reason') blocks.unshift({ type: 'thinking', thinking: CODEX_THINKING.join(''), signature: CODEX_SIGNATURE });
    }
    let usage = ANTHROPIC_USAGE[task][turn];
    const cached = fake.cache?.use(body);
    if (cached) usage = { input_tokens: cached.input, cache_read_input_tokens: cached.read, ephemeral_5m_input_tokens: cached.write5m, ephemeral_1h_input_tokens: cached.write1h, output_tokens: usage.output_tokens };
    turns.push({ task, turn, usage });
    const { message, events } = anthropicTurn(blocks, usage, body.model, `msg_codex_${server.requests.length}`);
    if (body.stream !== true) return sendJson(res, 200, message);
    void play(res, events, fake.stall?.turn === turn ? fake.stall : undefined);
  });
  const messages = (): AgentRequest[] => server.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0] === '/v1/messages');
  const fake: CodexAnthropicFake = Object.assign(server, { messages, turns, cache: undefined, stall: undefined });
  return fake;
}
