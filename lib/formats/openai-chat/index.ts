/**
 * The OpenAI Chat Completions format, both ways through the content model (lib/messages): what the
 * chat route and the OpenAI-format adapter may import. Nothing else of this folder is public.
 */

// The chat route: a chat request → Messages; a Message and Messages events → a completion and chunks.
export { messagesFromChat, type ChatAsMessages } from './request-from-chat';
export { completionFromMessage } from './answer-to-chat';
export { ChatChunks } from './stream-to-chunks';

// An OpenAI-format upstream: Messages → a chat request; a completion and chunks → a Message and Messages events.
export { toChatRequest, type MaxTokensField } from './request-to-chat';
export { fromChatCompletion } from './answer-from-chat';
export { ChatStreamTranslator } from './stream-to-events';
export { nameRestorer, type RestoreName } from './tool-names';

export type { ChatCompletion, ChatRequest, ChatUsage } from './types';
