/**
 * A fake Anthropic upstream with prompt-caching semantics: the prompt is a sequence of blocks (tools, system, then each
 * turn's blocks), each `cache_control` a breakpoint. A request reads the longest prefix a breakpoint (or one of the 20
 * blocks before it) finds cached, writes the prefix up to its last breakpoint, and reports usage as Anthropic does
 * (`input_tokens` excludes both). Breakpoint markers are not part of a prefix: moving them keeps the cache.
 * Tokens are stand-ins: a block's JSON characters ÷ 4, rounded up. Answers follow a scripted three-turn tool task.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { sendJson, startAgentServer, type AgentServer } from './fake-agent-server';

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

/** How many blocks before a breakpoint are looked at for a cached prefix (Anthropic's documented lookback). */
const LOOKBACK = 20;
const OUTPUT_TOKENS = 25;

const withoutMarker = (item: unknown): unknown => {
  if (typeof item !== 'object' || item === null || !('cache_control' in item)) return item;
  const { cache_control: _marker, ...rest } = item as Json;
  return rest;
};

/** The prompt as blocks, in Anthropic's prefix order (tools, system, messages), each with whether it is a breakpoint. */
function blocksOf(body: Json): Array<{ text: string; breakpoint: boolean }> {
  const out: Array<{ text: string; breakpoint: boolean }> = [];
  const add = (where: string, item: unknown): void => void out.push({ text: JSON.stringify([where, withoutMarker(item)]), breakpoint: (item as Json).cache_control !== undefined });
  for (const tool of (body.tools as unknown[] | undefined) ?? []) add('tool', tool);
  const system = body.system;
  for (const block of typeof system === 'string' ? [{ type: 'text', text: system }] : ((system as unknown[] | undefined) ?? [])) add('system', block);
  for (const message of body.messages as Json[]) {
    const content = message.content;
    for (const block of typeof content === 'string' ? [{ type: 'text', text: content }] : (content as unknown[])) add(String(message.role), block);
  }
  return out;
}

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
  const cache = new Set<string>();
  const usages: CacheUsage[] = [];
  const server = await startAgentServer((req, res) => {
    const body = req.body as Json;
    const blocks = blocksOf(body);
    // A prefix is named by the hash of its blocks; its tokens are the blocks' summed stand-in counts.
    const keys: string[] = [];
    const tokens: number[] = [];
    let hash = '';
    let sum = 0;
    for (const block of blocks) {
      hash = createHash('sha256').update(hash).update(block.text).digest('hex');
      sum += Math.ceil(block.text.length / 4);
      keys.push(hash);
      tokens.push(sum);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let read = -1;
    for (const b of breakpoints) for (let i = b; i >= Math.max(0, b - LOOKBACK + 1); i--) if (i > read && cache.has(keys[i] as string)) read = i;
    const last = breakpoints.at(-1) ?? -1;
    for (const b of breakpoints) cache.add(keys[b] as string);
    const readTokens = read >= 0 ? (tokens[read] as number) : 0;
    const writeTokens = last > read ? (tokens[last] as number) - readTokens : 0;
    const usage: CacheUsage = { input_tokens: sum - readTokens - writeTokens, cache_read_input_tokens: readTokens, cache_creation_input_tokens: writeTokens, output_tokens: OUTPUT_TOKENS };
    usages.push(usage);
    const message = { id: `msg_cache_${usages.length}`, type: 'message', role: 'assistant', model: body.model, ...answerFor(body), stop_sequence: null, usage };
    if (body.stream === true) stream(res, message, usage);
    else sendJson(res, 200, message);
  });
  return Object.assign(server, { usages });
}
