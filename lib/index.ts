/** model-gateway: public exports only. */
export { createGatewayRouter } from './router';
export { resolveOptions } from './options';
export { compose } from './compose';
export { requestId, newRequestId } from './middleware/request-id';
export { billingHook } from './middleware/billing-hook';
export { jsonBody } from './middleware/json-body';
export { authenticate } from './middleware/authenticate';
export { compatVersion, DEFAULT_VERSIONS } from './middleware/compat-version';
export { validate } from './middleware/validate';
export { resolveModel, DEFAULT_MAX_TOKENS } from './middleware/resolve-model';
export { limits } from './middleware/limits';
export { reserve } from './middleware/reserve';
export { proxyMessages } from './middleware/proxy-messages';
export { proxyChatCompletions } from './middleware/proxy-chat';
export { countTokens } from './middleware/count-tokens';
export { proxyRerank } from './middleware/proxy-rerank';
export { listModels } from './middleware/list-models';
export { notFound } from './middleware/not-found';
export { errorHandler } from './middleware/error-handler';
export { gracefulShutdown } from './middleware/graceful-shutdown';
export { gatewayContext } from './context';
export { createCatalog } from './catalog';
export { GatewayError, ERROR_STATUS, errorBody, openaiErrorBody } from './errors';
export { defaultEstimator } from './billing/estimate';
export { costOf, holdFor } from './billing/pricing';
export { carryCharge, type CarriedCharge } from './billing/money';
export { DurableWriter } from './billing/durable';
export { MemoryStore } from './stores/memory-store';
export { PostgresStore } from './stores/postgres-store';
export { migrate } from './stores/migrate';
export { hashKey } from './stores/hash';
export { anthropicAdapter } from './upstreams/providers/anthropic';
export { openaiChatAdapter } from './upstreams/providers/openai-chat';
export { cohereAdapter, jinaAdapter, voyageAdapter, teiAdapter } from './upstreams/providers/rerank-providers';
export { upstreamError } from './upstreams/http/errors';
export { failover } from './upstreams/failover';
export { nodeHttpFetch } from './upstreams/http/node-http-fetch';
export { localStandIn } from './upstreams/providers/local-stand-in';

export type { GatewayRouter } from './router';
export type { GatewayOptions, ResolvedConfig } from './options';
export type { RequestIdOptions } from './middleware/request-id';
export type { BillingHookOptions, SettledRecord } from './middleware/billing-hook';
export type { JsonBodyOptions } from './middleware/json-body';
export type { AuthenticateOptions, AuthScheme } from './middleware/authenticate';
export type { CompatVersionOptions } from './middleware/compat-version';
export type { BodyKind, ValidateOptions } from './middleware/validate';
export type { ResolveModelOptions } from './middleware/resolve-model';
export type { LimitsOptions } from './middleware/limits';
export type { ReserveOptions } from './middleware/reserve';
export type { RerankResponse } from './middleware/proxy-rerank';
export type { ListModelsOptions, ModelRecord } from './middleware/list-models';
export type { ShutdownGate } from './middleware/graceful-shutdown';
export type { GatewayContext } from './context';
export type { Catalog, ModelEntry } from './catalog';
export type { ErrorCode, ErrorBody, GatewayErrorOptions, OpenAIErrorBody } from './errors';
export type { ErrorHandlerOptions } from './middleware/error-handler';
export type { ChatCompletion, ChatRequest, ChatUsage } from './chat/translate';
export type { Estimator, TokenEstimate } from './billing/estimate';
export type { DurableWriterOptions, SetAsideWrite } from './billing/durable';
export type { LimiterBackendOptions, LimitKind } from './limits/limiters';
export type { MemoryKey, MemoryStoreOptions, LedgerRow } from './stores/memory-store';
export type { ResolveReview, ReviewPage, ReviewQuery, ReviewRecord, ReviewResolution, ReviewStore } from './stores/reviews';
export type { PostgresStoreOptions } from './stores/postgres-store';
export type { Credit, CreditResult } from './stores/credit';
export type { Account, LedgerEntry, LedgerReads, Page, ReadQuery, RequestQuery, SpendRow } from './stores/reads';
export type { PgPoolLike, PgQueryable, PgResult } from './stores/migrate';
export type {
  Awaitable, BillingStatus, BalanceStore, GatewayStore, KeyStore, RequestLogEntry, RequestLogStore, ReserveRequest, ReserveResult, SettleResult, Settlement,
} from './stores/types';
export type { AnthropicAdapterOptions } from './upstreams/providers/anthropic';
export type { OpenAIChatAdapterOptions } from './upstreams/providers/openai-chat';
export type { MaxTokensField } from './upstreams/providers/openai-translate';
export type { CohereAdapterOptions } from './upstreams/providers/rerank-providers';
export type { FailoverOptions } from './upstreams/failover';
export type {
  CountTokensRequest, FetchLike, HttpAdapterOptions, MessagesAdapter, RerankAdapter, RequestInitLike, ResponseLike, UpstreamAttempt, UpstreamCallContext, UpstreamTimeouts, UsageFigures, UsageRecorder,
} from './upstreams/types';
export type {
  Caller, Capability, LimitSettings, MessageParam, MessageResponse, MessagesRequest, Price, Pricing, RerankRequest, RerankResult, StreamEvent, StreamItem, TextBlock, Usage, UsageProvenance,
} from './types';
