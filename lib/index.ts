/** model-gateway: what a host needs (factories, stores, adapters, the contract types, the errors); __tests__/unit/exports.test.ts lists it. */
export { createGatewayRouter } from './router';
export { resolveOptions } from './options';
export { compose } from './compose';
export { requestId } from './middleware/request-id';
export { billingHook } from './middleware/billing-hook';
export { jsonBody } from './middleware/json-body';
export { authenticate } from './middleware/authenticate';
export { compatVersion } from './middleware/compat-version';
export { validate } from './middleware/validate';
export { resolveModel } from './middleware/resolve-model';
export { limits } from './middleware/limits';
export { reserve } from './middleware/reserve';
export { proxyMessages } from './middleware/proxy-messages';
export { proxyChatCompletions } from './middleware/proxy-chat';
export { validateResponses } from './middleware/validate-responses';
export { proxyResponses } from './middleware/proxy-responses';
export { responsesState } from './middleware/responses-state';
export { storedResponses } from './middleware/responses-read';
export { refuseWebSocket } from './middleware/websocket-refused';
export { countTokens } from './middleware/count-tokens';
export { proxyRerank } from './middleware/proxy-rerank';
export { listModels } from './middleware/list-models';
export { methodNotAllowed, notFound } from './middleware/not-found';
export { errorHandler } from './middleware/error-handler';
export { gracefulShutdown } from './middleware/graceful-shutdown';
export { gatewayContext } from './context';
export { createCatalog, DEFAULT_MAX_TOKENS, LiveCatalog } from './catalog';
export { OVERRIDE_MAX_AGE_MS } from './catalog-follow';
export { GatewayError, ERROR_STATUS, errorBody, OPENAI_ERRORS, openaiErrorBody } from './errors';
export { GatewayConfigError, CONFIG_ERRORS } from './config-errors';
export type { ConfigErrorCode } from './config-errors';
export { defaultEstimator } from './billing/estimate';
export { carryCharge, type CarriedCharge } from './billing/money';
export { MemoryStore } from './stores/memory-store';
export { PostgresStore } from './stores/postgres-store';
export { migrate } from './stores/migrate';
export { anthropicAdapter } from './upstreams/providers/anthropic';
export { openaiChatAdapter } from './upstreams/providers/openai-chat';
export { openaiResponsesAdapter } from './upstreams/providers/openai-responses';
export { withoutGatewayThinking } from './messages/gateway-thinking';
export { cohereAdapter, jinaAdapter, voyageAdapter, teiAdapter } from './upstreams/providers/rerank-providers';
export { upstreamError } from './upstreams/http/errors';
export { failover } from './upstreams/failover';
export { nodeHttpFetch } from './upstreams/http/node-http-fetch';
export type { NodeHttpFetchOptions } from './upstreams/http/node-http-fetch';
export { localStandIn } from './upstreams/providers/local-stand-in';
export { createAdminRouter } from './admin/router';
export { DashboardSessions } from './admin/dashboard/sessions';
export { createMetrics } from './observe/metrics';
export { otelObserver } from './observe/otel';
export { health } from './observe/health';
export { jsonLogger } from './observe/logger';
export { VERSION } from './version';

export type { GatewayRouter } from './router';
export type { AdminRouterOptions } from './admin/router';
export type { AdminToken } from './admin/auth';
export type { AdminStore } from './admin/store';
export type { DashboardSessionOptions } from './admin/dashboard/sessions';
export type { GatewayMetrics, LiveFigures, MetricsOptions } from './observe/metrics';
export type { MeterLike } from './observe/otel';
export type { HealthHandlers, HealthOptions } from './observe/health';
export type { LoggerLike } from './observe/logger';
export type { GatewayObserver } from './observe/observer';
export type { GatewayOptions, ResolvedConfig } from './options';
export type { ResolvedResponses, ResponsesOptions } from './responses-options';
export type { RequestIdOptions } from './middleware/request-id';
export type { BillingHookOptions, SettledRecord } from './middleware/billing-hook';
export type { JsonBodyOptions } from './middleware/json-body';
export type { AuthenticateOptions, AuthScheme } from './middleware/authenticate';
export type { CompatVersionOptions } from './middleware/compat-version';
export type { BodyKind, ValidateOptions } from './middleware/validate';
export type { ResolveModelOptions } from './middleware/resolve-model';
export type { CountTokensOptions } from './middleware/count-tokens';
export type { LimitsOptions } from './middleware/limits';
export type { ReserveMiddleware, ReserveOptions } from './middleware/reserve';
export type { RerankResponse } from './middleware/proxy-rerank';
export type { ListModelsOptions, ModelRecord } from './middleware/list-models';
export type { ShutdownGate } from './middleware/graceful-shutdown';
export type { GatewayContext } from './context';
export type { Catalog, ModelEntry, ModelsOption } from './catalog';
export type { ModelFields } from './catalog-fields';
export type { AppliedOverride } from './catalog-overrides';
export type { CatalogOverride, CatalogOverrideStore, OverrideChange, OverrideKind } from './stores/catalog-overrides';
export type { DashboardSessionStore, FailureCounter, StoredSession } from './stores/dashboard-sessions';
export type { ErrorCode, ErrorBody, GatewayErrorOptions, OpenAIErrorBody } from './errors';
export type { ErrorHandlerOptions } from './middleware/error-handler';
export type { ProxyMessagesOptions } from './middleware/proxy-messages';
export type { ProxyChatOptions } from './middleware/proxy-chat';
export type { ValidateResponsesOptions } from './middleware/validate-responses';
export type { ProxyResponsesOptions } from './middleware/proxy-responses';
export type { ResponsesState, ResponsesStateOptions } from './middleware/responses-state';
export type { StoredResponsesOptions, StoredResponsesRoutes } from './middleware/responses-read';
export type { ResponseObject, ResponsesRequest, ResponsesUsage } from './formats/openai-responses';
export type { WireFormat } from './wire/error-wire';
export type { ChatCompletion, ChatRequest, ChatUsage } from './formats/openai-chat';
export type { Estimator, TokenEstimate } from './billing/estimate';
export type { DurableWriterOptions, SetAsideWrite } from './billing/durable';
export type { LimiterBackendOptions, LimitKind } from './limits/limiters';
export type { MemoryKey, MemoryStoreOptions, LedgerRow } from './stores/memory-store';
export type { ResolveReview, ReviewPage, ReviewQuery, ReviewRecord, ReviewResolution, ReviewStore } from './stores/reviews';
export type { PostgresStoreOptions } from './stores/postgres-store';
export type { RequestLogSink } from './stores/request-log-sink';
export type {
  InputItemsPage, InputItemsQuery, NewResponse, NotStoredReason, PutResult, ResponseItem, ResponseNote, ResponseStore, StoredResponse,
} from './stores/responses';
export type { Credit, CreditResult } from './stores/credit';
export type { AuditEntry, AuditQuery, AuditStore } from './stores/audit';
export type { KeyAdminStore, KeyPatch, KeyRecord, KeyStatus, NewKey } from './stores/keys';
export type { Account, LedgerEntry, LedgerReads, Page, ReadQuery, RequestQuery, SpendRow } from './stores/reads';
export type { PgPoolLike, PgQueryable, PgResult } from './stores/migrate';
export type { AccountQuery, AccountRow, SeriesPoint, SeriesQuery, StatsReads } from './stores/stats';
export type {
  Awaitable, BillingStatus, BalanceStore, GatewayStore, KeyStore, RequestLogEntry, RequestLogStore, ReserveRequest, ReserveResult, SettleResult, Settlement,
} from './stores/types';
export type { AnthropicAdapterOptions } from './upstreams/providers/anthropic';
export type { OpenAIChatAdapterOptions } from './upstreams/providers/openai-chat';
export type { OpenAIResponsesAdapterOptions } from './upstreams/providers/openai-responses';
export type { MaxTokensField } from './formats/openai-chat';
export type { CohereAdapterOptions } from './upstreams/providers/rerank-providers';
export type { FailoverOptions } from './upstreams/failover';
export type {
  CountTokensRequest, FetchLike, HttpAdapterOptions, MessagesAdapter, RerankAdapter, RequestInitLike, ResponseLike, UpstreamAttempt, UpstreamCallContext, UpstreamTimeouts, UsageRecorder,
} from './upstreams/types';
export type {
  Caller, Capability, LimitSettings, Price, Pricing, RerankRequest, RerankResult, Usage, UsageFigures, UsageProvenance,
} from './types';
export { isBlock } from './messages/content';
export type {
  CacheControl, ContentBlock, DocumentBlock, DocumentSource, ImageBlock, ImageSource, KnownBlocks, MessageParam, RedactedThinkingBlock, Role,
  ServerToolResultBlock, ServerToolUseBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock, UnknownBlock,
} from './messages/content';
export type { CustomTool, MessageResponse, MessagesRequest, MessageUsage, ServerTool, StopReason, ThinkingConfig, Tool, ToolChoice } from './messages/request';
export { isEvent } from './messages/events';
export type { BlockDelta, KnownEvents, StreamEvent, StreamItem } from './messages/events';
export { DEFAULT_PERCENT_OF_INPUT } from './billing/figures';
export type { PriceField, UpstreamFormat, UsageFigureName } from './billing/figures';
