/** A scripted fake Anthropic Messages upstream for agent clients (Claude Code, agent SDKs): a thinking + tool-call turn, then an answer. */
import type http from 'node:http';
import path from 'node:path';
import { agentTurn, DEFAULT_SCRIPT, type AnthropicAgentScript, type TurnKind } from './fake-agent-anthropic-turns';
import { lastOfRole, sendJson, startAgentServer, workingDirectory, type AgentRequest, type AgentServer } from './fake-agent-server';
import { sse } from './fake-server';

export { AGENT_SIGNATURE, anthropicUsage, agentTurn, DEFAULT_SCRIPT, TOOL_USE_ID, type AnthropicAgentScript, type TurnUsage } from './fake-agent-anthropic-turns';

export interface AnthropicAgentFake extends AgentServer {
  /** The script in use; tests may change it between runs. */
  script: AnthropicAgentScript;
  /** The recorded `POST /v1/messages` requests, in order. */
  messages(): AgentRequest[];
  /** Which turn each answered `/v1/messages` request got, in order. */
  turns: TurnKind[];
}

function fail(res: http.ServerResponse, status: number, type: string, message: string, n: number): void {
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: `req_fake_agent_${n}` });
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const blocksOf = (m: Json | undefined): Json[] => (Array.isArray(m?.content) ? (m.content as unknown[]).filter(isObject) : []);

/** Claude Code's session-title request: structured output whose schema asks for a `title`. */
function isTitleRequest(body: Json): boolean {
  const format = isObject(body.output_config) ? body.output_config.format : undefined;
  const schema = isObject(format) ? format.schema : undefined;
  return isObject(schema) && isObject(schema.properties) && 'title' in schema.properties;
}

/** What makes a Messages body unusable here, as Anthropic words it; undefined when it is fine. */
function invalid(body: Json | undefined, script: AnthropicAgentScript, countOnly: boolean): string | undefined {
  if (!body) return 'The request body is not valid JSON.';
  if (typeof body.model !== 'string') return 'model: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Field required';
  if (!countOnly && typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  // Anthropic refuses a replayed thinking block whose signature it did not make.
  for (const [i, m] of (body.messages as unknown[]).entries()) {
    if (!isObject(m) || m.role !== 'assistant') continue;
    for (const [j, b] of blocksOf(m).entries()) {
      if (b.type === 'thinking' && b.signature !== script.signature) return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
    }
  }
  return undefined;
}

/** Starts the fake. Routes: `POST /v1/messages` (JSON or SSE; the task's turns and Claude Code's session-title request),
 * `POST /v1/messages/count_tokens`, `GET /v1/models`, and `HEAD /` (Claude Code's connectivity probe); anything else gets a
 * 404 in Anthropic's error shape. All are recorded. */
export async function startAnthropicAgent(script: Partial<AnthropicAgentScript> = {}): Promise<AnthropicAgentFake> {
  const self = { script: { ...DEFAULT_SCRIPT, ...script }, turns: [] as TurnKind[] };
  const server = await startAgentServer((req, res) => {
    const s = self.script;
    const n = server.requests.length;
    const route = `${req.method} ${req.path.split('?')[0] ?? ''}`;
    if (route === 'HEAD /') return void res.writeHead(200).end();
    if (route === 'GET /v1/models') {
      const data = s.models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' }));
      return sendJson(res, 200, { data, has_more: false, first_id: s.models[0] ?? null, last_id: s.models.at(-1) ?? null });
    }
    if (route !== 'POST /v1/messages' && route !== 'POST /v1/messages/count_tokens') {
      return fail(res, 404, 'not_found_error', `${req.method} ${req.path} is not scripted by the fake Anthropic agent upstream`, n);
    }
    const countOnly = route.endsWith('/count_tokens');
    const problem = invalid(req.body, s, countOnly);
    if (problem) return fail(res, 400, 'invalid_request_error', problem, n);
    if (countOnly) return sendJson(res, 200, { input_tokens: s.countTokens });
    const body = req.body as Json;
    const kind: TurnKind = isTitleRequest(body) ? 'title' : blocksOf(lastOfRole(body, 'user')).some((b) => b.type === 'tool_result') ? 'answer' : 'tool';
    const cwd = workingDirectory(req.text);
    if (kind === 'tool' && !path.isAbsolute(s.file.name) && cwd === undefined) {
      return fail(res, 400, 'invalid_request_error', 'fake: no "Primary working directory" in the request; give script.file.name as an absolute path', n);
    }
    self.turns.push(kind);
    const turn = agentTurn(kind, s, String(body.model), path.resolve(cwd ?? '/', s.file.name), `msg_fake_agent_${n}`);
    if (body.stream !== true) return sendJson(res, 200, turn.message);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_fake_agent_${n}` });
    for (const e of turn.events) sse(res, e.data, e.event);
    res.end();
  });
  const messages = (): AgentRequest[] => server.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0] === '/v1/messages');
  return Object.assign(self, server, { messages });
}
