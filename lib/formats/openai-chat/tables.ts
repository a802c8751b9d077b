/**
 * The tables of the Messages ⇄ Chat Completions translation, written once and read both ways:
 * stop reasons, tool choices, the join of text parts, and what happens to each Messages field.
 */
import { GatewayError } from '../../foundation/errors';
import { ownEntry } from '../../foundation/own';

/** OpenAI `finish_reason` → Anthropic `stop_reason` (unknown or none: `end_turn`). */
const STOP_REASON_OF: Readonly<Record<string, string>> = Object.freeze({
  stop: 'end_turn', length: 'max_tokens', content_filter: 'refusal', tool_calls: 'tool_use', function_call: 'tool_use',
});

/** Anthropic `stop_reason` → OpenAI `finish_reason` (unknown or none: `stop`). */
const FINISH_REASON_OF: Readonly<Record<string, string>> = Object.freeze({
  end_turn: 'stop', stop_sequence: 'stop', pause_turn: 'stop', max_tokens: 'length', model_context_window_exceeded: 'length',
  refusal: 'content_filter', tool_use: 'tool_calls',
});

/**
 * The stop reason of an OpenAI answer: `tool_use` exactly when it called a tool (servers that
 * answer a call with `stop` included), unless it was cut short (`length`, `content_filter`).
 */
export function stopReasonOf(finish: string | null | undefined, calledTools: boolean): string {
  const reason = (typeof finish === 'string' && ownEntry(STOP_REASON_OF, finish)) || 'end_turn';
  if (reason === 'end_turn' || reason === 'tool_use') return calledTools ? 'tool_use' : 'end_turn';
  return reason;
}

/** OpenAI's `finish_reason` for an Anthropic `stop_reason`. */
export function finishReasonOf(stop: unknown): string {
  return (typeof stop === 'string' && ownEntry(FINISH_REASON_OF, stop)) || 'stop';
}

/** Anthropic `tool_choice.type` ⇄ OpenAI's string `tool_choice` (`tool` ⇄ `{type: "function"}`). */
export const TOOL_CHOICES: ReadonlyArray<readonly ['auto' | 'any' | 'none', 'auto' | 'required' | 'none']> = Object.freeze([
  ['auto', 'auto'], ['any', 'required'], ['none', 'none'],
] as const);

/**
 * How text parts become one string: a prompt's parts (system, a user turn, a tool result) are
 * separate pieces, joined by a line break; an answer's text blocks are one output (citations
 * split it), joined as they are.
 */
export const PROMPT_JOIN = '\n';
export const ANSWER_JOIN = '';
/** Between two system or developer messages hoisted into Messages' `system`. */
export const SYSTEM_MESSAGES_JOIN = '\n\n';

/**
 * What becomes of each top-level Messages field on an OpenAI-format upstream: `map` (translated),
 * `drop` (a hint the target has no counterpart for and needs none: caching is automatic there,
 * reasoning is the model's own), or the reason it is refused. A field not listed is refused.
 */
export const MESSAGES_FIELDS: Readonly<Record<string, 'map' | 'drop' | string>> = Object.freeze({
  model: 'map', max_tokens: 'map', messages: 'map', system: 'map', temperature: 'map', top_p: 'map', stop_sequences: 'map',
  stream: 'map', metadata: 'map', tools: 'map', tool_choice: 'map', output_config: 'map',
  thinking: 'drop', context_management: 'drop', cache_control: 'drop', service_tier: 'drop',
  top_k: 'an OpenAI-format upstream has no top_k',
});

/** The refusal of what a target cannot express: 400 naming the field, before any upstream call. */
export function cannotExpress(path: string, reason: string): GatewayError {
  return new GatewayError('invalid_request_error', `${path}: ${reason}`);
}

/** `value` when it is a string; else the refusal naming `path` (the agent profile leaves block fields to the upstream, which here is the translator). */
export function stringAt(value: unknown, path: string): string {
  if (typeof value !== 'string') throw cannotExpress(path, 'must be a string');
  return value;
}

/** `value` when it is an object; else the refusal naming `path`. */
export function objectAt(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw cannotExpress(path, 'must be an object');
  return value as Record<string, unknown>;
}
