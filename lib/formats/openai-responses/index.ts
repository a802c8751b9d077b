/**
 * The OpenAI Responses format, through the content model (lib/messages): what the Responses routes
 * and the Responses adapter may import: the route side, the upstream side (Messages ⇄ a Responses
 * upstream) and the pass-through to a native upstream. Nothing else of this folder is public. Constants, not `export … from` (lib/formats/anthropic/index.ts says why).
 */
import * as answer from './answer';
import * as history from './history';
import * as ids from './ids';
import * as input from './input';
import * as native from './native';
import * as reasoning from './reasoning';
import * as request from './request';
import * as response from './response';
import * as stream from './stream';
import * as upstreamAnswer from './upstream-answer';
import * as upstreamRequest from './upstream-request';
import * as upstreamStream from './upstream-stream';

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
/** The key of the reasoning content the gateway issues (an HMAC secret shared by every instance, or one per process). */
export const { reasoningSeal, MIN_REASONING_SECRET } = reasoning;
export type ReasoningSeal = reasoning.ReasoningSeal;

/** A Responses upstream: Messages → a Responses body; a response object and its events → a Message and Messages events. */
export const { toResponsesRequest } = upstreamRequest;
export const { messageFromResponse, usageFromResponses, failureFrom } = upstreamAnswer;
export const { ResponsesUpstreamStream } = upstreamStream;
export type ResponsesUpstreamStream = upstreamStream.ResponsesUpstreamStream;

/** The Responses route passing a native upstream's answer through (ids, model, sequence numbers the gateway's). */
export const { NativeStream, nativeInput, resentHistory, TERMINAL_EVENTS } = native;
export type NativeStream = native.NativeStream;
export type { NativeEvent } from './native';

/** Stored responses: what is kept, chained and shown again. */
export const { ENCRYPTED_INCLUDE, apiItemsOf, historyOf, sealedOutput, shownItem, shownResponse } = history;

/** The wire shapes a host may type against. */
export type { ResponseObject, ResponsesRequest, ResponsesUsage } from './types';
