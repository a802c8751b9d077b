/**
 * The OpenAI Chat Completions format, both ways through the content model (lib/messages): what the
 * chat route and the OpenAI-format adapter may import. Nothing else of this folder is public.
 * Constants, not `export … from` (lib/formats/anthropic/index.ts says why).
 */
import * as answerFromChat from './answer-from-chat';
import * as answerToChat from './answer-to-chat';
import * as requestFromChat from './request-from-chat';
import * as requestToChat from './request-to-chat';
import * as streamToChunks from './stream-to-chunks';
import * as streamToEvents from './stream-to-events';
import * as toolNames from './tool-names';

/** The chat route: a chat request → Messages; a Message and Messages events → a completion and chunks. */
export const { messagesFromChat } = requestFromChat;
export const { completionFromMessage } = answerToChat;
export const { ChatChunks } = streamToChunks;
export type ChatChunks = streamToChunks.ChatChunks;
export type { ChatAsMessages } from './request-from-chat';

/** An OpenAI-format upstream: Messages → a chat request; a completion and chunks → a Message and Messages events. */
export const { toChatRequest } = requestToChat;
export const { fromChatCompletion } = answerFromChat;
export const { ChatStreamTranslator } = streamToEvents;
export type ChatStreamTranslator = streamToEvents.ChatStreamTranslator;
export const { nameRestorer } = toolNames;
export type { MaxTokensField } from './request-to-chat';
export type { RestoreName } from './tool-names';

/** The wire shapes a host may type against. */
export type { ChatCompletion, ChatRequest, ChatUsage } from './types';
