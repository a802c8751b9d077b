/**
 * Reasoning both ways. An answer's thinking (or redacted thinking) becomes a reasoning item whose
 * `encrypted_content` is the gateway's own: versioned, carrying the block as the upstream made it
 * (its signature byte for byte), authenticated with the gateway's reasoning secret. A replayed
 * reasoning item becomes that block again; one the gateway cannot authenticate, or one without the
 * gateway's content, becomes thinking the gateway signs, which an Anthropic upstream never gets.
 * The effort a caller asks for becomes a thinking budget.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { GatewayConfigError } from '../../foundation/config-errors';
import { isBlock, type ContentBlock, type RedactedThinkingBlock, type ThinkingBlock } from '../../messages/content';
import type { ThinkingConfig } from '../../messages/request';
import { gatewaySignature } from '../../messages/gateway-thinking';
import { refused } from './errors';
import type { InputItem, ReasoningText } from './types';

/** What every version of the gateway's encrypted content starts with. */
const GATEWAY = 'mgw.';
/** The version the gateway issues: `mgw.v2.` + the block's JSON in base64url + `.` + its HMAC-SHA256 in base64url (`mgw.v1.`, unauthenticated, is no longer taken). */
const V2 = 'mgw.v2.';
/** The shortest reasoning secret taken: 32 characters (e.g. `openssl rand -hex 32` gives 64). */
export const MIN_REASONING_SECRET = 32;

/** A block that becomes a reasoning item. */
export type ReasoningBlock = ThinkingBlock | RedactedThinkingBlock;

export const isReasoningBlock = (block: ContentBlock): block is ReasoningBlock => isBlock(block, 'thinking') || isBlock(block, 'redacted_thinking');

/**
 * The key that authenticates the reasoning content the gateway issues to Responses clients: the
 * operator's secret (the same on every instance), or a random one made for this process when none
 * is given (content one process issued then fails to authenticate on another, or after a restart).
 */
export class ReasoningSeal {
  private readonly key: Buffer;

  constructor(secret: string | undefined) {
    this.key = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  /** The gateway's encrypted content for a block: the block's JSON (its signature as the upstream sent it), base64url, versioned and authenticated. */
  seal(block: ReasoningBlock): string {
    const kept = isBlock(block, 'thinking') ? { type: 'thinking', thinking: block.thinking, signature: block.signature } : { type: 'redacted_thinking', data: block.data };
    const text = V2 + Buffer.from(JSON.stringify(kept), 'utf8').toString('base64url');
    return `${text}.${this.mac(text)}`;
  }

  /**
   * The block in content the gateway issued under this key; `unauthenticated` for content that
   * says it is the gateway's but is not under this key (made up, altered, issued under another
   * secret, or of an earlier version); undefined for another server's content.
   */
  open(content: string, path: string): ReasoningBlock | 'unauthenticated' | undefined {
    if (!content.startsWith(GATEWAY)) return undefined;
    const dot = content.lastIndexOf('.');
    if (!content.startsWith(V2) || dot < V2.length) return 'unauthenticated';
    const given = Buffer.from(content.slice(dot + 1), 'utf8');
    const wanted = Buffer.from(this.mac(content.slice(0, dot)), 'utf8');
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'unauthenticated';
    let block: unknown;
    try {
      block = JSON.parse(Buffer.from(content.slice(V2.length, dot), 'base64url').toString('utf8'));
    } catch {
      block = undefined;
    }
    const b = block as Record<string, unknown> | undefined;
    if (b?.type === 'thinking' && typeof b.thinking === 'string' && typeof b.signature === 'string') return { type: 'thinking', thinking: b.thinking, signature: b.signature };
    if (b?.type === 'redacted_thinking' && typeof b.data === 'string') return { type: 'redacted_thinking', data: b.data };
    throw refused(path, 'is not reasoning content this gateway made (send it back as it was received)');
  }
}

/** A reasoning seal from a secret option checked once (`where` names the option), or a random key when none is given. */
export function reasoningSeal(secret: unknown, where: string): ReasoningSeal {
  if (secret !== undefined && (typeof secret !== 'string' || secret.length < MIN_REASONING_SECRET)) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `${where} must be a secret of at least ${MIN_REASONING_SECRET} characters, the same on every instance (e.g. from openssl rand -hex 32).`);
  }
  return new ReasoningSeal(secret);
}

const joined = (parts: ReasoningText[] | null | undefined): string => (Array.isArray(parts) ? parts.map((p) => p.text).join('\n\n') : '');

/**
 * The thinking block of a replayed reasoning item: the block its gateway content carries; else
 * (content another server made, content the gateway cannot authenticate, or none) its text as
 * thinking the gateway signs, which OpenAI-format upstreams get as reasoning and Anthropic-format
 * ones never; nothing when it has no text. Content the gateway cannot use is never sent on, and
 * its drop is recorded; `unauthenticated` says the item claimed to be the gateway's and was not.
 */
export function reasoningBlockOf(item: InputItem, path: string, dropped: string[], seal: ReasoningSeal): { block: ReasoningBlock | undefined; unauthenticated: boolean } {
  const content = item.encrypted_content;
  let unauthenticated = false;
  if (typeof content === 'string' && content !== '') {
    const opened = seal.open(content, `${path}.encrypted_content`);
    if (opened !== undefined && opened !== 'unauthenticated') return { block: opened, unauthenticated };
    unauthenticated = opened === 'unauthenticated';
    dropped.push(`${path}.encrypted_content (${unauthenticated ? 'reasoning this gateway cannot authenticate' : 'not this gateway\'s'})`);
  }
  const text = joined(item.content as ReasoningText[] | null | undefined) || joined(item.summary);
  return { block: text === '' ? undefined : { type: 'thinking', thinking: text, signature: gatewaySignature('reasoning_content') }, unauthenticated };
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
