/** The scripted agent task for the fake OpenAI Chat Completions upstream, as data: each mode's chunk sequence and JSON answer. */
import { pieces } from './fake-agent-server';

/** How the upstream shapes its stream, after the servers seen in the wild:
 * - `standard`: reasoning deltas, then one tool call (id + name + first fragment, then many small fragments), an empty finish chunk;
 * - `parallel`: two tool calls, index 0 then index 1;
 * - `ollama`: two tool calls both at index 0, told apart only by their ids, each whole in one chunk;
 * - `one-chunk`: the call's id, name and all its arguments in one chunk;
 * - `content-finish`: the last fragment or text piece carries `finish_reason` (no empty finish chunk);
 * - `no-usage`: never any usage, even when `stream_options.include_usage` asks for it;
 * - `strict-reasoning`: DeepSeek thinking mode: 400 when an assistant tool-call turn comes back without its reasoning. */
export const OPENAI_MODES = ['standard', 'parallel', 'ollama', 'one-chunk', 'content-finish', 'no-usage', 'strict-reasoning'] as const;
export type OpenAIMode = (typeof OPENAI_MODES)[number];

/** One turn's usage; `cached_tokens` is part of `prompt_tokens`, as OpenAI counts. */
export interface OpenAITurnUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
}

export interface OpenAIAgentScript {
  mode: OpenAIMode;
  /** `reasoning_content` (DeepSeek, SGLang) or `reasoning` (vLLM ≥ 0.11). */
  reasoningField: 'reasoning_content' | 'reasoning';
  reasoning: string[];
  /** The file-writing tool the calls name (Claude Code's `Write`, arguments `{file_path, content}`). */
  tool: string;
  /** The files the calls write (the second only in two-call modes); relative names resolve against the request's working directory. */
  files: Array<{ name: string; content: string }>;
  /** Characters per arguments fragment after the first chunk. */
  fragment: number;
  answer: string[];
  usage: { tool: OpenAITurnUsage; answer: OpenAITurnUsage };
}

export const DEFAULT_OPENAI_SCRIPT: OpenAIAgentScript = {
  mode: 'standard',
  reasoningField: 'reasoning_content',
  reasoning: ['The user wants a file;', ' I will call Write', ' with an absolute path.'],
  tool: 'Write',
  files: [
    { name: 'agent-output.txt', content: 'Written by the fake OpenAI upstream.\n"quoted" & ünïcode ✓\n' },
    { name: 'agent-second.txt', content: 'The second parallel call.\n' },
  ],
  fragment: 4,
  answer: ['Created', ' the file', ' as asked.'],
  usage: { tool: { prompt_tokens: 12_400, completion_tokens: 180, cached_tokens: 11_264 }, answer: { prompt_tokens: 12_900, completion_tokens: 24, cached_tokens: 12_288 } },
};

export type OpenAITurnKind = keyof OpenAIAgentScript['usage'];
type Json = Record<string, unknown>;

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The calls turn "tool" makes in `mode`, writing `paths` (absolute). */
export function toolCalls(script: OpenAIAgentScript, mode: OpenAIMode, paths: string[]): ToolCall[] {
  const count = mode === 'parallel' || mode === 'ollama' ? 2 : 1;
  return script.files.slice(0, count).map((file, i) => ({ id: `call_fake_agent_${i}`, name: script.tool, arguments: JSON.stringify({ file_path: paths[i], content: file.content }) }));
}

export function openaiUsage(u: OpenAITurnUsage): Json {
  return { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, total_tokens: u.prompt_tokens + u.completion_tokens, prompt_tokens_details: { cached_tokens: u.cached_tokens } };
}

/** What one turn says, whatever its framing. */
interface TurnContent {
  reasoning: string[];
  calls: ToolCall[];
  text: string[];
  finish: 'tool_calls' | 'stop';
  usage: Json | undefined;
}

function content(kind: OpenAITurnKind, script: OpenAIAgentScript, mode: OpenAIMode, paths: string[]): TurnContent {
  const usage = mode === 'no-usage' ? undefined : openaiUsage(script.usage[kind]);
  return kind === 'tool'
    ? { reasoning: script.reasoning, calls: toolCalls(script, mode, paths), text: [], finish: 'tool_calls', usage }
    : { reasoning: [], calls: [], text: script.answer, finish: 'stop', usage };
}

/** The non-streamed answer (`stream: false`). */
export function openaiCompletion(kind: OpenAITurnKind, script: OpenAIAgentScript, mode: OpenAIMode, paths: string[], model: string, id: string): Json {
  const c = content(kind, script, mode, paths);
  const message: Json = { role: 'assistant', content: c.text.length > 0 ? c.text.join('') : null };
  if (c.reasoning.length > 0) message[script.reasoningField] = c.reasoning.join('');
  if (c.calls.length > 0) message.tool_calls = c.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  return { id, object: 'chat.completion', created: 1_767_225_600, model, choices: [{ index: 0, message, finish_reason: c.finish, logprobs: null }], ...(c.usage ? { usage: c.usage } : {}) };
}

/** The streamed answer's chunks, in order (the `data: [DONE]` terminator is not a chunk). */
export function openaiChunks(kind: OpenAITurnKind, script: OpenAIAgentScript, mode: OpenAIMode, paths: string[], model: string, id: string, includeUsage: boolean): Json[] {
  const c = content(kind, script, mode, paths);
  // With include_usage, OpenAI gives every chunk `usage: null` but the last, which has the figures and no choices.
  const withUsage = includeUsage && c.usage !== undefined;
  const base = { id, object: 'chat.completion.chunk', created: 1_767_225_600, model };
  const chunk = (delta: Json, finish_reason: string | null = null): Json => ({ ...base, choices: [{ index: 0, delta, finish_reason, logprobs: null }], ...(withUsage ? { usage: null } : {}) });
  const deltas: Json[] = [{ role: 'assistant', content: kind === 'tool' ? null : '' }];
  deltas.push(...c.reasoning.map((piece) => ({ [script.reasoningField]: piece })));
  c.calls.forEach((call, i) => {
    const index = mode === 'ollama' ? 0 : i;
    const [first = '', ...rest] = mode === 'ollama' || mode === 'one-chunk' ? [call.arguments] : pieces(call.arguments, script.fragment);
    deltas.push({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: first } }] });
    deltas.push(...rest.map((args) => ({ tool_calls: [{ index, function: { arguments: args } }] })));
  });
  deltas.push(...c.text.map((text) => ({ content: text })));
  const chunks = deltas.map((delta) => chunk(delta));
  if (mode === 'content-finish') chunks.splice(-1, 1, chunk(deltas.at(-1) as Json, c.finish));
  else chunks.push(chunk({}, c.finish));
  if (withUsage) chunks.push({ ...base, choices: [], usage: c.usage });
  return chunks;
}
