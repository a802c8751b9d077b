/**
 * The agent profile of a Messages request: the whole contract, checked only where the gateway
 * needs it to be safe (the model, the output bound, roles, the shape of turns and blocks, a bound
 * on nesting). Every other field, known or not, passes as sent.
 */
import { MAX_TURNS, messagesSchema } from './messages';

/** Deepest nesting of arrays and objects accepted (Claude Code's deepest tool schema is far shallower). */
export const MAX_NESTING = 64;

/** Any block: an object with a string `type`; its other fields are the upstream's to judge. */
const block = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', minLength: 1, maxLength: 128 } },
} as const;

const turns = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_TURNS,
  items: {
    type: 'object',
    required: ['role', 'content'],
    properties: {
      role: { enum: ['user', 'assistant', 'system'] },
      content: { type: ['string', 'array'], items: block },
    },
  },
} as const;

const properties = {
  model: messagesSchema.properties.model,
  max_tokens: messagesSchema.properties.max_tokens,
  messages: turns,
  system: { type: ['string', 'array'], items: block },
  stream: { type: 'boolean' },
  tools: { type: 'array', maxItems: 10_000, items: { type: 'object' } },
  metadata: { type: 'object' },
} as const;

/** An agent-ready model's Messages request: open to every field. */
export const agentMessagesSchema = { type: 'object', required: ['model', 'max_tokens', 'messages'], properties } as const;

/** An agent-ready model's count_tokens request: the same, without an output bound. */
export const agentCountTokensSchema = { type: 'object', required: ['model', 'messages'], properties } as const;

interface Node {
  readonly value: object;
  readonly depth: number;
  readonly key: string;
  readonly parent: Node | undefined;
}

const pathOf = (node: Node): string => {
  const keys: string[] = [];
  for (let n: Node | undefined = node; n?.parent; n = n.parent) keys.unshift(n.key);
  return keys.join('.') || 'body';
};

/**
 * The path of the first object or array nested deeper than `max` (e.g. "tools.0.input_schema"),
 * or undefined. Iterative, so no body can exhaust the stack; it stops at the first.
 */
export function tooDeep(value: unknown, max = MAX_NESTING): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: Node[] = [{ value, depth: 0, key: '', parent: undefined }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.depth >= max) return pathOf(node);
    const object = node.value as Record<string, unknown>;
    for (const key in object) {
      const child = object[key];
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: node.depth + 1, key, parent: node });
    }
  }
  return undefined;
}
