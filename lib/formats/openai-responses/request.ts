/** Responses request → Messages request, with the plan its answer is written by (tool names, what to include, what to echo). */
import type { UpstreamFormat } from '../../billing/figures';
import type { MessageParam } from '../../messages/content';
import type { MessagesRequest } from '../../messages/request';
import { refused } from './errors';
import { conversationOf, hoistedTools, itemsOf } from './input';
import { outputAndThinking, type ReasoningSeal } from './reasoning';
import { messagesToolChoice, messagesTools, ToolNames, type PlacedTool } from './tools';
import type { ResponsesRequest } from './types';

/** Between the system prompt's parts: `instructions`, then each leading system or developer message. */
export const SYSTEM_JOIN = '\n\n';

/** What the translation needs to know of the model: its upstream's format (web search, files by URL) and output bounds. */
export interface Target {
  format: UpstreamFormat | undefined;
  /** The model's largest output bound, if it has one. */
  maxOutputTokens?: number;
  /** The output bound of a request that names none. */
  defaultMaxTokens: number;
  /** The key the gateway's reasoning content is authenticated with, both ways. */
  seal: ReasoningSeal;
  /**
   * The body goes up as the client sent it (a native Responses upstream): that upstream judges the
   * `include` values and the tool outputs it is sent. Otherwise the translation refuses what the
   * upstream would be asked about a body the client never sent. Default: false.
   */
  passThrough?: boolean;
}

/** The values `include` takes (the openai SDK's ResponseIncludable). */
const INCLUDABLE: ReadonlySet<string> = new Set([
  'reasoning.encrypted_content', 'message.output_text.logprobs', 'message.input_image.image_url', 'computer_call_output.output.image_url',
  'web_search_call.results', 'web_search_call.action.sources', 'file_search_call.results', 'code_interpreter_call.outputs',
]);

/** Refuses an `include` value the API does not have, naming it (the Responses API answers the same). */
function checkInclude(include: readonly string[] | null | undefined): void {
  (include ?? []).forEach((value, i) => {
    if (!INCLUDABLE.has(value)) throw refused(`include.${i}`, `${JSON.stringify(value.slice(0, 64))} is not a value include takes (${[...INCLUDABLE].join(', ')})`);
  });
}

/** What the answer is written by: the caller's tool names, whether reasoning is returned whole or summarised, the fields a response echoes. */
export interface ResponsesPlan {
  readonly names: ToolNames;
  /** `include` asked for `reasoning.encrypted_content`. */
  readonly encrypted: boolean;
  /** `reasoning.summary` asked for a summary: the thinking's text is returned as one. */
  readonly summary: boolean;
  /** The request's fields every response object repeats (instructions, tools, tool_choice…). */
  readonly echo: Readonly<Record<string, unknown>>;
  /** When given, each reasoning item's encrypted content is kept here by item id, whatever `include` asked (a stored response keeps it for chaining). */
  readonly sealed?: Map<string, string>;
  /** The key the answer's reasoning content is authenticated with. */
  readonly seal: ReasoningSeal;
}

/** Whether a turn calls a tool. */
const callsTool = (turn: MessageParam | undefined): boolean => typeof turn?.content !== 'string' && (turn?.content ?? []).some((b) => b.type === 'tool_use');

/**
 * Refuses reasoning the gateway cannot authenticate where Anthropic needs its thinking: with
 * thinking on, the last assistant turn that calls a tool must start with its thinking block
 * (Anthropic refuses the request without it). Anywhere else the drop stands (Anthropic takes a
 * conversation without an earlier turn's thinking).
 */
function checkNeededThinking(unauthenticated: ReadonlyArray<{ path: string; turn: number }>, messages: readonly MessageParam[]): void {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]?.role !== 'assistant') last--;
  const needed = unauthenticated.find((u) => u.turn === last && callsTool(messages[last]));
  if (needed) {
    throw refused(needed.path, 'is reasoning this gateway cannot authenticate (made up, altered, or issued by a gateway with another reasoning secret), and Anthropic needs the thinking of the last turn that called a tool; send the reasoning item back as this gateway issued it');
  }
}

/** A Messages body whose output bound resolveModel() may still default (`Omit` would lose the known fields to the index signature). */
export type ResponsesAsMessages = { [K in keyof MessagesRequest as K extends 'max_tokens' ? never : K]: MessagesRequest[K] } & { max_tokens?: number };

/** The echoed fields: what the request set, else the defaults OpenAI answers with. Nothing is stored, so `store` is false. */
function echoOf(body: ResponsesRequest): Record<string, unknown> {
  return {
    instructions: body.instructions ?? null, tools: body.tools ?? [], tool_choice: body.tool_choice ?? 'auto',
    parallel_tool_calls: body.parallel_tool_calls ?? true, temperature: body.temperature ?? null, top_p: body.top_p ?? null,
    max_output_tokens: body.max_output_tokens ?? null, metadata: body.metadata ?? {},
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? body.reasoning?.generate_summary ?? null },
    text: { format: body.text?.format ?? { type: 'text' }, ...(body.text?.verbosity ? { verbosity: body.text.verbosity } : {}) },
    truncation: 'disabled', store: false, background: false, previous_response_id: null, service_tier: 'default',
    prompt_cache_key: body.prompt_cache_key ?? null, ...(typeof body.user === 'string' ? { user: body.user } : {}),
    ...(typeof body.safety_identifier === 'string' ? { safety_identifier: body.safety_identifier } : {}),
  };
}

/** Structured output: `json_schema` as Messages' `output_config.format`; plain text needs nothing. */
function outputConfig(format: NonNullable<NonNullable<ResponsesRequest['text']>['format']>): MessagesRequest['output_config'] {
  if (format.type === 'text') return undefined;
  if (format.type !== 'json_schema' || typeof format.schema !== 'object' || format.schema === null) {
    throw refused('text.format.type', 'the Messages format takes structured output as "json_schema" with a schema');
  }
  return { format: { type: 'json_schema', schema: format.schema } };
}

/**
 * The Messages request for a Responses request: `instructions` and the leading system and
 * developer messages as `system`; the items as turns (lib/formats/openai-responses/input.ts); the
 * tools and tool choice (tools.ts); the effort as a thinking budget (not for OpenAI-format
 * upstreams, which take no thinking); `max_output_tokens` as the
 * output bound (none given: the target's default); `text.format` as structured output; `user`
 * (or `safety_identifier`) as the upstream's user tag. With `count`, only what a token count reads (model, system, messages,
 * tools, tool choice, thinking). `dropped` lists what was left out (built-in tools, items of tools
 * the gateway cannot run, foreign reasoning): the request log records it.
 */
export function messagesFromResponses(body: ResponsesRequest, target: Target, count = false): { request: ResponsesAsMessages; plan: ResponsesPlan; dropped: string[] } {
  const dropped: string[] = [];
  const passThrough = target.passThrough === true;
  if (!passThrough) checkInclude(body.include);
  const names = new ToolNames();
  const items = itemsOf(body.input);
  const placed: PlacedTool[] = (body.tools ?? []).map((tool, i) => ({ tool, path: `tools.${i}` }));
  const tools = messagesTools([...placed, ...hoistedTools(items)], target.format, names, dropped);
  const choice = messagesToolChoice(body.tool_choice, body.parallel_tool_calls, tools, names, dropped);
  const unauthenticated: Array<{ path: string; turn: number }> = [];
  const { system, messages } = conversationOf(items, { names, format: target.format, dropped, outputsNeedCalls: !passThrough, seal: target.seal, unauthenticated });
  if (messages.length === 0) throw refused('input', 'holds no user or assistant item to answer');
  if (typeof body.instructions === 'string' && body.instructions !== '') system.unshift(body.instructions);
  const request: ResponsesAsMessages = { model: body.model, messages };
  // OpenAI-format upstreams take no thinking (the chat translation drops it): the effort buys nothing there.
  const effort = target.format === 'openai' ? undefined : body.reasoning?.effort;
  const { maxTokens, thinking } = outputAndThinking(effort, body.max_output_tokens ?? undefined, target);
  if (!count) request.max_tokens = maxTokens ?? target.defaultMaxTokens;
  if (system.length > 0) request.system = system.join(SYSTEM_JOIN);
  if (tools.length > 0) {
    request.tools = tools;
    if (choice) request.tool_choice = choice;
  }
  if (thinking) request.thinking = thinking;
  if (thinking && target.format === 'anthropic' && unauthenticated.length > 0) checkNeededThinking(unauthenticated, messages);
  if (!count) {
    if (body.temperature !== undefined && body.temperature !== null) request.temperature = body.temperature;
    if (body.top_p !== undefined && body.top_p !== null) request.top_p = body.top_p;
    const user = body.user ?? body.safety_identifier;
    if (typeof user === 'string' && user !== '') request.metadata = { user_id: user };
    const config = body.text?.format ? outputConfig(body.text.format) : undefined;
    if (config) request.output_config = config;
    if (body.stream === true) request.stream = true;
  }
  const summary = body.reasoning?.summary ?? body.reasoning?.generate_summary;
  const plan: ResponsesPlan = {
    names, encrypted: (body.include ?? []).includes('reasoning.encrypted_content'), summary: typeof summary === 'string', echo: echoOf(body), seal: target.seal,
  };
  return { request, plan, dropped };
}
