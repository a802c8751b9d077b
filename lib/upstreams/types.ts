/** The adapter contract: how the gateway calls an upstream provider. */
import type { UpstreamFormat } from '../billing/figures';
import type { UpstreamAttempt } from '../billing/records';
import type { UsageRecorder } from '../billing/usage';
import type { RerankRequest, RerankResult } from '../types';

/** Where an adapter reports usage, and the attempt record failover() keeps: defined by billing, which reads them. */
export type { UpstreamAttempt } from '../billing/records';
export type { UsageRecorder } from '../billing/usage';
import type { StreamItem } from '../messages/events';
import type { MessageResponse, MessagesRequest } from '../messages/request';
import type { ForwardingFace } from './forwarding';
import type { NativeResponsesFace } from './native-responses';

/** What the gateway hands an adapter for one call. */
export interface UpstreamCallContext {
  /** Aborted when the client goes away or a timeout fires; pass it to the HTTP call. */
  signal: AbortSignal;
  /** The gateway's request id, for the upstream's logs if the adapter wants to send it. */
  requestId: string;
  /** Where the adapter reports confirmed usage. */
  usage: UsageRecorder;
  /** Records one attempt at an upstream (used by failover()); goes to the request log. */
  recordAttempt?: (attempt: UpstreamAttempt) => void;
  /**
   * Request headers to forward upstream as the caller sent them: for an agent-ready model,
   * `anthropic-version` and `anthropic-beta` (an Anthropic upstream sends them instead of its own
   * version; the betas are never filtered). Absent for V1 models.
   */
  forwardHeaders?: Readonly<Record<string, string>>;
}


/**
 * Upstream for `POST /v1/messages`. `create` answers with one complete message; `stream` yields
 * complete Anthropic stream events in the documented order, one at a time or several at once
 * as an array (the built-in adapters yield the events of one upstream read together). What they
 * return is exactly what the client gets (the proxy only puts the public model name in). Both
 * report usage through `ctx.usage` and throw GatewayError (see `upstreamError`) on failure;
 * neither writes to the client.
 */
export interface MessagesAdapter {
  readonly kind: 'messages';
  /** Short name for logs. */
  readonly name: string;
  /**
   * The wire format it speaks upstream: prices a model leaves out default by it (see Pricing).
   * Default: none (cache figures are then priced as input).
   */
  readonly format?: UpstreamFormat;
  /** The URL it calls, for start-up summaries (the built-in adapters set it). Default: none. */
  readonly endpoint?: string;
  create(request: MessagesRequest, ctx: UpstreamCallContext): Promise<MessageResponse>;
  stream(request: MessagesRequest, ctx: UpstreamCallContext): AsyncIterable<StreamItem>;
  /**
   * Input tokens of a request, counted by the upstream (`POST /v1/messages/count_tokens`).
   * Optional: without it, count_tokens answers that the model cannot count. Never a local guess.
   */
  countTokens?(request: CountTokensRequest, ctx: UpstreamCallContext): Promise<number>;
  /**
   * The fast paths a built-in adapter offers, each a face bound to the adapter it belongs to
   * (`of`): `forward`, the Anthropic adapter's content frames passed on unparsed (Messages route);
   * `responses`, a native Responses upstream's pass-through (Responses route). The gateway takes a
   * face only when its `of` is the model's adapter itself, so a copy or a wrapper that changes
   * `stream()`/`create()` is served through them, translated; a wrapper that wants the fast path
   * binds a face of its own (`{ ...wrapped.forward, of: wrapper }`, its stream wrapped too).
   */
  readonly forward?: ForwardingFace;
  readonly responses?: NativeResponsesFace;
}

/**
 * What count_tokens sends an adapter: a V1 model's model, messages and system; an agent-ready
 * model's whole body as the caller sent it (tools, thinking…), its model name the upstream's.
 */
export type CountTokensRequest = Pick<MessagesRequest, 'model' | 'messages' | 'system'> & Partial<Omit<MessagesRequest, 'model' | 'messages' | 'system'>>;

/** Upstream for `POST /v1/rerank`: returns results sorted by relevance, highest first. */
export interface RerankAdapter {
  readonly kind: 'rerank';
  /** Short name for logs. */
  readonly name: string;
  /** The URL it calls, for start-up summaries (the built-in adapters set it). Default: none. */
  readonly endpoint?: string;
  rerank(request: RerankRequest, ctx: UpstreamCallContext): Promise<RerankResult[]>;
}

/** Headers of an HTTP response, as fetch-compatible clients expose them. */
export interface HeadersLike {
  get(name: string): string | null;
}

/** The part of a fetch Response the gateway uses (node-fetch 2, undici and global fetch fit). */
export interface ResponseLike {
  status: number;
  headers: HeadersLike;
  body: AsyncIterable<Uint8Array | string> | null;
  text(): Promise<string>;
}

/** Options the gateway passes to a fetch-compatible function. */
export interface RequestInitLike {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  agent?: unknown;
  /** Largest body to accept, in bytes (node-fetch honours it; other clients may ignore it). */
  size?: number;
}

/** A fetch-compatible function; the seam where a host plugs its own HTTP client. */
export type FetchLike = (url: string, init: RequestInitLike) => Promise<ResponseLike>;

/** Timeouts of an upstream call, in milliseconds. */
export interface UpstreamTimeouts {
  /** TCP connect. Default: 10000. */
  connectMs?: number;
  /** From sending the request to the response headers; a non-streamed answer sends its headers only when complete. Default: 600000 (10 min, as the official SDKs). */
  firstByteMs?: number;
  /** Longest silence between two chunks of a body or stream. Default: 60000. */
  idleMs?: number;
}

/** Options shared by the built-in HTTP adapters. */
export interface HttpAdapterOptions {
  /**
   * Base URL of the provider, with or without the version segment its endpoints begin with:
   * `https://api.anthropic.com`, `https://api.openai.com/v1` (a trailing slash is ignored).
   */
  baseURL: string;
  /** The gateway's own key for the provider. Never reaches a client or a log line. */
  apiKey?: string;
  /**
   * Fetch-compatible function. Default: node-fetch 2 with a keep-alive agent and no cap on
   * connections (the callers' limits bound concurrency); to cap them, pass `nodeHttpFetch({ maxSockets })`.
   */
  fetch?: FetchLike;
  /** Timeouts. Defaults: see UpstreamTimeouts. */
  timeouts?: UpstreamTimeouts;
  /** Extra headers sent upstream on every call. Default: none. */
  headers?: Record<string, string>;
  /** Name for logs. Default: the provider's name. */
  name?: string;
  /** Largest JSON answer read from the upstream, in bytes. Default: 33554432 (32 MiB). */
  maxResponseBytes?: number;
}
