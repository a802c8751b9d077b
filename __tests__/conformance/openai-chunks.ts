/**
 * Recorded shapes of OpenAI-format streams (OpenAI, vLLM, DeepSeek, Ollama, Gemini's compatible
 * API) and the Message each must become through the gateway, as data: each sequence is the chunks an
 * upstream streams (then `data: [DONE]`), the tools of the request, and what @anthropic-ai/sdk's
 * finalMessage() must yield. Used by the stream conformance suite; reusable by any translator test.
 */
import { shortToolName } from '../../lib/formats/openai-chat/tool-names';

type Json = Record<string, unknown>;

export interface ChunkSequence {
  name: string;
  /** The tools the request defines (names over 64 characters reach the upstream shortened). */
  tools: string[];
  chunks: Json[];
  expected: {
    content: Json[];
    stop_reason: string;
    usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number };
  };
}

const chunk = (delta: Json, finish: string | null = null, extra: Json = {}): Json =>
  ({ id: 'chatcmpl-rec', object: 'chat.completion.chunk', created: 1_767_225_600, model: 'rec', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra });
const role = chunk({ role: 'assistant', content: '' });
const usage = (prompt: number, completion: number, cached = 0): Json => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } });
const usageChunk = (prompt: number, completion: number, cached = 0): Json =>
  ({ id: 'chatcmpl-rec', object: 'chat.completion.chunk', created: 1_767_225_600, model: 'rec', choices: [], usage: usage(prompt, completion, cached) });
const call = (index: number, id: string | undefined, name: string | undefined, args: string): Json =>
  ({ tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: { ...(name ? { name } : {}), arguments: args } }] });
/** A JSON text cut in pieces of `size` characters. */
const pieces = (text: string, size: number): string[] => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

const WEATHER = { city: 'Paris', unit: 'celsius' };
const WRITE = { file_path: '/tmp/a.txt', content: 'line 1\n"quoted" \\ ünïcode ✓ 𝄞\n' };
const toolUse = (id: string, name: string, input: unknown): Json => ({ type: 'tool_use', id, name, input });
const LONG = `mcp__a_server_with_a_long_name__${'and_a_long_tool_name_'.repeat(3)}that_goes_on`;
const used = (input: number, output: number, cached = 0) => ({ input_tokens: input - cached, output_tokens: output, cache_read_input_tokens: cached });

export const OPENAI_SEQUENCES: readonly ChunkSequence[] = [
  {
    name: 'name and arguments in one chunk',
    tools: ['get_weather'],
    chunks: [role, chunk(call(0, 'call_one', 'get_weather', JSON.stringify(WEATHER))), chunk({}, 'tool_calls'), usageChunk(40, 12)],
    expected: { content: [toolUse('call_one', 'get_weather', WEATHER)], stop_reason: 'tool_use', usage: used(40, 12) },
  },
  {
    name: 'arguments split across many chunks',
    tools: ['Write'],
    chunks: [role, chunk(call(0, 'call_w', 'Write', '')), ...pieces(JSON.stringify(WRITE), 3).map((p) => chunk(call(0, undefined, undefined, p))), chunk({}, 'tool_calls'), usageChunk(50, 30)],
    expected: { content: [toolUse('call_w', 'Write', WRITE)], stop_reason: 'tool_use', usage: used(50, 30) },
  },
  {
    name: 'parallel calls by index',
    tools: ['get_weather', 'Write'],
    chunks: [
      role, chunk(call(0, 'call_a', 'get_weather', '{"city":')), chunk(call(0, undefined, undefined, '"Paris","unit":"celsius"}')),
      chunk(call(1, 'call_b', 'Write', '')), ...pieces(JSON.stringify(WRITE), 5).map((p) => chunk(call(1, undefined, undefined, p))),
      chunk({}, 'tool_calls'), usageChunk(60, 40),
    ],
    expected: { content: [toolUse('call_a', 'get_weather', WEATHER), toolUse('call_b', 'Write', WRITE)], stop_reason: 'tool_use', usage: used(60, 40) },
  },
  {
    name: 'index 0 reused with new ids (Ollama), finish_reason stop',
    tools: ['get_weather'],
    chunks: [
      role, chunk(call(0, 'call_x', 'get_weather', JSON.stringify(WEATHER))), chunk(call(0, 'call_y', 'get_weather', JSON.stringify({ city: 'Oslo' }))),
      chunk({}, 'stop'), usageChunk(30, 20),
    ],
    expected: { content: [toolUse('call_x', 'get_weather', WEATHER), toolUse('call_y', 'get_weather', { city: 'Oslo' })], stop_reason: 'tool_use', usage: used(30, 20) },
  },
  {
    name: 'two whole calls in one chunk (Gemini)',
    tools: ['get_weather'],
    chunks: [role, chunk({ tool_calls: [{ index: 0, id: 'g1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }, { index: 1, id: 'g2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } }] }, 'tool_calls', { usage: usage(22, 9) })],
    expected: { content: [toolUse('g1', 'get_weather', { city: 'Rome' }), toolUse('g2', 'get_weather', { city: 'Lima' })], stop_reason: 'tool_use', usage: used(22, 9) },
  },
  {
    name: 'content and finish_reason in one chunk',
    tools: [],
    chunks: [role, chunk({ content: 'Hello' }), chunk({ content: ' world' }, 'stop'), usageChunk(10, 2)],
    expected: { content: [{ type: 'text', text: 'Hello world' }], stop_reason: 'end_turn', usage: used(10, 2) },
  },
  {
    name: 'reasoning, then text, then tool calls (DeepSeek), cached tokens in the usage',
    tools: ['Write'],
    chunks: [
      chunk({ role: 'assistant', content: null }), ...['The user', ' wants a file', '.'].map((r) => chunk({ reasoning_content: r })),
      chunk({ content: 'I will write it.' }), chunk(call(0, 'call_r', 'Write', JSON.stringify(WRITE).slice(0, 10))), chunk(call(0, undefined, undefined, JSON.stringify(WRITE).slice(10))),
      chunk({}, 'tool_calls'), usageChunk(12_400, 180, 11_264),
    ],
    expected: {
      content: [{ type: 'thinking', thinking: 'The user wants a file.', signature: 'model-gateway:v1:reasoning_content' }, { type: 'text', text: 'I will write it.' }, toolUse('call_r', 'Write', WRITE)],
      stop_reason: 'tool_use', usage: used(12_400, 180, 11_264),
    },
  },
  {
    name: 'vLLM reasoning field, interleaved with text',
    tools: [],
    chunks: [role, chunk({ reasoning: 'First ' }), chunk({ reasoning: 'thought.' }), chunk({ content: 'A.' }), chunk({ reasoning: 'Second.' }), chunk({ content: 'B.' }), chunk({}, 'stop'), usageChunk(8, 6)],
    expected: {
      content: [
        { type: 'thinking', thinking: 'First thought.', signature: 'model-gateway:v1:reasoning' }, { type: 'text', text: 'A.' },
        { type: 'thinking', thinking: 'Second.', signature: 'model-gateway:v1:reasoning' }, { type: 'text', text: 'B.' },
      ],
      stop_reason: 'end_turn', usage: used(8, 6),
    },
  },
  {
    name: 'usage after finish, every other chunk with usage: null (OpenAI)',
    tools: [],
    chunks: [chunk({ role: 'assistant', content: '' }, null, { usage: null }), chunk({ content: 'Hi' }, null, { usage: null }), chunk({}, 'length', { usage: null }), usageChunk(5, 64, 2)],
    expected: { content: [{ type: 'text', text: 'Hi' }], stop_reason: 'max_tokens', usage: used(5, 64, 2) },
  },
  {
    name: 'usage on the finish chunk (vLLM, SGLang)',
    tools: [],
    chunks: [role, chunk({ content: 'Yes.' }), chunk({}, 'stop', { usage: usage(7, 2) })],
    expected: { content: [{ type: 'text', text: 'Yes.' }], stop_reason: 'end_turn', usage: used(7, 2) },
  },
  {
    name: 'no usage at all',
    tools: [],
    chunks: [role, chunk({ content: 'No figures.' }), chunk({}, 'stop')],
    expected: { content: [{ type: 'text', text: 'No figures.' }], stop_reason: 'end_turn', usage: used(0, 0) },
  },
  {
    name: 'a call without arguments, its id with characters Anthropic refuses',
    tools: ['list_files'],
    chunks: [role, chunk(call(0, 'call:0/a', 'list_files', '')), chunk({}, 'tool_calls'), usageChunk(9, 3)],
    expected: { content: [toolUse('call_0_a', 'list_files', {})], stop_reason: 'tool_use', usage: used(9, 3) },
  },
  {
    name: 'a tool name over 64 characters, shortened upstream and restored',
    tools: [LONG],
    chunks: [role, chunk(call(0, 'call_l', shortToolName(LONG), '{"q":1}')), chunk({}, 'tool_calls'), usageChunk(11, 4)],
    expected: { content: [toolUse('call_l', LONG, { q: 1 })], stop_reason: 'tool_use', usage: used(11, 4) },
  },
];
