/** The OpenAI Responses API on the wire: the request, its items and tools, the response object, its output items and usage. */

/** A part of a message's content: input text, an image, a file; or, echoed back, an answer's text or refusal. */
export interface InputPart {
  type: string;
  text?: string;
  refusal?: string;
  image_url?: string | null;
  file_id?: string | null;
  file_data?: string | null;
  file_url?: string | null;
  filename?: string | null;
  [field: string]: unknown;
}

/** A summary or reasoning text part of a reasoning item. */
export interface ReasoningText {
  type: string;
  text: string;
}

/**
 * One input item. A message has a `role` (its `type` may be left out); the others are told apart
 * by `type`: function_call(_output), custom_tool_call(_output), reasoning, item_reference,
 * additional_tools, and items of tools the gateway cannot run.
 */
export interface InputItem {
  type?: string | null;
  id?: string | null;
  role?: 'user' | 'assistant' | 'system' | 'developer';
  content?: string | InputPart[] | ReasoningText[] | null;
  call_id?: string;
  name?: string;
  namespace?: string | null;
  arguments?: string;
  input?: string;
  output?: string | InputPart[];
  summary?: ReasoningText[];
  encrypted_content?: string | null;
  tools?: ResponsesTool[];
  [field: string]: unknown;
}

/** A tool the caller offers: function, custom (free text, maybe with a grammar), namespace (a group), or a built-in. */
export interface ResponsesTool {
  type: string;
  name?: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  format?: { type: string; syntax?: string; definition?: string } | null;
  tools?: ResponsesTool[];
  [field: string]: unknown;
}

/** How the model may use the tools. */
export type ResponsesToolChoice = 'auto' | 'none' | 'required' | { type: string; name?: string; mode?: string; tools?: Array<{ type: string; name?: string }> };

/** A validated Responses request (lib/schemas/responses.ts checks its shape and bounds). */
export interface ResponsesRequest {
  model: string;
  input: string | InputItem[];
  instructions?: string | null;
  tools?: ResponsesTool[] | null;
  tool_choice?: ResponsesToolChoice | null;
  parallel_tool_calls?: boolean | null;
  reasoning?: { effort?: string | null; summary?: string | null; generate_summary?: string | null } | null;
  include?: string[] | null;
  text?: { format?: { type: string; name?: string; schema?: Record<string, unknown>; strict?: boolean | null } | null; verbosity?: string | null } | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  metadata?: Record<string, string> | null;
  stream?: boolean | null;
  store?: boolean | null;
  truncation?: string | null;
  service_tier?: string | null;
  prompt_cache_key?: string | null;
  user?: string | null;
  safety_identifier?: string | null;
  [field: string]: unknown;
}

/** Text of an answer's message. */
export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface MessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ItemStatus;
  content: OutputText[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  namespace?: string;
  arguments: string;
  status: ItemStatus;
}

export interface CustomToolCallItem {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  namespace?: string;
  input: string;
  status: ItemStatus;
}

export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  summary: ReasoningText[];
  encrypted_content?: string;
  status: ItemStatus;
}

/** A web search the upstream ran (Anthropic's web search server tool). */
export interface WebSearchItem {
  type: 'web_search_call';
  id: string;
  status: 'in_progress' | 'completed';
  action: { type: 'search'; query: string };
}

/** An item of a response's `output`. */
export type OutputItem = MessageItem | FunctionCallItem | CustomToolCallItem | ReasoningItem | WebSearchItem;

/** Usage as Responses clients read it: `input_tokens` is the whole prompt, the cached part inside it. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** The response object: what `responses.create` answers and every lifecycle event carries. */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  model: string;
  output: OutputItem[];
  usage: ResponsesUsage | null;
  [echoed: string]: unknown;
}
