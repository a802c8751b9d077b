/** A fast fake upstream for the benchmark (own process): Anthropic JSON/SSE, OpenAI JSON/SSE, Cohere rerank. */
import http from 'node:http';
import { claudeCodeAnswerChunks, claudeCodeAnswerSse } from './claude-code-body';
import { streamAnswerFor } from './streams';

const DELTAS = 20;
const anthropicJson = JSON.stringify({
  id: 'msg_bench', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'word '.repeat(DELTAS) }],
  stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 30, output_tokens: DELTAS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
});
const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const anthropicHead = frame('message_start', { type: 'message_start', message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 30, output_tokens: 1 } } })
  + frame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
const anthropicDelta = frame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'word ' } });
const anthropicTail = frame('content_block_stop', { type: 'content_block_stop', index: 0 })
  + frame('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: DELTAS } })
  + frame('message_stop', { type: 'message_stop' });
const openaiJson = JSON.stringify({
  id: 'chatcmpl-b', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'word '.repeat(DELTAS) }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 30, completion_tokens: DELTAS, total_tokens: 30 + DELTAS },
});
const chunk = (delta: object, finish: string | null = null): string => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const openaiHead = chunk({ role: 'assistant', content: '' });
const openaiDelta = chunk({ content: 'word ' });
const openaiTail = chunk({}, 'stop') + `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 30, completion_tokens: DELTAS, total_tokens: 50 } })}\n\ndata: [DONE]\n\n`;
const agentSse = claudeCodeAnswerSse('agent');
const agentChunks = claudeCodeAnswerChunks('agent-gpt');
const rerankJson = JSON.stringify({
  id: 'r', results: Array.from({ length: 100 }, (_, i) => ({ index: i, relevance_score: 1 - i / 100 })),
  meta: { api_version: { version: '2' }, billed_units: { input_tokens: 1500, search_units: 1 } },
});

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { stream?: boolean; model?: string };
    const agent = streamAnswerFor(req.url ?? '', body); // the long agent streams and the Codex body (bench/streams.ts)
    if (agent) return void res.writeHead(200, { 'content-type': agent.type }).end(agent.text);
    if (req.url?.endsWith('/rerank')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(rerankJson);
    const openai = req.url?.endsWith('/chat/completions') ?? false;
    if (!body.stream) return void res.writeHead(200, { 'content-type': 'application/json' }).end(openai ? openaiJson : anthropicJson);
    // Claude Code's requests: the agent answer, in the format of the path asked (the passthrough sends every one to /v1/messages).
    if (body.model?.startsWith('agent')) return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(openai ? agentChunks : agentSse);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(openai ? openaiHead : anthropicHead);
    if (body.model === 'hold') return; // stays open: the 1,000-open-streams memory test
    res.end(openai ? openaiDelta.repeat(DELTAS) + openaiTail : anthropicDelta.repeat(DELTAS) + anthropicTail);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', () => {
  process.send?.({ cpu: process.cpuUsage(), rss: process.memoryUsage().rss });
});
