/**
 * The agent cases of `npm run bench` (issue 47 goal 5, issue 45's performance bound): a long agent stream (2,000 deltas:
 * text, then tool-call arguments in fragments) and the recorded Codex body on the Responses route, each beside (c) on the
 * same answer. The scenarios, the gateway's models for them, and the fake upstream's answers live here; run.ts,
 * apps.ts and upstream.ts each take them through one line.
 */
import type * as Library from '../lib';
import { answerWires, responsesWires, type AgentAnswer, type AnswerWires } from './agent-answers';
import { CODEX_HEADERS, codexBody } from './codex-body';

/** A request as a scenario sends it (run.ts's Scenario has this shape). */
interface Sent { path: string; body: object; headers?: Record<string, string> }
interface StreamScenario { name: string; direct: Sent; gateway: Sent }

/** The long stream: 1,000 text deltas, then a write_file call whose 10 KB of arguments come in 1,000 fragments. */
const LONG: AgentAnswer = {
  texts: 1_000, fragments: 1_000, tool: 'write_file',
  args: { path: 'src/report.ts', content: Array.from({ length: 320 }, (_, i) => `line ${i} of the file;\n`).join('') },
};
/** Codex's turn: commentary of 40 deltas, then an exec_command call in 20 fragments. */
const CODEX: AgentAnswer = { texts: 40, fragments: 20, tool: 'exec_command', args: { cmd: 'sed -n 1,40p src/errors.ts', workdir: '/home/dev/project', yield_time_ms: 10_000 } };

const msg = [{ role: 'user', content: 'Write the report file, then tell me what you wrote.' }];
const writeFile = { name: 'write_file', description: 'Writes a file.', input_schema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] } };
const chatTool = { type: 'function', function: { name: writeFile.name, description: writeFile.description, parameters: writeFile.input_schema } };
const same = (name: string, sent: Sent): StreamScenario => ({ name, direct: sent, gateway: sent });

/** Codex's body without its reasoning items (their encrypted content is the recording server's, which the gateway refuses). */
const codex = (model: string, stream: boolean): Record<string, unknown> => ({ ...codexBody(model, { reasoning: false }), stream });

/**
 * The scenarios. (c) gets the same answer in every pair: the long streams as the gateway's upstream writes them, the
 * Codex body forwarded to a Responses upstream that answers as the gateway does (bench/agent-answers.ts).
 */
export const STREAM_SCENARIOS: StreamScenario[] = [
  same('Long stream on Messages (2000 deltas)', { path: '/v1/messages', body: { model: 'long', max_tokens: 8192, stream: true, messages: msg, tools: [writeFile] } }),
  same('Long stream on chat completions (2000 deltas)', { path: '/v1/chat/completions', body: { model: 'long-gpt', max_tokens: 8192, stream: true, stream_options: { include_usage: true }, messages: msg, tools: [chatTool] } }),
  ...[false, true].flatMap((stream) => [
    { name: `Codex ${stream ? 'SSE' : 'JSON'} to an Anthropic upstream`, direct: { path: '/v1/responses', body: codex('codex', stream), headers: CODEX_HEADERS }, gateway: { path: '/v1/responses', body: codex('codex', stream), headers: CODEX_HEADERS } },
    { name: `Codex ${stream ? 'SSE' : 'JSON'} to an OpenAI-chat upstream`, direct: { path: '/v1/responses', body: codex('codex', stream), headers: CODEX_HEADERS }, gateway: { path: '/v1/responses', body: codex('codex-gpt', stream), headers: CODEX_HEADERS } },
  ]),
];

/** The gateway's models for these scenarios: agent-ready, one per upstream format. */
export function streamModels(lib: typeof Library, http: Library.HttpAdapterOptions, pricing: Library.ModelEntry['pricing']): Library.ModelEntry[] {
  const anthropic = (id: string): Library.ModelEntry => ({ id, capability: 'llm', upstream: lib.anthropicAdapter(http), pricing, agentReady: true });
  const chat = (id: string): Library.ModelEntry => ({ id, capability: 'llm', upstream: lib.openaiChatAdapter(http), pricing, agentReady: true });
  return [anthropic('long'), chat('long-gpt'), anthropic('codex'), chat('codex-gpt')];
}

/** Made on the fake upstream's first such request, so the servers under test never hold them. */
let wires: { long: AnswerWires; codex: AnswerWires; responses: { json: string; sse: string } } | undefined;
const made = (): NonNullable<typeof wires> => (wires ??= {
  long: answerWires(LONG), codex: answerWires(CODEX),
  responses: { json: responsesWires(CODEX, codex('codex', false)).json, sse: responsesWires(CODEX, codex('codex', true)).sse },
});

/** The fake upstream's answer to these scenarios' requests (by model name and path), or undefined for any other request. */
export function streamAnswerFor(url: string, body: { model?: string; stream?: boolean }): { type: string; text: string } | undefined {
  const answer = body.model?.startsWith('long') ? made().long : body.model?.startsWith('codex') ? made().codex : undefined;
  if (!answer) return undefined;
  const type = body.stream ? 'text/event-stream' : 'application/json';
  if (url.endsWith('/responses')) return { type, text: body.stream ? made().responses.sse : made().responses.json };
  if (url.endsWith('/chat/completions')) return { type, text: body.stream ? answer.chatSse : answer.chatJson };
  return { type, text: body.stream ? answer.anthropicSse : answer.anthropicJson };
}
