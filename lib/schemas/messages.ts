/** JSON Schema of a V1 Messages request (plain text only) and the named unsupported features. */

/** Most turns in one conversation, on every route and profile. */
export const MAX_TURNS = 100_000;

/** Top-level fields V1 refuses by name, with the reason shown to the caller. */
export const UNSUPPORTED_MESSAGE_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  tools: 'tools are not supported by this gateway (V1 accepts plain text only)',
  tool_choice: 'tool_choice is not supported by this gateway (V1 accepts plain text only)',
  thinking: 'extended thinking is not supported by this gateway (V1 accepts plain text only)',
  top_k: 'top_k is not supported by this gateway',
  stop_sequences: 'stop_sequences is not supported by this gateway',
  cache_control: 'cache_control is not supported by this gateway',
});

const textBlock = {
  type: 'object',
  required: ['type', 'text'],
  additionalProperties: false,
  properties: {
    type: { const: 'text' },
    text: { type: 'string', pattern: '\\S' },
  },
} as const;

/** Messages request schema; content and system are a string or a list of text blocks. */
export const messagesSchema = {
  type: 'object',
  required: ['model', 'max_tokens', 'messages'],
  additionalProperties: false,
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256 },
    max_tokens: { type: 'integer', minimum: 1, maximum: 10_000_000 },
    messages: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_TURNS,
      items: {
        type: 'object',
        required: ['role', 'content'],
        additionalProperties: false,
        properties: {
          role: { enum: ['user', 'assistant'] },
          content: { type: ['string', 'array'], pattern: '\\S', minItems: 1, items: textBlock },
        },
      },
    },
    system: { type: ['string', 'array'], items: textBlock },
    temperature: { type: 'number', minimum: 0, maximum: 1 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    stream: { type: 'boolean' },
    metadata: {
      type: 'object',
      additionalProperties: false,
      properties: { user_id: { type: ['string', 'null'], maxLength: 256 } },
    },
  },
} as const;

/** A count_tokens request: the model, messages and system of a Messages request, nothing else. */
export const countTokensSchema = {
  type: 'object',
  required: ['model', 'messages'],
  additionalProperties: false,
  properties: {
    model: messagesSchema.properties.model,
    messages: messagesSchema.properties.messages,
    system: messagesSchema.properties.system,
  },
} as const;

type Found = { path: string; message: string } | undefined;

function checkBlocks(blocks: unknown, path: string): Found {
  if (!Array.isArray(blocks)) return undefined;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as Record<string, unknown> | null;
    if (!block || typeof block !== 'object') continue;
    if (Object.hasOwn(block, 'cache_control')) {
      return { path: `${path}.${i}.cache_control`, message: 'cache_control is not supported by this gateway' };
    }
    if (block.type !== 'text') {
      const type = typeof block.type === 'string' ? JSON.stringify(block.type.slice(0, 40)) : 'a block with no type';
      return { path: `${path}.${i}.type`, message: `only text content blocks are supported (V1 accepts plain text only); got ${type}` };
    }
  }
  return undefined;
}

/**
 * Finds the first feature V1 refuses by name (tools, thinking, cache_control anywhere,
 * non-text blocks), so the caller gets an explicit message instead of a schema error.
 */
export function findUnsupported(body: Record<string, unknown>): Found {
  for (const field of Object.keys(UNSUPPORTED_MESSAGE_FIELDS)) {
    if (Object.hasOwn(body, field)) return { path: field, message: UNSUPPORTED_MESSAGE_FIELDS[field] as string };
  }
  const system = checkBlocks(body.system, 'system');
  if (system) return system;
  if (!Array.isArray(body.messages)) return undefined;
  for (let i = 0; i < body.messages.length; i++) {
    const found = checkBlocks((body.messages[i] as { content?: unknown } | null)?.content, `messages.${i}.content`);
    if (found) return found;
  }
  return undefined;
}
