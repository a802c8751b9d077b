/**
 * The gateway's own thinking: the signature it gives thinking blocks made from reasoning no
 * Anthropic upstream signed (an OpenAI-format upstream's, a Responses client's replayed text). A
 * thinking block must carry a signature, and clients replay it byte for byte; this one says where
 * the reasoning came from (`model-gateway:v1:<field>`, the field an OpenAI-format upstream sends
 * it in) and is never a signature an Anthropic upstream made (theirs are base64, with no colon).
 * Part of the content model: every format that makes or replays thinking reads it.
 */
import { isBlock, type ContentBlock, type MessageParam } from './content';
import type { MessagesRequest } from './request';

/** The fields an OpenAI-format upstream sends an answer's reasoning in: DeepSeek and SGLang, then vLLM ≥ 0.11. */
export const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const;
export type ReasoningField = (typeof REASONING_FIELDS)[number];

const PREFIX = 'model-gateway:';
const V1 = `${PREFIX}v1:`;

/** The gateway's signature for reasoning an upstream sent in `field`. */
export function gatewaySignature(field: ReasoningField): string {
  return V1 + field;
}

/** Whether a signature is one the gateway made (any version). */
export function isGatewaySignature(signature: unknown): boolean {
  return typeof signature === 'string' && signature.startsWith(PREFIX);
}

/** The field to send a thinking block's reasoning back in: the one its gateway signature names, else `reasoning_content`. */
export function reasoningFieldOf(signature: unknown): ReasoningField {
  const field = typeof signature === 'string' && signature.startsWith(V1) ? signature.slice(V1.length) : '';
  return (REASONING_FIELDS as readonly string[]).includes(field) ? (field as ReasoningField) : 'reasoning_content';
}

const isGatewayThinking = (block: ContentBlock): boolean => isBlock(block, 'thinking') && isGatewaySignature(block.signature);

/** A turn without its gateway-signed thinking blocks; the same object when it has none. */
function withoutGatewayThinkingIn(message: MessageParam): MessageParam {
  const content = message.content;
  if (message.role !== 'assistant' || typeof content === 'string' || !content.some(isGatewayThinking)) return message;
  return { ...message, content: content.filter((block) => !isGatewayThinking(block)) };
}

/**
 * The request an Anthropic upstream gets: without the thinking blocks whose signature the gateway
 * made (Anthropic refuses them), and without a turn left empty by that. Nothing else changes: the
 * same object when there are none, else only the turns that had some are copied.
 */
export function withoutGatewayThinking<R extends Pick<MessagesRequest, 'messages'>>(request: R): R {
  let messages: MessageParam[] | undefined;
  for (let i = 0; i < request.messages.length; i++) {
    const message = request.messages[i] as MessageParam;
    const kept = withoutGatewayThinkingIn(message);
    if (kept === message && !messages) continue;
    messages ??= request.messages.slice(0, i);
    if (kept === message || kept.content.length > 0) messages.push(kept);
  }
  return messages ? { ...request, messages } : request;
}

/**
 * A gateway signature that carries another upstream family's opaque reasoning (`tag` names the
 * family, e.g. `responses`): the block reaches no Anthropic upstream (it is the gateway's), and
 * the family's own translation reads `payload` back (carriedPayload) to send it where it came from.
 */
export function carrierSignature(tag: string, payload: string): string {
  return `${V1}${tag}:${payload}`;
}

/** The payload of a carrier signature of `tag`, or undefined for any other signature. */
export function carriedPayload(signature: unknown, tag: string): string | undefined {
  const prefix = `${V1}${tag}:`;
  return typeof signature === 'string' && signature.startsWith(prefix) ? signature.slice(prefix.length) : undefined;
}
