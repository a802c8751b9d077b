/**
 * The public surface, listed: what lib/index.ts exports, values and types, sorted. A change here is
 * deliberate (a removal is breaking: say so in CHANGELOG.md, with the replacement).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import * as lib from '../../lib';

const VALUES = [
    'CONFIG_ERRORS', 'DEFAULT_MAX_TOKENS', 'DEFAULT_PERCENT_OF_INPUT', 'DashboardSessions', 'ERROR_STATUS', 'GatewayConfigError', 'GatewayError',
    'LiveCatalog', 'MemoryStore', 'OPENAI_ERRORS', 'OVERRIDE_MAX_AGE_MS', 'PostgresStore', 'VERSION', 'anthropicAdapter', 'authenticate',
    'billingHook', 'carryCharge', 'chatToMessages', 'cohereAdapter', 'compatVersion', 'compose', 'countTokens', 'createAdminRouter', 'createCatalog',
    'createGatewayRouter', 'createMetrics', 'defaultEstimator', 'errorBody', 'errorHandler', 'failover', 'gatewayContext', 'gracefulShutdown',
    'health', 'isBlock', 'isEvent', 'jinaAdapter', 'jsonBody', 'jsonLogger', 'limits', 'listModels', 'localStandIn', 'methodNotAllowed', 'migrate', 'mintRunKeys',
    'nodeHttpFetch', 'notFound', 'openaiChatAdapter', 'openaiErrorBody', 'openaiResponsesAdapter', 'otelObserver', 'proxyChatCompletions', 'proxyMessages', 'proxyRerank',
    'proxyResponses', 'refuseWebSocket', 'requestId', 'reserve', 'resolveModel', 'resolveOptions', 'responsesState', 'responsesToMessages', 'storedResponses', 'teiAdapter',
    'undiciFetch', 'upstreamError', 'validate', 'validateResponses', 'voyageAdapter', 'withoutGatewayThinking',
];

const TYPES = [
    'Account', 'AccountQuery', 'AccountRow', 'AdminRouterOptions', 'AdminStore', 'AdminToken', 'AnthropicAdapterOptions', 'AppliedOverride',
    'AuditEntry', 'AuditQuery', 'AuditStore', 'AuthScheme', 'AuthenticateOptions', 'Awaitable', 'BalanceStore', 'BillingHookOptions', 'BillingStatus',
    'BlockDelta', 'BodyKind', 'BoundSettings', 'Budget', 'BudgetCap', 'BudgetDimension', 'BudgetLimits', 'BudgetOptions', 'BudgetPeriod',
    'BudgetStore', 'BudgetUsage', 'CacheControl', 'Caller', 'Capability', 'CarriedCharge', 'Catalog', 'CatalogOverride', 'CatalogOverrideStore',
    'ChatCompletion', 'ChatRequest', 'ChatToMessagesOptions', 'ChatUsage', 'CohereAdapterOptions', 'CompatVersionOptions', 'ConfigErrorCode',
    'ContentBlock', 'CountTokensOptions', 'CountTokensRequest', 'Credit', 'CreditResult', 'CustomTool', 'DashboardSessionOptions',
    'DashboardSessionStore', 'DocumentBlock', 'DocumentSource', 'DurableWriterOptions', 'ErrorBody', 'ErrorCode', 'ErrorHandlerOptions', 'Estimator',
    'FailoverOptions', 'FailureCounter', 'FetchLike', 'ForwardingFace', 'GatewayContext', 'GatewayErrorOptions', 'GatewayMetrics', 'GatewayObserver',
    'GatewayOptions', 'GatewayRouter', 'GatewayStore', 'HealthHandlers', 'HealthOptions', 'HttpAdapterOptions', 'ImageBlock', 'ImageSource',
    'InputItemsPage', 'InputItemsQuery', 'JsonBodyOptions', 'KeyAdminStore', 'KeyPatch', 'KeyRecord', 'KeyStatus', 'KeyStore', 'KnownBlocks',
    'KnownEvents', 'LedgerEntry', 'LedgerReads', 'LedgerRow', 'LimitKind', 'LimitSettings', 'LimiterBackendOptions', 'LimitsOptions',
    'ListModelsOptions', 'LiveFigures', 'LoggerLike', 'MaxTokensField', 'MemoryKey', 'MemoryStoreOptions', 'MessageParam', 'MessageResponse',
    'MessageUsage', 'MessagesAdapter', 'MessagesRequest', 'MeterLike', 'MetricsOptions', 'MintRunKeysOptions', 'MintedKey', 'ModelEntry',
    'ModelFields', 'ModelRecord', 'ModelsOption', 'NativeResponsesFace', 'NewKey', 'NewResponse', 'NodeHttpFetchOptions', 'NotStoredReason',
    'OpenAIChatAdapterOptions', 'OpenAIErrorBody', 'OpenAIResponsesAdapterOptions', 'OverrideChange', 'OverrideKind', 'Page', 'PgPoolLike',
    'PgQueryable', 'PgResult', 'PostgresStoreOptions', 'Price', 'PriceField', 'Pricing', 'ProxyChatOptions', 'ProxyMessagesOptions',
    'ProxyResponsesOptions', 'PutResult', 'ReadQuery', 'RedactedThinkingBlock', 'RequestIdOptions', 'RequestInitLike', 'RequestLogEntry',
    'RequestLogSink', 'RequestLogStore', 'RequestQuery', 'RerankAdapter', 'RerankRequest', 'RerankResponse', 'RerankResult', 'ReserveMiddleware',
    'ReserveOptions', 'ReserveRequest', 'ReserveResult', 'ResolveModelOptions', 'ResolveReview', 'ResolvedConfig', 'ResolvedResponses',
    'ResponseItem', 'ResponseLike', 'ResponseNote', 'ResponseObject', 'ResponseStore', 'ResponsesOptions', 'ResponsesRequest', 'ResponsesState',
    'ResponsesStateOptions', 'ResponsesToMessagesOptions', 'ResponsesUsage', 'ReviewPage', 'ReviewQuery', 'ReviewRecord', 'ReviewResolution',
    'ReviewStore', 'Role', 'RunKeyGrant', 'ScopeBudget', 'ScopeHold', 'ScopeKind', 'ScopeRefusal', 'SeriesPoint', 'SeriesQuery', 'ServerTool',
    'ServerToolResultBlock', 'ServerToolUseBlock', 'SetAsideWrite', 'SettleResult', 'SettledRecord', 'Settlement', 'ShutdownGate', 'SpendRow',
    'StatsReads', 'StopReason', 'StoredResponse', 'StoredResponsesOptions', 'StoredResponsesRoutes', 'StoredSession', 'StreamEvent', 'StreamItem',
    'TextBlock', 'ThinkingBlock', 'ThinkingConfig', 'TokenEstimate', 'Tool', 'ToolChoice', 'ToolResultBlock', 'ToolUseBlock', 'UndiciFetchOptions',
    'UnknownBlock', 'UpstreamAttempt', 'UpstreamCallContext', 'UpstreamFormat', 'UpstreamMember', 'UpstreamTimeouts', 'Usage', 'UsageFigureName', 'UsageFigures',
    'UsageProvenance', 'UsageQuery', 'UsageRecorder', 'ValidateOptions', 'ValidateResponsesOptions', 'WireFormat',
];

/** The names lib/index.ts exports as types only (`export type { … }` or `type` on the name). */
function typeExports(): string[] {
  const text = fs.readFileSync(path.join(__dirname, '..', '..', 'lib', 'index.ts'), 'utf8');
  const source = ts.createSourceFile('index.ts', text, ts.ScriptTarget.ES2022, false);
  return source.statements.flatMap((st) => (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)
    ? st.exportClause.elements.filter((e) => st.isTypeOnly || e.isTypeOnly).map((e) => e.name.text) : []));
}

it('exports these values, and no others', () => {
  expect(Object.keys(lib).filter((name) => name !== '__esModule').sort()).toEqual(VALUES);
});

it('exports these types, and no others', () => {
  expect(typeExports().sort()).toEqual(TYPES);
});

it('keeps internals internal', () => {
  for (const internal of ['hashKey', 'newRequestId', 'costOf', 'holdFor', 'DurableWriter', 'responseExpiry', 'adminOpenApi', 'loggingObserver']) expect(lib).not.toHaveProperty(internal);
});
