/** The scripted agent task for the fake Anthropic upstream, as data: each turn's Message and the SSE events that stream it. */
import { pieces } from './fake-agent-server';

/** One turn's usage, as Anthropic reports it (cache creation split by TTL; `cache_creation_input_tokens` is their sum). */
export interface TurnUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  ephemeral_5m_input_tokens: number;
  ephemeral_1h_input_tokens: number;
  output_tokens: number;
}

/** What the fake answers. Turn "tool": thinking + a file-writing tool call; turn "answer" (after the tool_result): text;
 * turn "title": the JSON `{"title"}` Claude Code's session-title request asks for (sent unless non-essential traffic is off). */
export interface AnthropicAgentScript {
  /** The thinking block's `thinking_delta` pieces. */
  thinking: string[];
  /** The thinking block's opaque signature; a later turn must replay it byte for byte. */
  signature: string;
  /** Claude Code's file-writing tool (2.1.197: `Write`, input `{file_path, content}`, file_path absolute). */
  tool: string;
  /** The file to write; a relative name is resolved against the working directory named in the request. */
  file: { name: string; content: string };
  /** Characters per `input_json_delta` fragment. */
  fragment: number;
  /** The final answer's `text_delta` pieces. */
  answer: string[];
  /** The session title. */
  title: string;
  usage: { tool: TurnUsage; answer: TurnUsage; title: TurnUsage };
  /** What `POST /v1/messages/count_tokens` answers. */
  countTokens: number;
  /** What `GET /v1/models` lists. */
  models: string[];
}

/** A fixed opaque signature; its base64 holds `+` and `/`, which a careless re-serialiser escapes or mangles. */
export const AGENT_SIGNATURE = Buffer.from(Array.from({ length: 240 }, (_, i) => (i * 73 + 41) % 256)).toString('base64');

export const TOOL_USE_ID = 'toolu_01FakeAgentWrite7Qx';

export const DEFAULT_SCRIPT: AnthropicAgentScript = {
  thinking: ['The user wants a file.', ' I will create it', ' with the Write tool', ' in the working directory.'],
  signature: AGENT_SIGNATURE,
  tool: 'Write',
  file: { name: 'agent-output.txt', content: 'Written by the fake agent upstream.\nSecond line: "quoted" & ünïcode ✓\n' },
  fragment: 12,
  answer: ['I created', ' `agent-output.txt`', ' in the working directory.'],
  // Every figure distinct and non-zero, so a field billed under the wrong rate shows in the total.
  usage: {
    tool: { input_tokens: 7, cache_read_input_tokens: 1_500, ephemeral_5m_input_tokens: 11_000, ephemeral_1h_input_tokens: 2_000, output_tokens: 210 },
    answer: { input_tokens: 5, cache_read_input_tokens: 14_500, ephemeral_5m_input_tokens: 420, ephemeral_1h_input_tokens: 30, output_tokens: 37 },
    title: { input_tokens: 310, cache_read_input_tokens: 0, ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0, output_tokens: 9 },
  },
  title: 'Create a file',
  countTokens: 4_242,
  models: ['claude-fake-agent'],
};

export type TurnKind = keyof AnthropicAgentScript['usage'];

/** The full usage object of a Message (non-streamed, or a stream's final state). */
export function anthropicUsage(u: TurnUsage): Record<string, unknown> {
  return {
    input_tokens: u.input_tokens,
    cache_creation_input_tokens: u.ephemeral_5m_input_tokens + u.ephemeral_1h_input_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: u.ephemeral_5m_input_tokens, ephemeral_1h_input_tokens: u.ephemeral_1h_input_tokens },
    output_tokens: u.output_tokens,
    service_tier: 'standard',
  };
}

/** One SSE event: Anthropic frames it as `event: <event>` + `data: <json>`. */
export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

type Block = { type: 'thinking'; thinking: string; signature: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> } | { type: 'text'; text: string };

/** A turn as a Message (the JSON answer) and as the SSE events that stream it. */
export interface AgentTurn {
  message: Record<string, unknown>;
  events: SseEvent[];
}

function blockEvents(block: Block, index: number, script: AnthropicAgentScript, text: string[]): SseEvent[] {
  const delta = (d: Record<string, unknown>): SseEvent => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
  const start = (content_block: Record<string, unknown>): SseEvent => ({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block } });
  const stop: SseEvent = { event: 'content_block_stop', data: { type: 'content_block_stop', index } };
  if (block.type === 'thinking') {
    return [start({ type: 'thinking', thinking: '', signature: '' }), ...script.thinking.map((thinking) => delta({ type: 'thinking_delta', thinking })), delta({ type: 'signature_delta', signature: block.signature }), stop];
  }
  if (block.type === 'tool_use') {
    // Like Anthropic: the start carries `input: {}`, the first fragment is empty, the JSON follows in pieces.
    const json = ['', ...pieces(JSON.stringify(block.input), script.fragment)];
    return [start({ ...block, input: {} }), ...json.map((partial_json) => delta({ type: 'input_json_delta', partial_json })), stop];
  }
  return [start({ type: 'text', text: '' }), ...text.map((piece) => delta({ type: 'text_delta', text: piece })), stop];
}

/** Builds turn `kind` for `model`; `filePath` is the absolute path the tool call writes. */
export function agentTurn(kind: TurnKind, script: AnthropicAgentScript, model: string, filePath: string, id = 'msg_fake_agent'): AgentTurn {
  const text = kind === 'title' ? [JSON.stringify({ title: script.title })] : script.answer;
  const blocks: Block[] = kind === 'tool'
    ? [{ type: 'thinking', thinking: script.thinking.join(''), signature: script.signature }, { type: 'tool_use', id: TOOL_USE_ID, name: script.tool, input: { file_path: filePath, content: script.file.content } }]
    : [{ type: 'text', text: text.join('') }];
  const stop_reason = kind === 'tool' ? 'tool_use' : 'end_turn';
  const usage = anthropicUsage(script.usage[kind]);
  const message = { id, type: 'message', role: 'assistant', model, content: blocks, stop_reason, stop_sequence: null, usage };
  const { output_tokens, input_tokens, cache_creation_input_tokens, cache_read_input_tokens } = usage;
  const events: SseEvent[] = [
    // message_start holds the input and cache figures; output_tokens is still the placeholder 1.
    { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } } },
    ...blocks.flatMap((block, index) => blockEvents(block, index, script, text)),
    // message_delta's usage is cumulative: the whole turn's final figures.
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
  events.splice(2, 0, { event: 'ping', data: { type: 'ping' } }); // Anthropic pings after the first block starts.
  return { message, events };
}

