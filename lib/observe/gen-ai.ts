/** What the OpenTelemetry GenAI semantic conventions fix, shared by the Prometheus and OpenTelemetry metrics. */

// Bucket boundaries the conventions advise (seconds, tokens).
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
export const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

/** `gen_ai.operation.name` of an endpoint; undefined for endpoints that are not model calls. */
export const OPERATION: Readonly<Record<string, string>> = {
  messages: 'chat', chat_completions: 'chat', responses: 'chat', rerank: 'rerank', count_tokens: 'count_tokens', responses_input_tokens: 'count_tokens',
};
