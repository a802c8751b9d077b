/** An agent request that uses the whole Messages contract, and an answer with every block and delta type, known or not. */
import type { StreamEvent } from '../../lib';

/** A 1×1 PNG. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
/** An opaque signature with `+`, `/` and `=`, which a careless re-serialiser escapes or mangles. */
export const SIGNATURE = 'EqQBCkgIARABGAIiQL+/wN0Xy==Zq/+abc\u2028def';

/** Every field an agent sends, including ones the gateway does not know (they must reach the upstream as sent). */
export function agentRequest(model: string, stream: boolean): Record<string, unknown> {
  return {
    model,
    max_tokens: 32000,
    system: [
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1' },
      { type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Tools follow.', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ],
    tools: [
      { name: 'Write', description: 'Writes a file', input_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] }, strict: true },
      { name: 'Later', description: 'Loaded when needed', input_schema: { type: 'object' }, defer_loading: true },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    ],
    tool_choice: { type: 'auto', disable_parallel_tool_use: false },
    thinking: { type: 'enabled', budget_tokens: 31999, display: 'omitted' },
    metadata: { user_id: JSON.stringify({ device_id: 'd', session_id: 's' }) },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    output_config: { effort: 'high' },
    stop_sequences: ['\n\nHuman:'],
    top_k: 40,
    temperature: 1,
    messages: [
      { role: 'user', content: [
        { type: 'text', text: 'Look at these.' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'A plain document.' }, title: 'Doc', citations: { enabled: true } },
      ] },
      { role: 'system', content: 'Mid-conversation reminder.' },
      { role: 'assistant', content: [
        { type: 'thinking', thinking: 'I should write it.', signature: SIGNATURE },
        { type: 'redacted_thinking', data: 'ENCRYPTED==' },
        { type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: '/tmp/a', content: 'é "quoted" \u0000' } },
      ] },
      { role: 'user', content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'written' }], is_error: false, cache_control: { type: 'ephemeral' } },
        { type: 'future_block_2027', payload: { nested: [1, 2.5, 0, 1e21] } },
      ] },
    ],
    frobnicate_2027: { any: 'thing' },
    stream,
  };
}

/** An answer with every block type: thinking, redacted thinking, text with citations, tool use, server tool use and results, an unknown one. */
export const ANSWER_CONTENT = [
  { type: 'thinking', thinking: 'Let me search.', signature: SIGNATURE },
  { type: 'redacted_thinking', data: 'ENCRYPTED2==' },
  { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'weather' } },
  { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Ex', encrypted_content: 'abc', page_age: null }] },
  { type: 'text', text: 'It is sunny.', citations: [{ type: 'web_search_result_location', url: 'https://example.com', title: 'Ex', encrypted_index: 'x', cited_text: 'sunny' }] },
  { type: 'tool_use', id: 'toolu_2', name: 'Write', input: { file_path: '/tmp/b', content: 'ok' } },
  { type: 'future_block_2027', payload: { kept: true } },
];

/** The usage of the answer: cache reads and writes of both lifetimes, and web searches. */
export const ANSWER_USAGE = {
  input_tokens: 12, cache_creation_input_tokens: 3000, cache_read_input_tokens: 50_000, output_tokens: 420,
  cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 }, server_tool_use: { web_search_requests: 2 }, service_tier: 'standard',
};

/** The stream of the answer, event by event: every delta type, an unknown delta, an unknown event, and pings. */
export function answerEvents(model: string): StreamEvent[] {
  const { output_tokens: _, ...input } = ANSWER_USAGE;
  return [
    { type: 'message_start', message: { id: 'msg_agent', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...input, output_tokens: 1 } } },
    { type: 'ping' },
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me search.' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'ENCRYPTED2==' } },
    { type: 'content_block_stop', index: 1 },
    { type: 'content_block_start', index: 2, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"query": "wea' } },
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: 'ther"}' } },
    { type: 'content_block_stop', index: 2 },
    { type: 'content_block_start', index: 3, content_block: ANSWER_CONTENT[3] as StreamEvent },
    { type: 'content_block_stop', index: 3 },
    { type: 'content_block_start', index: 4, content_block: { type: 'text', text: '', citations: [] } },
    { type: 'content_block_delta', index: 4, delta: { type: 'citations_delta', citation: (ANSWER_CONTENT[4] as { citations: object[] }).citations[0] } },
    { type: 'content_block_delta', index: 4, delta: { type: 'text_delta', text: 'It is sunny.' } },
    { type: 'content_block_stop', index: 4 },
    { type: 'future_event_2027', detail: 'ignored by today\'s clients' },
    { type: 'content_block_start', index: 5, content_block: { type: 'tool_use', id: 'toolu_2', name: 'Write', input: {} } },
    { type: 'content_block_delta', index: 5, delta: { type: 'input_json_delta', partial_json: '' } },
    { type: 'content_block_delta', index: 5, delta: { type: 'input_json_delta', partial_json: '{"file_path":"/tmp/b",' } },
    { type: 'content_block_delta', index: 5, delta: { type: 'input_json_delta', partial_json: '"content":"ok"}' } },
    { type: 'content_block_delta', index: 5, delta: { type: 'future_delta_2027', bits: 1 } },
    { type: 'content_block_stop', index: 5 },
    { type: 'content_block_start', index: 6, content_block: { type: 'future_block_2027', payload: { kept: true } } },
    { type: 'content_block_stop', index: 6 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: ANSWER_USAGE },
    { type: 'message_stop' },
  ];
}
