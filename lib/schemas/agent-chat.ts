/**
 * The agent profile of a Chat Completions request: what the Messages format can express (tools,
 * tool calls and messages, images, PDFs, reasoning sent back, stop sequences, structured output),
 * checked in shape; what it cannot is refused by name. The translation (lib/formats/openai-chat) refuses
 * the rest of what it cannot carry (a data URL that is not base64, arguments that are not JSON).
 */
import { MAX_TURNS } from './messages';
import { chatSchema } from './chat';

/** Fields refused by name for an agent-ready model, with the reason. */
export const AGENT_UNSUPPORTED_CHAT_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  functions: 'the legacy functions field is not translated; send tools',
  function_call: 'the legacy function_call field is not translated; send tool_choice',
  audio: 'the Messages format answers text only',
  modalities: 'the Messages format answers text only',
  prediction: 'the Messages format has no predicted outputs',
  top_logprobs: 'the Messages format has no log probabilities',
  logit_bias: 'the Messages format has no logit_bias',
  seed: 'the Messages format has no seed',
  presence_penalty: 'the Messages format has no presence_penalty',
  frequency_penalty: 'the Messages format has no frequency_penalty',
  reasoning_effort: 'not translated (Anthropic\'s thinking is set by a token budget); send thinking through /v1/messages',
  web_search_options: 'web search is a server tool of the Messages format; send it through /v1/messages',
});

const textPart = chatSchema.properties.messages.items.properties.content.items;

/** A part of a user turn, or of an assistant's content (text and refusals). */
const part = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string' },
    text: { type: 'string' },
    refusal: { type: 'string' },
    image_url: { type: 'object', required: ['url'], properties: { url: { type: 'string', minLength: 1 }, detail: { type: 'string' } } },
    file: { type: 'object', properties: { file_data: { type: 'string' }, file_id: { type: 'string' }, filename: { type: 'string' } } },
  },
  allOf: [
    { if: { properties: { type: { const: 'text' } } }, then: { required: ['text'], properties: { text: { type: 'string' } } } },
    { if: { properties: { type: { const: 'refusal' } } }, then: { required: ['refusal'], properties: { refusal: { type: 'string' } } } },
    { if: { properties: { type: { const: 'image_url' } } }, then: { required: ['image_url'], properties: { image_url: { type: 'object' } } } },
    { if: { properties: { type: { const: 'file' } } }, then: { required: ['file'], properties: { file: { type: 'object' } } } },
  ],
} as const;

const toolCall = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 256 },
    type: { const: 'function' },
    function: { type: 'object', required: ['name', 'arguments'], properties: { name: { type: 'string', minLength: 1, maxLength: 256 }, arguments: { type: 'string' } } },
  },
} as const;

const message = {
  type: 'object',
  required: ['role'],
  additionalProperties: false,
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: { type: ['string', 'array', 'null'], items: part },
    name: { type: 'string', maxLength: 256 },
    tool_calls: { type: 'array', maxItems: 10_000, items: toolCall },
    tool_call_id: { type: 'string', minLength: 1, maxLength: 256 },
    reasoning_content: { type: ['string', 'null'] },
    reasoning: { type: ['string', 'null'] },
    // What a client echoes back from an answer's message (the openai SDK's helpers add `parsed`): a refusal is its text; the rest says nothing.
    refusal: { type: ['string', 'null'] },
    annotations: { type: 'array' },
    parsed: {},
    audio: { type: 'null' },
    function_call: { type: 'null' },
  },
  allOf: [
    // Only an assistant may leave its content out (its calls speak for it), and its parts are text or refusals;
    // system, developer and tool messages are text.
    {
      if: { properties: { role: { const: 'assistant' } } },
      then: { properties: { content: { type: ['string', 'array', 'null'], items: { type: 'object', properties: { type: { enum: ['text', 'refusal'] } } } } } },
      else: { required: ['content'], properties: { content: { type: ['string', 'array'] } } },
    },
    { if: { properties: { role: { enum: ['system', 'developer', 'tool'] } } }, then: { properties: { content: { type: ['string', 'array', 'null'], items: textPart } } } },
    { if: { properties: { role: { const: 'tool' } } }, then: { required: ['tool_call_id'], properties: { tool_call_id: { type: 'string' } } } },
  ],
} as const;

const tool = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 256 }, description: { type: 'string' }, parameters: { type: 'object' }, strict: { type: ['boolean', 'null'] } },
    },
  },
} as const;

/** An agent-ready model's chat request. */
export const agentChatSchema = {
  type: 'object',
  required: ['model', 'messages'],
  additionalProperties: false,
  properties: {
    ...chatSchema.properties,
    messages: { type: 'array', minItems: 1, maxItems: MAX_TURNS, items: message },
    tools: { type: 'array', maxItems: 10_000, items: tool },
    tool_choice: {
      type: ['string', 'object'],
      required: ['type', 'function'],
      properties: { type: { type: 'string' }, function: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } } },
    },
    parallel_tool_calls: { type: 'boolean' },
    stop: { type: ['string', 'array', 'null'], items: { type: 'string' } },
    response_format: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, json_schema: { type: 'object' } } },
  },
} as const;

/** The first field refused by name for an agent-ready model (or more than one choice, or log probabilities). */
export function findUnsupportedAgentChat(body: Record<string, unknown>): { path: string; message: string } | undefined {
  for (const field of Object.keys(AGENT_UNSUPPORTED_CHAT_FIELDS)) {
    if (Object.hasOwn(body, field)) return { path: field, message: AGENT_UNSUPPORTED_CHAT_FIELDS[field] as string };
  }
  if (body.n !== undefined && body.n !== null && body.n !== 1) return { path: 'n', message: 'only one choice per request is supported (n = 1)' };
  if (body.logprobs === true) return { path: 'logprobs', message: 'the Messages format has no log probabilities' };
  return undefined;
}
