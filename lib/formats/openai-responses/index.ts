/**
 * The OpenAI Responses format, through the content model (lib/messages): what the Responses route
 * may import. Only the route side exists (no adapter speaks Responses upstream yet). Nothing else
 * of this folder is public.
 */

// The Responses route: a Responses request → Messages; a Message and Messages events → a response object and Responses events.
export { messagesFromResponses, type ResponsesAsMessages, type ResponsesPlan, type Target } from './request';
export { responseIdOf } from './ids';
export { ResponseEnvelope } from './response';
export { responseFromMessage } from './answer';
export { ResponsesStream } from './stream';

export type { ResponseObject, ResponsesRequest, ResponsesUsage } from './types';
