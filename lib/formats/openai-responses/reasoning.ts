/**
 * Reasoning both ways. An answer's thinking (or redacted thinking) becomes a reasoning item whose
 * `encrypted_content` is the gateway's own: versioned, carrying the block as the upstream made it
 * (its signature byte for byte). A replayed reasoning item becomes that block again; one without
 * the gateway's content becomes thinking the gateway signs, which an Anthropic upstream never gets.
 * The effort a caller asks for becomes a thinking budget.
 */
import { isBlock, type ContentBlock, type RedactedThinkingBlock, type ThinkingBlock } from '../../messages/content';
import type { ThinkingConfig } from '../../messages/request';
import { gatewaySignature } from '../../messages/gateway-thinking';
import { refused } from './errors';
import type { InputItem, ReasoningText } from './types';

/** The version prefix of the gateway's encrypted content; a later format takes `mgw.v2.`. */
const V1 = 'mgw.v1.';

/** A block that becomes a reasoning item. */
export type ReasoningBlock = ThinkingBlock | RedactedThinkingBlock;

export const isReasoningBlock = (block: ContentBlock): block is ReasoningBlock => isBlock(block, 'thinking') || isBlock(block, 'redacted_thinking');

/** The gateway's encrypted content for a block: the block's JSON (its signature as the upstream sent it), base64url, versioned. */
export function encryptedContentOf(block: ReasoningBlock): string {
  const kept = isBlock(block, 'thinking') ? { type: 'thinking', thinking: block.thinking, signature: block.signature } : { type: 'redacted_thinking', data: block.data };
  return V1 + Buffer.from(JSON.stringify(kept), 'utf8').toString('base64url');
}

/** The block in the gateway's encrypted content; undefined for content the gateway did not make; a refusal for content it made that is damaged. */
function blockOf(content: string, path: string): ReasoningBlock | undefined {
  if (!content.startsWith(V1)) return undefined;
  let block: unknown;
  try {
    block = JSON.parse(Buffer.from(content.slice(V1.length), 'base64url').toString('utf8'));
  } catch {
    block = undefined;
  }
  const b = block as Record<string, unknown> | undefined;
  if (b?.type === 'thinking' && typeof b.thinking === 'string' && typeof b.signature === 'string') return { type: 'thinking', thinking: b.thinking, signature: b.signature };
  if (b?.type === 'redacted_thinking' && typeof b.data === 'string') return { type: 'redacted_thinking', data: b.data };
  throw refused(path, 'is not reasoning content this gateway made (send it back as it was received)');
}

const joined = (parts: ReasoningText[] | null | undefined): string => (Array.isArray(parts) ? parts.map((p) => p.text).join('\n\n') : '');

/**
 * The thinking block of a replayed reasoning item: the block its gateway content carries; else
 * (content another server made, or none) its text as thinking the gateway signs, which
 * OpenAI-format upstreams get as reasoning and Anthropic-format ones never; nothing when it has
 * no text. Foreign encrypted content is never sent on, and its drop is recorded.
 */
export function reasoningBlockOf(item: InputItem, path: string, dropped: string[]): ThinkingBlock | RedactedThinkingBlock | undefined {
  const content = item.encrypted_content;
  if (typeof content === 'string' && content !== '') {
    const block = blockOf(content, `${path}.encrypted_content`);
    if (block) return block;
    dropped.push(`${path}.encrypted_content (not this gateway's)`);
  }
  const text = joined(item.content as ReasoningText[] | null | undefined) || joined(item.summary);
  return text === '' ? undefined : { type: 'thinking', thinking: text, signature: gatewaySignature('reasoning_content') };
}

/** Thinking budgets for the efforts Responses clients ask for (Anthropic's smallest budget is 1024). */
export const THINKING_BUDGETS: ReadonlyMap<string, number> = new Map([
  ['minimal', 1024], ['low', 2048], ['medium', 8192], ['high', 16384], ['xhigh', 24576], ['max', 32000],
]);
export const MIN_THINKING_BUDGET = 1024;

/**
 * The output bound and thinking of a request: `max_output_tokens` as given (it includes the
 * reasoning, as Anthropic's `max_tokens` does); without it and with an effort, the effort's budget
 * plus the default answer length, within the model's bound. The budget stays below the bound; one
 * under Anthropic's minimum (or effort `none`, or no effort) sends no thinking.
 */
export function outputAndThinking(effort: string | null | undefined, given: number | undefined, bounds: { maxOutputTokens?: number; defaultMaxTokens: number }): { maxTokens: number | undefined; thinking: ThinkingConfig | undefined } {
  const budget = typeof effort === 'string' ? THINKING_BUDGETS.get(effort) : undefined;
  if (budget === undefined) return { maxTokens: given, thinking: undefined };
  const maxTokens = given ?? Math.min(budget + bounds.defaultMaxTokens, bounds.maxOutputTokens ?? Number.MAX_SAFE_INTEGER);
  const budgetTokens = Math.min(budget, maxTokens - 1);
  return { maxTokens, thinking: budgetTokens < MIN_THINKING_BUDGET ? undefined : { type: 'enabled', budget_tokens: budgetTokens } };
}
