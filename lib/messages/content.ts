/**
 * The content of the Messages API, defined once: every block a request or an answer may carry.
 * V1 models accept only text (a validation profile over these types, lib/schemas/messages.ts);
 * agent-ready models take every block, and blocks this gateway does not know pass through as they are.
 */

/** A cache breakpoint: prompt caching up to this block, for 5 minutes (default) or 1 hour. */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** Fields a block may carry beyond the ones modelled here (citations, new fields): kept as sent. */
interface Open {
  [field: string]: unknown;
}

export interface TextBlock extends Open {
  type: 'text';
  text: string;
  cache_control?: CacheControl | null;
}

/** Where an image comes from. */
export type ImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

export interface ImageBlock extends Open {
  type: 'image';
  source: ImageSource;
  cache_control?: CacheControl | null;
}

/** Where a document comes from: a PDF, plain text, content blocks, a URL or an uploaded file. */
export type DocumentSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'text'; media_type: string; data: string }
  | { type: 'content'; content: string | Array<TextBlock | ImageBlock> }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

export interface DocumentBlock extends Open {
  type: 'document';
  source: DocumentSource;
  title?: string | null;
  context?: string | null;
  cache_control?: CacheControl | null;
}

/** The model calls a tool the caller defined; `input` is the parsed JSON arguments. */
export interface ToolUseBlock extends Open {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: CacheControl | null;
}

/** The caller's answer to a tool_use, in the next user turn. */
export interface ToolResultBlock extends Open {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
  cache_control?: CacheControl | null;
}

/** The model's reasoning; `signature` is opaque and must come back byte for byte. */
export interface ThinkingBlock extends Open {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Reasoning the upstream encrypted; `data` is opaque. */
export interface RedactedThinkingBlock extends Open {
  type: 'redacted_thinking';
  data: string;
}

/** A tool the upstream runs itself (web search, code execution…). */
export interface ServerToolUseBlock extends Open {
  type: 'server_tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** The results of a server tool (web_search_tool_result, web_fetch_tool_result…). */
export interface ServerToolResultBlock extends Open {
  type: `${string}_tool_result`;
  tool_use_id: string;
  content: unknown;
}

/** A block type this gateway does not know yet: passed through as it is. */
export interface UnknownBlock extends Open {
  type: string;
}

/** Every block type the gateway models, by its `type`. */
export interface KnownBlocks {
  text: TextBlock;
  image: ImageBlock;
  document: DocumentBlock;
  tool_use: ToolUseBlock;
  tool_result: ToolResultBlock;
  thinking: ThinkingBlock;
  redacted_thinking: RedactedThinkingBlock;
  server_tool_use: ServerToolUseBlock;
}

/** Any content block, known or not. */
export type ContentBlock = KnownBlocks[keyof KnownBlocks] | ServerToolResultBlock | UnknownBlock;

/** Narrows a block to a known type (a plain `block.type === 'text'` cannot, since unknown blocks are open). */
export function isBlock<K extends keyof KnownBlocks>(block: unknown, type: K): block is KnownBlocks[K] {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === type;
}

/** Who speaks a turn; `system` turns mid-conversation are accepted by agent-ready models only. */
export type Role = 'user' | 'assistant' | 'system';

/** One turn of a conversation. */
export interface MessageParam {
  role: Role;
  content: string | ContentBlock[];
}

/** The text of a content (its text blocks joined with `separator`), ignoring every other block. */
export function textOf(content: string | readonly ContentBlock[], separator = ''): string {
  if (typeof content === 'string') return content;
  let out = '';
  let first = true;
  for (const block of content) {
    if (!isBlock(block, 'text')) continue;
    out += first ? block.text : separator + block.text;
    first = false;
  }
  return out;
}

/**
 * A tool_use block's `input` as the JSON text the OpenAI formats carry it in: `{}` for none, else
 * its JSON; undefined when it is not a JSON object (the upstream's fault; each format says so).
 */
export function toolInputJson(input: unknown): string | undefined {
  if (input === undefined || input === null) return '{}';
  return typeof input === 'object' && !Array.isArray(input) ? JSON.stringify(input) : undefined;
}

/**
 * A tool call's arguments as the content model's `input`: a JSON object, `{}` for none sent, else
 * undefined (arguments that are not a JSON object are the upstream's fault; each format says so).
 */
export function toolArguments(args: unknown): Record<string, unknown> | undefined {
  let input: unknown;
  try {
    input = args === undefined || args === null || args === '' ? {} : typeof args === 'string' ? JSON.parse(args) : undefined;
  } catch {
    return undefined;
  }
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
}
