/** OpenAI Chat Completions on the wire: the request, answer and chunk shapes the translator reads and writes. */

/** A text part of a message. */
export interface ChatTextPart {
  type: 'text';
  text: string;
}

/** An image part: an http(s) URL or a `data:<media type>;base64,<data>` URL. */
export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
}

/** A file part (a PDF): inline as a data URL, or an uploaded file's id. */
export interface ChatFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}

/** A part of a message's content. */
export type ChatPart = ChatTextPart | ChatImagePart | ChatFilePart | { type: 'refusal'; refusal: string } | { type: 'input_audio'; [field: string]: unknown };

/** A function call the model made, its arguments a JSON string. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One message of a chat request. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | ChatPart[] | null;
  name?: string;
  /** An assistant turn's calls. */
  tool_calls?: ChatToolCall[];
  /** A tool message: the call it answers. */
  tool_call_id?: string;
  /** An assistant turn's reasoning (DeepSeek, SGLang); vLLM names it `reasoning`. */
  reasoning_content?: string | null;
  reasoning?: string | null;
  /** An assistant turn's refusal, as a client echoes an answer back: its text. */
  refusal?: string | null;
}

/** A function the model may call. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

/** Which tool the model must call, if any. */
export type ChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

/** A validated Chat Completions request (a V1 model's: text only; an agent-ready model's: tools, images, files too). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[] | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  user?: string;
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: { type: string; json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean | null } };
}

/** OpenAI's usage block (`cached_tokens` are part of `prompt_tokens`). */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

/** The assistant message of a `chat.completion`. */
export interface ChatAnswerMessage {
  role: 'assistant';
  content: string | null;
  refusal: null;
  tool_calls?: ChatToolCall[];
  reasoning_content?: string;
}

/** A `chat.completion` object. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: 0; message: ChatAnswerMessage; logprobs: null; finish_reason: string }>;
  usage: ChatUsage;
}

/** Usage as upstreams send it: every field may be missing; DeepSeek also counts cache hits on its own. */
export interface UpstreamChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  prompt_cache_hit_tokens?: number;
}

/** A tool call fragment of a stream chunk: the first for a call carries its id and name. */
export interface ChunkToolCall {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: string | null };
}

/** The delta of a stream chunk, as upstreams send it. */
export interface ChunkDelta {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ChunkToolCall[] | null;
}

/** A `chat.completion.chunk` as upstreams send it. */
export interface UpstreamChunk {
  choices?: Array<{ index?: number; delta?: ChunkDelta; finish_reason?: string | null }>;
  usage?: UpstreamChatUsage | null;
}

/** A `chat.completion` as upstreams send it. */
export interface UpstreamCompletion {
  choices?: Array<{
    message?: { content?: string | null; refusal?: string | null; reasoning_content?: string | null; reasoning?: string | null; tool_calls?: ChunkToolCall[] | null };
    finish_reason?: string | null;
  }>;
  usage?: UpstreamChatUsage | null;
}
