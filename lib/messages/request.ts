/** A Messages request and its parts (tools, tool choice, thinking), defined once for every profile and adapter. */
import type { CacheControl, ContentBlock, MessageParam, TextBlock } from './content';

/** A tool the caller defines; the model answers with a tool_use block whose input fits `input_schema`. */
export interface CustomTool {
  name: string;
  description?: string;
  input_schema: { type: 'object'; [keyword: string]: unknown };
  cache_control?: CacheControl | null;
  /** Tool fields that travel with beta headers (`strict`, `defer_loading`…) and new ones: kept as sent. */
  [field: string]: unknown;
}

/** A tool the upstream runs itself (`web_search_20250305`, `code_execution_…`): `type` names its version. */
export interface ServerTool {
  type: string;
  name: string;
  [field: string]: unknown;
}

export type Tool = CustomTool | ServerTool;

/** How the model may use the tools. */
export type ToolChoice =
  | { type: 'auto' | 'any' | 'none'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean };

/** Extended thinking: a token budget, adaptive, or off; `display` chooses whether its text is returned. */
export type ThinkingConfig =
  | { type: 'enabled'; budget_tokens: number; display?: 'summarized' | 'omitted' | null }
  | { type: 'adaptive'; display?: 'summarized' | 'omitted' | null }
  | { type: 'disabled' }
  | { type: string; [field: string]: unknown };

/**
 * A validated Messages request. V1 models accept the text-only part of it; agent-ready models the
 * whole contract, fields this gateway does not model included (`context_management`,
 * `output_config`…), which reach an Anthropic upstream as sent.
 */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlock[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  metadata?: { user_id?: string | null; [field: string]: unknown };
  tools?: Tool[];
  tool_choice?: ToolChoice;
  thinking?: ThinkingConfig;
  [field: string]: unknown;
}

/** Why the model stopped; upstreams may add reasons. */
export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | (string & {});

/** Anthropic's usage block, as answers and streams carry it (the cache breakdown and server tools when the upstream sends them). */
export interface MessageUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  /** Cache writes by lifetime; their sum is `cache_creation_input_tokens`. */
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
  /** Server tools the upstream ran (web searches). */
  server_tool_use?: { web_search_requests?: number; [tool: string]: unknown } | null;
  [field: string]: unknown;
}

/** A Messages answer. */
export interface MessageResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: MessageUsage;
  [field: string]: unknown;
}
