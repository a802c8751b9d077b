/** JSON Schema of a V1 Chat Completions request (plain text only) and the named unsupported features. */
import { MAX_TURNS } from './messages';

/** Top-level fields V1 refuses by name, with the reason shown to the caller. */
export const UNSUPPORTED_CHAT_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  tools: 'tools are not supported by this gateway (V1 accepts plain text only)',
  tool_choice: 'tool_choice is not supported by this gateway (V1 accepts plain text only)',
  parallel_tool_calls: 'parallel_tool_calls is not supported by this gateway (V1 accepts plain text only)',
  functions: 'functions are not supported by this gateway (V1 accepts plain text only)',
  function_call: 'function_call is not supported by this gateway (V1 accepts plain text only)',
  response_format: 'response_format is not supported by this gateway (V1 answers plain text only)',
  audio: 'audio is not supported by this gateway (V1 accepts plain text only)',
  modalities: 'modalities is not supported by this gateway (V1 answers plain text only)',
  prediction: 'prediction is not supported by this gateway',
  top_logprobs: 'top_logprobs is not supported by this gateway',
  logit_bias: 'logit_bias is not supported by this gateway',
  stop: 'stop is not supported by this gateway',
  seed: 'seed is not supported by this gateway',
  presence_penalty: 'presence_penalty is not supported by this gateway',
  frequency_penalty: 'frequency_penalty is not supported by this gateway',
  reasoning_effort: 'reasoning_effort is not supported by this gateway',
  web_search_options: 'web_search_options is not supported by this gateway',
});

const textPart = {
  type: 'object',
  required: ['type', 'text'],
  additionalProperties: false,
  properties: { type: { const: 'text' }, text: { type: 'string' } },
} as const;

const outputBound = { type: 'integer', minimum: 1, maximum: 10_000_000 } as const;

/** Chat Completions request schema; content is a string or a list of text parts. */
export const chatSchema = {
  type: 'object',
  required: ['model', 'messages'],
  additionalProperties: false,
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256 },
    messages: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_TURNS,
      items: {
        type: 'object',
        required: ['role', 'content'],
        additionalProperties: false,
        properties: {
          role: { enum: ['system', 'developer', 'user', 'assistant'] },
          content: { type: ['string', 'array'], minItems: 1, items: textPart },
          name: { type: 'string', maxLength: 256 },
        },
      },
    },
    max_tokens: outputBound,
    max_completion_tokens: outputBound,
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    stream: { type: ['boolean', 'null'] },
    stream_options: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { include_usage: { type: 'boolean' } },
    },
    user: { type: 'string', maxLength: 256 },
    n: { type: ['integer', 'null'] },
    logprobs: { type: ['boolean', 'null'] },
  },
} as const;

type Found = { path: string; message: string } | undefined;

/**
 * Finds the first feature V1 refuses by name (tools, functions, response formats, more than one
 * choice, log probabilities, non-text parts), so the caller gets an explicit message instead of a
 * schema error.
 */
export function findUnsupportedChat(body: Record<string, unknown>): Found {
  for (const field of Object.keys(UNSUPPORTED_CHAT_FIELDS)) {
    if (Object.hasOwn(body, field)) return { path: field, message: UNSUPPORTED_CHAT_FIELDS[field] as string };
  }
  if (body.n !== undefined && body.n !== null && body.n !== 1) return { path: 'n', message: 'only one choice per request is supported (n = 1)' };
  if (body.logprobs === true) return { path: 'logprobs', message: 'logprobs is not supported by this gateway' };
  if (!Array.isArray(body.messages)) return undefined;
  for (let i = 0; i < body.messages.length; i++) {
    const message = body.messages[i] as Record<string, unknown> | null;
    if (!message || typeof message !== 'object') continue;
    for (const field of ['tool_calls', 'function_call', 'audio', 'refusal']) {
      if (Object.hasOwn(message, field)) return { path: `messages.${i}.${field}`, message: `${field} is not supported by this gateway (V1 accepts plain text only)` };
    }
    if (message.role === 'tool' || message.role === 'function') {
      return { path: `messages.${i}.role`, message: `${message.role} messages are not supported by this gateway (V1 accepts plain text only)` };
    }
    if (!Array.isArray(message.content)) continue;
    for (let j = 0; j < message.content.length; j++) {
      const part = message.content[j] as Record<string, unknown> | null;
      if (part && typeof part === 'object' && part.type !== 'text') {
        const type = typeof part.type === 'string' ? JSON.stringify(part.type.slice(0, 40)) : 'a part with no type';
        return { path: `messages.${i}.content.${j}.type`, message: `only text content parts are supported (V1 accepts plain text only); got ${type}` };
      }
    }
  }
  return undefined;
}
