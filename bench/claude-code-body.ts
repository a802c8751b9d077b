/** A synthetic request shaped like Claude Code 2.1.197's third turn (docs/agent-clients-observed.md), and its streamed answer:
 * the same fields, order, cache breakpoints and sizes, with generated text in place of Claude Code's prompt and tool descriptions. */

const WORDS = ['the', 'agent', 'reads', 'a', 'file', 'tool', 'input', 'schema', 'returns', 'when', 'call', 'path', 'content', 'result', 'session', 'cache', 'stream', 'block', 'token', 'model', 'user', 'edit'];

/** Deterministic filler prose of `chars` characters, with the newlines, quotes and non-ASCII marks real prompts carry. */
export function prose(chars: number, seed = 1): string {
  let x = seed;
  let out = '';
  while (out.length < chars) {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    const word = WORDS[x % WORDS.length] as string;
    out += x % 17 === 0 ? `${word}.\n` : x % 29 === 0 ? `"${word}" — ` : `${word} `;
  }
  return out.slice(0, chars);
}

/** Claude Code's tools (names and argument counts as sent; descriptions are filler of the observed lengths). */
const TOOLS: Array<[name: string, descriptionChars: number, properties: number, deferred: boolean]> = [
  ['Agent', 1_700, 6, false], ['Bash', 1_700, 5, false], ['Edit', 500, 4, false], ['Read', 1_200, 4, false],
  ['Write', 350, 2, false], ['Skill', 2_400, 2, false], ['TaskCreate', 3_000, 4, true], ['TaskUpdate', 3_100, 9, true],
  ['WebFetch', 520, 2, true], ['WebSearch', 440, 3, true], ['NotebookEdit', 870, 5, true], ['Workflow', 26_000, 7, false],
];

function tool([name, descriptionChars, properties, deferred]: (typeof TOOLS)[number], i: number): Record<string, unknown> {
  const props = Object.fromEntries(Array.from({ length: properties }, (_, p) => [`arg_${p}`, { description: prose(90, i * 31 + p), type: p % 3 === 2 ? 'number' : 'string' }]));
  const input_schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: props, required: Object.keys(props).slice(0, 2), additionalProperties: false };
  return { name, description: prose(descriptionChars, i + 7), input_schema, ...(deferred ? { defer_loading: true } : {}) };
}

/** An opaque base64 signature like Anthropic's (a gateway must forward it byte for byte). */
const signature = (seed: number): string => Buffer.from(Array.from({ length: 900 }, (_, i) => (i * 131 + seed * 7) % 256)).toString('base64');
const thinking = (seed: number): Record<string, unknown> => ({ type: 'thinking', thinking: prose(900, seed), signature: signature(seed) });
const SESSION = '5f0c3a2e-8d41-4b7a-9c36-0e2f6a1b7d95';
const CWD = '/home/dev/project';

/** The body: about 90 KB of JSON, keys in Claude Code's order. */
export function claudeCodeBody(model = 'claude-bench'): Record<string, unknown> {
  const messages = [
    { role: 'user', content: [{ type: 'text', text: `<system-reminder>\n${prose(320, 3)}\n</system-reminder>\n\n` }, { type: 'text', text: 'Write notes.txt, then read config.json and summarise it.' }] },
    // Claude Code's mid-conversation system message (beta mid-conversation-system-2026-04-07): agent types and skills.
    { role: 'system', content: prose(6_000, 4) },
    { role: 'assistant', content: [thinking(5), { type: 'tool_use', id: 'toolu_01BenchWrite', name: 'Write', input: { file_path: `${CWD}/notes.txt`, content: prose(800, 6) } }] },
    { role: 'user', content: [{ tool_use_id: 'toolu_01BenchWrite', type: 'tool_result', content: `File created successfully at: ${CWD}/notes.txt` }] },
    { role: 'assistant', content: [thinking(8), { type: 'tool_use', id: 'toolu_01BenchRead', name: 'Read', input: { file_path: `${CWD}/config.json` } }] },
    // The last block carries the conversation's one moving cache breakpoint.
    { role: 'user', content: [{ tool_use_id: 'toolu_01BenchRead', type: 'tool_result', content: prose(6_000, 9), cache_control: { type: 'ephemeral' } }] },
  ];
  return {
    model,
    messages,
    system: [
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.197.000; cc_entrypoint=sdk-cli;' },
      { type: 'text', text: prose(62, 10), cache_control: { type: 'ephemeral' } },
      { type: 'text', text: `${prose(17_500, 11)}\n - Primary working directory: ${CWD}\n`, cache_control: { type: 'ephemeral' } },
    ],
    tools: TOOLS.map(tool),
    metadata: { user_id: JSON.stringify({ device_id: 'ab'.repeat(32), account_uuid: '', session_id: SESSION }) },
    max_tokens: 32_000,
    thinking: { type: 'adaptive' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    output_config: { effort: 'high' },
    stream: true,
  };
}

/** The request headers Claude Code sends with it (API-key auth; the key is the caller's). */
export const CLAUDE_CODE_HEADERS: Record<string, string> = {
  'content-type': 'application/json',
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,thinking-token-count-2026-05-13,context-management-2025-06-27,prompt-caching-scope-2026-01-05,mid-conversation-system-2026-04-07,effort-2025-11-24',
  'anthropic-dangerous-direct-browser-access': 'true',
  'user-agent': 'claude-cli/2.1.197 (external, sdk-cli)',
  'x-app': 'cli',
  'x-claude-code-session-id': SESSION,
  'x-stainless-retry-count': '0',
  'x-stainless-timeout': '600',
};

/** The same answer from an OpenAI-format reasoning upstream: reasoning deltas, text deltas, then the usage chunk with cached tokens. */
export function claudeCodeAnswerChunks(model = 'agent-gpt'): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bench-agent', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return [
    chunk({ role: 'assistant', content: '' }),
    ...Array.from({ length: 8 }, (_, i) => chunk({ reasoning_content: prose(60, 20 + i) })),
    ...Array.from({ length: 40 }, (_, i) => chunk({ content: prose(24, 40 + i) })),
    chunk({}, 'stop'),
    `data: ${JSON.stringify({ id: 'chatcmpl-bench-agent', object: 'chat.completion.chunk', created: 1, model, choices: [], usage: { prompt_tokens: 23_553, completion_tokens: 310, total_tokens: 23_863, prompt_tokens_details: { cached_tokens: 21_400 } } })}\n\n`,
    'data: [DONE]\n\n',
  ].join('');
}

/** The matching streamed answer (`/v1/messages?beta=true` with this body): a signed thinking block and a text answer, with
 * Anthropic's cache usage (input figures in message_start, cumulative totals in message_delta). */
export function claudeCodeAnswerSse(model = 'claude-bench'): string {
  const frame = (data: Record<string, unknown>): string => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const usage = { input_tokens: 3, cache_creation_input_tokens: 2_150, cache_read_input_tokens: 21_400, output_tokens: 1 };
  const delta = (index: number, d: Record<string, unknown>): string => frame({ type: 'content_block_delta', index, delta: d });
  const thinkingDeltas = Array.from({ length: 8 }, (_, i) => delta(0, { type: 'thinking_delta', thinking: prose(60, 20 + i) }));
  const textDeltas = Array.from({ length: 40 }, (_, i) => delta(1, { type: 'text_delta', text: prose(24, 40 + i) }));
  return [
    frame({ type: 'message_start', message: { id: 'msg_bench_agent', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, cache_creation: { ephemeral_5m_input_tokens: 2_150, ephemeral_1h_input_tokens: 0 }, service_tier: 'standard' } } }),
    frame({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    frame({ type: 'ping' }),
    ...thinkingDeltas,
    delta(0, { type: 'signature_delta', signature: signature(12) }),
    frame({ type: 'content_block_stop', index: 0 }),
    frame({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
    ...textDeltas,
    frame({ type: 'content_block_stop', index: 1 }),
    frame({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { ...usage, output_tokens: 310 } }),
    frame({ type: 'message_stop' }),
  ].join('');
}
