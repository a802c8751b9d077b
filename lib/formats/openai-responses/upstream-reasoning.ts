/**
 * A Responses upstream's reasoning through the content model: its reasoning item becomes a
 * thinking block (the summary as its text) whose signature is the gateway's and carries the item's
 * id and encrypted content with the upstream it came from (`origin`). Replayed, it goes back to
 * that upstream only: to any other, and to Anthropic (the signature is the gateway's), it is dropped.
 */
import { isBlock, type ContentBlock, type ThinkingBlock } from '../../messages/content';
import { carriedPayload, carrierSignature } from '../../messages/gateway-thinking';

/** The family tag of the carried reasoning. */
const TAG = 'responses';

/** The reasoning item an upstream sent (the fields read here). */
export interface UpstreamReasoning {
  id?: unknown;
  summary?: unknown;
  content?: unknown;
  encrypted_content?: unknown;
}

const texts = (parts: unknown): string[] => (Array.isArray(parts) ? parts.map((p) => (p as { text?: unknown } | null)?.text).filter((t): t is string => typeof t === 'string') : []);

/** The text a reasoning item shows: its summary parts, else its reasoning text, joined by a blank line. */
export function reasoningTextOf(item: UpstreamReasoning): string {
  const summary = texts(item.summary);
  return (summary.length > 0 ? summary : texts(item.content)).join('\n\n');
}

/** The signature carrying an upstream reasoning item (its id and encrypted content) for `origin`. */
export function sealedSignature(item: UpstreamReasoning, origin: string): string {
  const kept = { o: origin, id: typeof item.id === 'string' ? item.id : null, ec: typeof item.encrypted_content === 'string' ? item.encrypted_content : null };
  return carrierSignature(TAG, Buffer.from(JSON.stringify(kept), 'utf8').toString('base64url'));
}

/** The thinking block of an upstream reasoning item. */
export function thinkingOf(item: UpstreamReasoning, origin: string): ThinkingBlock {
  return { type: 'thinking', thinking: reasoningTextOf(item), signature: sealedSignature(item, origin) };
}

/**
 * The reasoning input item a replayed block is, for the upstream `origin`: only a block carrying
 * that upstream's own item with its encrypted content (an id alone means nothing to a request that
 * is not stored upstream). Anything else is undefined: the caller drops it and records why.
 */
export function reasoningInputOf(block: ContentBlock, origin: string): Record<string, unknown> | undefined {
  if (!isBlock(block, 'thinking')) return undefined;
  const payload = carriedPayload(block.signature, TAG);
  if (payload === undefined) return undefined;
  let kept: { o?: unknown; id?: unknown; ec?: unknown } | null;
  try {
    kept = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof kept;
  } catch {
    return undefined;
  }
  if (kept?.o !== origin || typeof kept.ec !== 'string' || typeof kept.id !== 'string') return undefined;
  const summary = block.thinking === '' ? [] : [{ type: 'summary_text', text: block.thinking }];
  return { type: 'reasoning', id: kept.id, summary, encrypted_content: kept.ec };
}
