/** A scripted fake OpenAI Chat Completions upstream for agent traffic: reasoning + a file-writing tool call, then an answer. */
import type http from 'node:http';
import path from 'node:path';
import { DEFAULT_OPENAI_SCRIPT, OPENAI_MODES, openaiChunks, openaiCompletion, type OpenAIAgentScript, type OpenAIMode, type OpenAITurnKind } from './fake-agent-openai-chunks';
import { sendJson, startAgentServer, workingDirectory, type AgentRequest, type AgentServer } from './fake-agent-server';
import { sse } from './fake-server';

export { DEFAULT_OPENAI_SCRIPT, OPENAI_MODES, openaiChunks, openaiCompletion, openaiUsage, toolCalls, type OpenAIAgentScript, type OpenAIMode, type OpenAITurnUsage } from './fake-agent-openai-chunks';

/** One answered `POST /v1/chat/completions`: which mode and turn, and exactly what went back. */
export interface OpenAIAnswer {
  request: AgentRequest;
  mode: OpenAIMode;
  kind: OpenAITurnKind;
  /** The streamed chunks in order (without the `[DONE]` terminator); undefined for a JSON answer. */
  chunks: Array<Record<string, unknown>> | undefined;
  /** The JSON answer; undefined for a stream. */
  completion: Record<string, unknown> | undefined;
}

export interface OpenAIAgentFake extends AgentServer {
  /** The script in use; tests may change it between runs. */
  script: OpenAIAgentScript;
  answers: OpenAIAnswer[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(res: http.ServerResponse, status: number, message: string, param: string | null = null, code: string | null = null): void {
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param, code } });
}

/** The mode a request gets: a model named `…-<mode>` picks it, else the script's. */
function modeOf(model: string, script: OpenAIAgentScript): OpenAIMode {
  return OPENAI_MODES.find((m) => model.endsWith(`-${m}`)) ?? script.mode;
}

/** DeepSeek's thinking mode refuses an assistant tool-call turn sent back without its reasoning. */
function missingReasoning(messages: unknown[], field: string): number | undefined {
  const index = messages.findIndex((m) => isObject(m) && m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0 && typeof m[field] !== 'string');
  return index < 0 ? undefined : index;
}

/** Starts the fake: `POST /v1/chat/completions` (JSON, or SSE `data:` chunks ending `data: [DONE]`); anything else gets a 404
 * in OpenAI's error shape. Every request is recorded, and every answer with its chunk list. */
export async function startOpenAIAgent(script: Partial<OpenAIAgentScript> = {}): Promise<OpenAIAgentFake> {
  const self = { script: { ...DEFAULT_OPENAI_SCRIPT, ...script }, answers: [] as OpenAIAnswer[] };
  const server = await startAgentServer((req, res) => {
    const s = self.script;
    if (`${req.method} ${req.path.split('?')[0] ?? ''}` !== 'POST /v1/chat/completions') {
      return fail(res, 404, `Invalid URL (${req.method} ${req.path}): not scripted by the fake OpenAI agent upstream`, null, 'unknown_url');
    }
    const body = req.body;
    if (!body) return fail(res, 400, 'We could not parse the JSON body of your request.');
    if (typeof body.model !== 'string') return fail(res, 400, "Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
    if (!Array.isArray(body.messages) || body.messages.length === 0) return fail(res, 400, "Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
    const mode = modeOf(body.model, s);
    const messages = body.messages as unknown[];
    const strictIndex = mode === 'strict-reasoning' ? missingReasoning(messages, s.reasoningField) : undefined;
    if (strictIndex !== undefined) {
      return fail(res, 400, `Missing \`${s.reasoningField}\` field in the assistant message at message index ${strictIndex}.`, null, 'invalid_request_error');
    }
    const last = messages.at(-1);
    const kind: OpenAITurnKind = isObject(last) && last.role === 'tool' ? 'answer' : 'tool';
    const cwd = workingDirectory(req.text);
    const names = s.files.map((f) => f.name);
    if (kind === 'tool' && cwd === undefined && !names.every((n) => path.isAbsolute(n))) {
      return fail(res, 400, 'fake: no "Primary working directory" in the request; give script.files names as absolute paths');
    }
    const paths = names.map((n) => path.resolve(cwd ?? '/', n));
    const id = `chatcmpl-fake-agent-${server.requests.length}`;
    if (body.stream !== true) {
      const completion = openaiCompletion(kind, s, mode, paths, body.model, id);
      self.answers.push({ request: req, mode, kind, chunks: undefined, completion });
      return sendJson(res, 200, completion);
    }
    const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
    const chunks = openaiChunks(kind, s, mode, paths, body.model, id, includeUsage);
    self.answers.push({ request: req, mode, kind, chunks, completion: undefined });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const chunk of chunks) sse(res, chunk);
    sse(res, '[DONE]');
    res.end();
  });
  return Object.assign(self, server);
}
