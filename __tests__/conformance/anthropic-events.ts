/**
 * Recorded shapes of Anthropic Messages streams and the chat completion each must become on
 * /v1/chat/completions, as data: the events an Anthropic upstream streams, and what the openai
 * SDK's finalChatCompletion() must yield (content null without text: SDK versions read a stream's
 * first `content: ""` as '' or null; reasoning is checked on the raw chunks: the SDK keeps only the last
 * reasoning delta). Used by the stream conformance suite; reusable by any translator test.
 */

type Json = Record<string, unknown>;

export interface EventSequence {
  name: string;
  events: Json[];
  expected: {
    content: string | null;
    tool_calls: Array<{ id: string; name: string; input: unknown }>;
    reasoning: string;
    finish_reason: string;
    usage: { prompt_tokens: number; completion_tokens: number; cached_tokens: number };
  };
}

const start = (usage: Json = { input_tokens: 25, output_tokens: 1 }): Json =>
  ({ type: 'message_start', message: { id: 'msg_rec', type: 'message', role: 'assistant', content: [], model: 'rec', stop_reason: null, stop_sequence: null, usage } });
const block = (index: number, content_block: Json): Json => ({ type: 'content_block_start', index, content_block });
const delta = (index: number, d: Json): Json => ({ type: 'content_block_delta', index, delta: d });
const stop = (index: number): Json => ({ type: 'content_block_stop', index });
const text = (index: number, ...pieces: string[]): Json[] => [block(index, { type: 'text', text: '' }), ...pieces.map((t) => delta(index, { type: 'text_delta', text: t })), stop(index)];
const tool = (index: number, id: string, name: string, ...json: string[]): Json[] =>
  [block(index, { type: 'tool_use', id, name, input: {} }), ...json.map((j) => delta(index, { type: 'input_json_delta', partial_json: j })), stop(index)];
const end = (stop_reason: string, usage: Json): Json[] => [{ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage }, { type: 'message_stop' }];
const ping = { type: 'ping' };

export const ANTHROPIC_SEQUENCES: readonly EventSequence[] = [
  {
    name: 'text only',
    events: [start(), ...text(0, 'Hello', ' there'), ...end('end_turn', { output_tokens: 5 })],
    expected: { content: 'Hello there', tool_calls: [], reasoning: '', finish_reason: 'stop', usage: { prompt_tokens: 25, completion_tokens: 5, cached_tokens: 0 } },
  },
  {
    name: 'thinking, then text, then a tool call whose input arrives in pieces (the first one empty)',
    events: [
      start(), block(0, { type: 'thinking', thinking: '', signature: '' }), delta(0, { type: 'thinking_delta', thinking: 'Need the' }),
      delta(0, { type: 'thinking_delta', thinking: ' weather.' }), delta(0, { type: 'signature_delta', signature: 'EqQBCkgIARABGAIiQL+/sig==' }), stop(0),
      ...text(1, 'Checking.'), ...tool(2, 'toolu_01A', 'get_weather', '', '{"ci', 'ty": "Par', 'is"}'), ...end('tool_use', { output_tokens: 40 }),
    ],
    expected: { content: 'Checking.', tool_calls: [{ id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } }], reasoning: 'Need the weather.', finish_reason: 'tool_calls', usage: { prompt_tokens: 25, completion_tokens: 40, cached_tokens: 0 } },
  },
  {
    name: 'parallel tool calls, no text',
    events: [start(), ...tool(0, 'toolu_P1', 'get_weather', '{"city":"Rome"}'), ...tool(1, 'toolu_P2', 'get_time', '', '{"zone":', '"CET"}'), ...end('tool_use', { output_tokens: 33 })],
    expected: {
      content: null, reasoning: '', finish_reason: 'tool_calls', usage: { prompt_tokens: 25, completion_tokens: 33, cached_tokens: 0 },
      tool_calls: [{ id: 'toolu_P1', name: 'get_weather', input: { city: 'Rome' } }, { id: 'toolu_P2', name: 'get_time', input: { zone: 'CET' } }],
    },
  },
  {
    name: 'a tool call without input',
    events: [start(), ...tool(0, 'toolu_E', 'list_files', ''), ...end('tool_use', { output_tokens: 7 })],
    expected: { content: null, tool_calls: [{ id: 'toolu_E', name: 'list_files', input: {} }], reasoning: '', finish_reason: 'tool_calls', usage: { prompt_tokens: 25, completion_tokens: 7, cached_tokens: 0 } },
  },
  {
    name: 'pings, an unknown event and an unknown block between',
    events: [
      start(), ping, ...text(0, 'A'), ping, { type: 'mystery_event', x: 1 }, block(1, { type: 'mystery_block' }), delta(1, { type: 'mystery_delta', y: 2 }), stop(1),
      ...text(2, 'B'), ping, ...end('end_turn', { output_tokens: 3 }),
    ],
    expected: { content: 'AB', tool_calls: [], reasoning: '', finish_reason: 'stop', usage: { prompt_tokens: 25, completion_tokens: 3, cached_tokens: 0 } },
  },
  {
    name: 'cache reads and writes, the cumulative input figures in message_delta',
    events: [
      start({ input_tokens: 0, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }), ...text(0, 'Cached.'),
      ...end('end_turn', { input_tokens: 7, output_tokens: 9, cache_read_input_tokens: 1_500, cache_creation_input_tokens: 300 }),
    ],
    expected: { content: 'Cached.', tool_calls: [], reasoning: '', finish_reason: 'stop', usage: { prompt_tokens: 1_807, completion_tokens: 9, cached_tokens: 1_500 } },
  },
  {
    name: 'cut by max_tokens',
    events: [start(), ...text(0, 'Long'), ...end('max_tokens', { output_tokens: 4 })],
    expected: { content: 'Long', tool_calls: [], reasoning: '', finish_reason: 'length', usage: { prompt_tokens: 25, completion_tokens: 4, cached_tokens: 0 } },
  },
  {
    name: 'a server tool (web search) before the answer',
    events: [
      start(), block(0, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }), delta(0, { type: 'input_json_delta', partial_json: '{"query":"x"}' }), stop(0),
      block(1, { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }), stop(1), ...text(2, 'Found.'), ...end('end_turn', { output_tokens: 12 }),
    ],
    expected: { content: 'Found.', tool_calls: [], reasoning: '', finish_reason: 'stop', usage: { prompt_tokens: 25, completion_tokens: 12, cached_tokens: 0 } },
  },
];
