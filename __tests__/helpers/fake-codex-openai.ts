/** A scripted fake OpenAI Chat Completions upstream for Codex through the gateway: the tasks of codex-tasks.ts as tool_calls of
 * the functions the gateway presents (task `reason` with reasoning_content first), streamed in OpenAI's chunk framing. */
import type http from 'node:http';
import { ANSWERS, CODEX_REASONING, OPENAI_USAGE, taskOf, toolCall, type CodexTask, type CodexTurn } from './codex-tasks';
import { openaiUsage, type OpenAITurnUsage } from './fake-agent-openai-chunks';
import { pieces, sendJson, startAgentServer, type AgentRequest, type AgentServer } from './fake-agent-server';
import { sse } from './fake-server';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const codexCallId = (task: CodexTask): string => `call_codex_${task}_1`;

export interface CodexOpenAIFake extends AgentServer {
  /** The recorded `POST /v1/chat/completions` requests, in order. */
  completions(): AgentRequest[];
  /** What each answered request played, with the usage it reported. */
  turns: Array<{ task: CodexTask; turn: CodexTurn; usage: OpenAITurnUsage }>;
}

interface Turn {
  reasoning: string[];
  call: { id: string; name: string; arguments: string } | undefined;
  text: string[];
  usage: OpenAITurnUsage;
}

/** The streamed chunks: role, reasoning pieces, the call (id and name with the first fragment, then fragments), text, the finish
 * chunk, and with include_usage a last chunk with no choices and the usage (every earlier chunk then says `usage: null`). */
export function openaiTurnChunks(t: Turn, model: string, id: string, includeUsage: boolean): Json[] {
  const base = { id, object: 'chat.completion.chunk', created: 1_767_225_600, model };
  const chunk = (delta: Json, finish_reason: string | null = null): Json => ({ ...base, choices: [{ index: 0, delta, finish_reason, logprobs: null }], ...(includeUsage ? { usage: null } : {}) });
  const chunks = [chunk({ role: 'assistant', content: t.call ? null : '' }), ...t.reasoning.map((r) => chunk({ reasoning_content: r }))];
  if (t.call) {
    const [first = '', ...rest] = pieces(t.call.arguments, 10);
    chunks.push(chunk({ tool_calls: [{ index: 0, id: t.call.id, type: 'function', function: { name: t.call.name, arguments: first } }] }));
    chunks.push(...rest.map((args) => chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] })));
  }
  chunks.push(...t.text.map((content) => chunk({ content })), chunk({}, t.call ? 'tool_calls' : 'stop'));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: openaiUsage(t.usage) });
  return chunks;
}

function completion(t: Turn, model: string, id: string): Json {
  const message: Json = { role: 'assistant', content: t.text.length > 0 ? t.text.join('') : null };
  if (t.reasoning.length > 0) message.reasoning_content = t.reasoning.join('');
  if (t.call) message.tool_calls = [{ id: t.call.id, type: 'function', function: { name: t.call.name, arguments: t.call.arguments } }];
  return { id, object: 'chat.completion', created: 1_767_225_600, model, choices: [{ index: 0, message, finish_reason: t.call ? 'tool_calls' : 'stop', logprobs: null }], usage: openaiUsage(t.usage) };
}

function fail(res: http.ServerResponse, status: number, message: string, param: string | null = null): void {
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param, code: null } });
}

/** Starts the fake: `POST /v1/chat/completions` (JSON, or SSE chunks ending `data: [DONE]`) plays the task named in the request;
 * anything else gets a 404 in OpenAI's error shape. Every request is recorded raw. */
export async function startCodexOpenAI(): Promise<CodexOpenAIFake> {
  const turns: CodexOpenAIFake['turns'] = [];
  const server = await startAgentServer((req, res) => {
    if (`${req.method} ${req.path.split('?')[0] ?? ''}` !== 'POST /v1/chat/completions') return fail(res, 404, `Invalid URL (${req.method} ${req.path})`);
    const body = req.body;
    if (!body || typeof body.model !== 'string') return fail(res, 400, "Missing required parameter: 'model'.", 'model');
    if (!Array.isArray(body.messages) || body.messages.length === 0) return fail(res, 400, "Missing required parameter: 'messages'.", 'messages');
    const task = taskOf(req.text);
    if (task === undefined) return fail(res, 400, 'fake: no codex-task:<task> marker in the request');
    const turn: CodexTurn = body.messages.some((m) => isObject(m) && m.role === 'tool') ? 'answer' : 'tool';
    const usage = OPENAI_USAGE[task][turn];
    let t: Turn = { reasoning: [], call: undefined, text: ANSWERS[task], usage };
    if (turn === 'tool') {
      const tools = (Array.isArray(body.tools) ? body.tools.filter(isObject) : []).flatMap((tool): Array<[string, unknown]> => (isObject(tool.function) ? [[String(tool.function.name), tool.function.parameters]] : []));
      const call = toolCall(task, tools);
      if (typeof call === 'string') return fail(res, 400, call, 'tools');
      t = { reasoning: task === 'reason' ? CODEX_REASONING : [], call: { id: codexCallId(task), name: call.name, arguments: JSON.stringify(call.input) }, text: [], usage };
    }
    turns.push({ task, turn, usage });
    const id = `chatcmpl-codex-${server.requests.length}`;
    if (body.stream !== true) return sendJson(res, 200, completion(t, body.model, id));
    const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const chunk of openaiTurnChunks(t, body.model, id, includeUsage)) sse(res, chunk);
    sse(res, '[DONE]');
    res.end();
  });
  const completions = (): AgentRequest[] => server.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0] === '/v1/chat/completions');
  return Object.assign(server, { completions, turns });
}
