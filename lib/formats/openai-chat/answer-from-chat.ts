/** An OpenAI-format upstream's whole answer (`chat.completion`) as a Message, and the pieces its stream shares (tool call ids and inputs, reasoning). */
import { toolArguments, type ContentBlock } from '../../messages/content';
import type { MessageResponse } from '../../messages/request';
import { randomHex } from '../../foundation/random-id';
import { GatewayError } from '../../foundation/errors';
import { badUpstreamAnswer, invalidAnswer } from '../../foundation/answer-errors';
import type { UsageFigures } from '../../types';
import { gatewaySignature } from '../../messages/gateway-thinking';
import { stopReasonOf } from './tables';
import type { RestoreName } from './tool-names';
import type { UpstreamCompletion } from './types';
import { messageUsage, usageFromChat } from './usage';

/** A tool_use id as Anthropic accepts it (`^[a-zA-Z0-9_-]+$`): an upstream's id with other characters as `_`, or a fresh one. */
export function toolUseId(id: string | null | undefined): string {
  return typeof id === 'string' && id !== '' ? id.replace(/[^a-zA-Z0-9_-]/g, '_') : `toolu_${randomHex()}`;
}

/** The reasoning of an upstream message or delta, and the field it came in. */
export function reasoningOf(from: { reasoning_content?: string | null; reasoning?: string | null }): ['reasoning_content' | 'reasoning', string] | undefined {
  if (typeof from.reasoning_content === 'string' && from.reasoning_content !== '') return ['reasoning_content', from.reasoning_content];
  if (typeof from.reasoning === 'string' && from.reasoning !== '') return ['reasoning', from.reasoning];
  return undefined;
}

/**
 * The input of a tool call from its arguments, streamed or not: none (or an empty string) is `{}`;
 * anything that is not a JSON object is the upstream's fault (an invalid answer: `api_error`, not
 * billed), never an empty input.
 */
export function toolInput(args: unknown, name: string): Record<string, unknown> | GatewayError {
  const input = toolArguments(args);
  if (input) return input;
  const shown = typeof args === 'string' ? args : String(JSON.stringify(args));
  return invalidAnswer(`upstream ${name} sent tool call arguments that are not a JSON object: ${shown.slice(0, 2000)}`);
}

/**
 * A Message for an upstream's `chat.completion`: its reasoning as a thinking block the gateway
 * signs, its text, its calls as tool_use blocks (arguments parsed; names as the caller gave them).
 * `usage` is undefined when the upstream sent none. Arguments that are not a JSON object make it
 * an invalid answer (see toolInput).
 */
export function fromChatCompletion(body: unknown, id: string, name: string, restore: RestoreName): { message: MessageResponse; usage: UsageFigures | undefined } {
  const completion = body as UpstreamCompletion;
  const choice = typeof completion === 'object' && completion !== null && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!choice) throw badUpstreamAnswer(`upstream ${name} sent no choices: ${JSON.stringify(body).slice(0, 2000)}`);
  const m = choice.message ?? {};
  const content: ContentBlock[] = [];
  const reasoning = reasoningOf(m);
  if (reasoning) content.push({ type: 'thinking', thinking: reasoning[1], signature: gatewaySignature(reasoning[0]) });
  const text = m.content || m.refusal || '';
  const calls = m.tool_calls ?? [];
  if (text !== '' || (calls.length === 0 && !reasoning)) content.push({ type: 'text', text });
  for (const call of calls) {
    const input = toolInput(call.function?.arguments, name);
    if (input instanceof GatewayError) throw input;
    content.push({ type: 'tool_use', id: toolUseId(call.id), name: restore(call.function?.name ?? ''), input });
  }
  const usage = usageFromChat(completion.usage);
  const message: MessageResponse = {
    id, type: 'message', role: 'assistant', model: '', content,
    stop_reason: stopReasonOf(choice.finish_reason, calls.length > 0), stop_sequence: null, usage: messageUsage(usage),
  };
  return { message, usage };
}
