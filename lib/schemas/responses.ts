/**
 * JSON Schema of a Responses request (`POST /v1/responses` and `/v1/responses/input_tokens`): the
 * shape and bounds of every field the gateway reads. Fields it does not read are ignored (clients
 * add their own, as Codex's `client_metadata`); fields it cannot honour are refused by name.
 */
import { MAX_TURNS } from './messages';

const name = { type: 'string', minLength: 1, maxLength: 256 } as const;
const callId = { type: 'string', minLength: 1, maxLength: 512 } as const;
const optionalString = (maxLength?: number) => ({ type: ['string', 'null'], ...(maxLength === undefined ? {} : { maxLength }) }) as const;
/** A `then` requiring `fields` (ajv's strict mode wants each named in the same schema's properties). */
const needs = (fields: readonly string[], properties: object = {}) => ({ required: fields, properties: { ...Object.fromEntries(fields.map((f) => [f, true])), ...properties } });

/** A content part: its `type`, and the field that type needs. */
const part = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', minLength: 1, maxLength: 64 },
    text: { type: 'string' },
    refusal: { type: 'string' },
    image_url: optionalString(),
    file_id: optionalString(512),
    file_data: optionalString(),
    file_url: optionalString(),
    filename: optionalString(1024),
    detail: optionalString(16),
  },
  allOf: [
    { if: { properties: { type: { enum: ['input_text', 'output_text'] } } }, then: needs(['text']) },
    { if: { properties: { type: { const: 'refusal' } } }, then: needs(['refusal']) },
  ],
} as const;

const reasoningText = { type: 'object', required: ['type', 'text'], properties: { type: { type: 'string' }, text: { type: 'string' } } } as const;

const toolFields = {
  type: { type: 'string', minLength: 1, maxLength: 128 },
  name,
  description: optionalString(),
  parameters: { type: ['object', 'null'] },
  strict: { type: ['boolean', 'null'] },
  format: { type: ['object', 'null'], properties: { type: { type: 'string' }, syntax: { type: 'string' }, definition: { type: 'string' } } },
} as const;
const named = { if: { properties: { type: { enum: ['function', 'custom', 'namespace'] } } }, then: needs(['name']) } as const;

/** A tool: function and custom tools need a name, a namespace its tools (functions and custom tools). */
const tool = {
  type: 'object',
  required: ['type'],
  properties: {
    ...toolFields,
    tools: { type: 'array', maxItems: 10_000, items: { type: 'object', required: ['type'], properties: toolFields, allOf: [named] } },
  },
  allOf: [named, { if: { properties: { type: { const: 'namespace' } } }, then: needs(['tools']) }],
} as const;

/** The fields an item of `type` requires. */
const itemOf = (types: readonly string[], required: readonly string[], properties: object = {}) =>
  ({ if: { required: ['type'], properties: { type: { enum: types } } }, then: needs(required, properties) }) as const;
/** A message: an item with no type (the easy form), or of type `message`. */
const isMessage = { anyOf: [{ not: { required: ['type'], properties: { type: true } } }, { required: ['type'], properties: { type: { enum: ['message', null] } } }] } as const;

/** An input item: a message (with or without `type`), a call, a call's output, reasoning, a reference, hoisted tools, or another type (dropped). */
const item = {
  type: 'object',
  properties: {
    type: optionalString(64),
    id: optionalString(512),
    role: { enum: ['user', 'assistant', 'system', 'developer'] },
    content: { type: ['string', 'array', 'null'], maxItems: 10_000, items: { type: 'object' } },
    call_id: callId,
    name,
    namespace: optionalString(256),
    arguments: { type: 'string' },
    input: { type: 'string' },
    output: { type: ['string', 'array'], maxItems: 10_000, items: part },
    summary: { type: 'array', maxItems: 10_000, items: reasoningText },
    encrypted_content: optionalString(),
    tools: { type: 'array', maxItems: 10_000, items: tool },
  },
  allOf: [
    { if: isMessage, then: needs(['role', 'content'], { content: { type: ['string', 'array'], items: part } }) },
    itemOf(['function_call'], ['call_id', 'name', 'arguments']),
    itemOf(['custom_tool_call'], ['call_id', 'name', 'input']),
    itemOf(['function_call_output', 'custom_tool_call_output'], ['call_id', 'output']),
    itemOf(['reasoning'], [], { content: { type: ['array', 'null'], items: reasoningText } }),
    itemOf(['item_reference'], ['id'], { id: { type: 'string' } }),
    itemOf(['additional_tools'], ['tools']),
  ],
} as const;

const effort = { enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max', null] } as const;
const summary = { enum: ['auto', 'concise', 'detailed', null] } as const;

/** A Responses request; the bounds are the gateway's (MAX_TURNS items, 10,000 tools) and OpenAI's (metadata). */
export const responsesSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: name,
    input: { type: ['string', 'array'], maxItems: MAX_TURNS, items: item },
    instructions: optionalString(),
    tools: { type: ['array', 'null'], maxItems: 10_000, items: tool },
    tool_choice: {
      type: ['string', 'object', 'null'],
      allOf: [{ if: { type: 'string' }, then: { enum: ['auto', 'none', 'required'] } }],
      required: ['type'],
      properties: { type: { type: 'string' }, name: { type: 'string' }, mode: { enum: ['auto', 'required'] }, tools: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } } } },
    },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    reasoning: { type: ['object', 'null'], properties: { effort, summary, generate_summary: summary } },
    include: { type: ['array', 'null'], maxItems: 64, items: { type: 'string', maxLength: 128 } },
    text: {
      type: ['object', 'null'],
      properties: {
        format: {
          type: ['object', 'null'],
          required: ['type'],
          properties: { type: { enum: ['text', 'json_schema', 'json_object'] }, name: { type: 'string', maxLength: 256 }, schema: { type: 'object' }, strict: { type: ['boolean', 'null'] } },
        },
        verbosity: { enum: ['low', 'medium', 'high', null] },
      },
    },
    max_output_tokens: { type: ['integer', 'null'], minimum: 1, maximum: 10_000_000 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    metadata: { type: ['object', 'null'], maxProperties: 16, propertyNames: { maxLength: 64 }, additionalProperties: { type: 'string', maxLength: 512 } },
    stream: { type: ['boolean', 'null'] },
    store: { type: ['boolean', 'null'] },
    truncation: { enum: ['auto', 'disabled', null] },
    service_tier: optionalString(64),
    prompt_cache_key: optionalString(1024),
    user: optionalString(256),
    safety_identifier: optionalString(256),
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20 },
  },
} as const;

type Found = { path: string; message: string } | undefined;

/** Fields refused by name on every model: state this route does not keep, and what no upstream here can do. */
export function findRefusedResponses(body: Record<string, unknown>): Found {
  const set = (field: string): boolean => body[field] !== undefined && body[field] !== null;
  // Chaining is resolved by responsesState() before this check (which removes the field): a route without it keeps no responses.
  if (set('previous_response_id')) return { path: 'previous_response_id', message: 'this route keeps no responses (it has no responsesState()); send the whole conversation in input (as Codex does)' };
  if (set('conversation')) return { path: 'conversation', message: 'this gateway keeps no conversations; send the whole conversation in input' };
  if (body.background === true) return { path: 'background', message: 'background responses are not supported; stream instead' };
  if (set('prompt')) return { path: 'prompt', message: 'reusable prompts live on OpenAI; send their text as instructions' };
  if (typeof body.top_logprobs === 'number' && body.top_logprobs > 0) return { path: 'top_logprobs', message: 'the Messages format has no log probabilities' };
  return undefined;
}

const V1 = 'needs an agent-ready model (V1 models take plain text; an operator marks the model agentReady: true)';
const TEXT_PARTS = new Set(['input_text', 'output_text', 'refusal']);

/** What a V1 (text-only) model refuses by name: tools, reasoning, structured output, items other than messages, parts other than text. */
export function findUnsupportedResponsesV1(body: Record<string, unknown>): Found {
  if (Array.isArray(body.tools) && body.tools.length > 0) return { path: 'tools', message: V1 };
  for (const field of ['tool_choice', 'parallel_tool_calls', 'reasoning']) {
    if (body[field] !== undefined && body[field] !== null) return { path: field, message: V1 };
  }
  const format = (body.text as { format?: { type?: unknown } | null } | null | undefined)?.format;
  if (format && format.type !== 'text') return { path: 'text.format', message: V1 };
  if (!Array.isArray(body.input)) return undefined;
  for (const [i, item] of (body.input as Array<Record<string, unknown>>).entries()) {
    if (item.type !== undefined && item.type !== null && item.type !== 'message') return { path: `input.${i}.type`, message: V1 };
    if (!Array.isArray(item.content)) continue;
    for (const [j, p] of (item.content as Array<Record<string, unknown>>).entries()) {
      if (!TEXT_PARTS.has(String(p.type))) return { path: `input.${i}.content.${j}.type`, message: V1 };
    }
  }
  return undefined;
}
