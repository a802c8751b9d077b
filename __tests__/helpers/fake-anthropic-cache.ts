/**
 * A fake Anthropic upstream with prompt-caching semantics (prompt-cache.ts), reporting usage as Anthropic does
 * (`input_tokens` excludes reads and writes). Answers follow a scripted three-turn tool task.
 */
import type http from 'node:http';
import { sendJson, startAgentServer, type AgentServer } from './fake-agent-server';
import { PromptCache } from './prompt-cache';

type Json = Record<string, unknown>;

/** The usage one request was answered with. */
export interface CacheUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  output_tokens: number;
}

export interface CachingAnthropic extends AgentServer {
  /** Usage of every answered `/v1/messages` request, in order. */
  usages: CacheUsage[];
}

const OUTPUT_TOKENS = 25;

/** The next turn of the task: read a file, then write it, then say it is done (by the tool results sent so far). */
function answerFor(body: Json): { content: Json[]; stop_reason: string } {
  const results = (body.messages as Json[]).flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : [])).filter((b) => b.type === 'tool_result').length;
  if (!Array.isArray(body.tools) || body.tools.length === 0) return { content: [{ type: 'text', text: 'Hello.' }], stop_reason: 'end_turn' }; // offered no tools, it calls none
  if (results === 0) return { content: [{ type: 'tool_use', id: 'toolu_read_1', name: 'read_file', input: { path: 'app.js' } }], stop_reason: 'tool_use' };
  if (results === 1) return { content: [{ type: 'tool_use', id: 'toolu_write_2', name: 'write_file', input: { path: 'app.js', content: 'fixed();\n' } }], stop_reason: 'tool_use' };
  return { content: [{ type: 'text', text: 'Fixed app.js.' }], stop_reason: 'end_turn' };
}

function stream(res: http.ServerResponse, message: Json, usage: CacheUsage): void {
  const frames: Json[] = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }];
  (message.content as Json[]).forEach((block, index) => {
    const isTool = block.type === 'tool_use';
    frames.push({ type: 'content_block_start', index, content_block: isTool ? { ...block, input: {} } : { type: 'text', text: '' } });
    frames.push({ type: 'content_block_delta', index, delta: isTool ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } : { type: 'text_delta', text: block.text } });
    frames.push({ type: 'content_block_stop', index });
  });
  frames.push({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage }, { type: 'message_stop' });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(frames.map((f) => `event: ${String(f.type)}\ndata: ${JSON.stringify(f)}\n\n`).join(''));
}

/** Starts the fake; its cache lives as long as it does (no expiry: a test's turns come seconds apart). */
export async function startCachingAnthropic(): Promise<CachingAnthropic> {
  const cache = new PromptCache();
  const usages: CacheUsage[] = [];
  const server = await startAgentServer((req, res) => {
    const body = req.body as Json;
    const f = cache.use(body);
    const usage: CacheUsage = { input_tokens: f.input, cache_read_input_tokens: f.read, cache_creation_input_tokens: f.write5m + f.write1h, output_tokens: OUTPUT_TOKENS };
    usages.push(usage);
    const message = { id: `msg_cache_${usages.length}`, type: 'message', role: 'assistant', model: body.model, ...answerFor(body), stop_sequence: null, usage };
    if (body.stream === true) stream(res, message, usage);
    else sendJson(res, 200, message);
  });
  return Object.assign(server, { usages });
}
