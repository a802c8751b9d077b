/**
 * The OpenAI Responses format, through the content model (lib/messages): what the Responses routes
 * may import. Only the route side exists (no adapter speaks Responses upstream yet). Nothing else
 * of this folder is public. Constants, not `export … from` (lib/formats/anthropic/index.ts says why).
 */
import * as answer from './answer';
import * as history from './history';
import * as ids from './ids';
import * as input from './input';
import * as request from './request';
import * as response from './response';
import * as stream from './stream';

/** The Responses route: a Responses request → Messages; a Message and Messages events → a response object and Responses events. */
export const { messagesFromResponses } = request;
export const { itemsOf } = input;
export const { responseIdOf } = ids;
export const { ResponseEnvelope } = response;
export type ResponseEnvelope = response.ResponseEnvelope;
export const { responseFromMessage } = answer;
export const { ResponsesStream } = stream;
export type ResponsesStream = stream.ResponsesStream;
export type { ResponsesAsMessages, ResponsesPlan, Target } from './request';

/** Stored responses: what is kept, chained and shown again. */
export const { ENCRYPTED_INCLUDE, apiItemsOf, historyOf, sealedOutput, shownItem, shownResponse } = history;

/** The wire shapes a host may type against. */
export type { ResponseObject, ResponsesRequest, ResponsesUsage } from './types';
