/**
 * One fake Anthropic Messages upstream for the three agent clients at once, as a real model serves them all: each request goes
 * to the scripted fake that plays its client (Codex's tasks, Claude Code's file task, the Agents SDK's greeting), told apart
 * by the request. A gateway model on it serves Codex, Claude Code and the Agents SDK alike.
 */
import http from 'node:http';
import { startAnthropicAgent, type AnthropicAgentFake } from './fake-agent-anthropic';
import { startCodexAnthropic, type CodexAnthropicFake } from './fake-codex-anthropic';
import { startScripted, type ScriptedTurn, type ScriptedUpstream } from './fake-scripted';
import { listen } from './local';

/** What the Agents SDK's agent answers (a greeting, no tools). */
export const AGENT_GREETING: ScriptedTurn = { text: ['Hello', ' from the gateway.'], usage: { input: 11, output: 5 } };

export interface AgentClientsFake {
  url: string;
  codex: CodexAnthropicFake;
  claude: AnthropicAgentFake;
  agents: ScriptedUpstream;
  /** Which fake took each request, in order. */
  routed: Array<'codex' | 'claude' | 'agents'>;
  close(): Promise<void>;
}

/** Codex's prompts carry its task marker (codex-tasks.ts); Claude Code's system prompt starts with its billing header. */
function clientOf(text: string): 'codex' | 'claude' | 'agents' {
  if (text.includes('codex-task:')) return 'codex';
  if (text.includes('x-anthropic-billing-header')) return 'claude';
  return 'agents';
}

export async function startAgentClientsFake(): Promise<AgentClientsFake> {
  const [codex, claude, agents] = await Promise.all([startCodexAnthropic(), startAnthropicAgent(), startScripted('anthropic', () => AGENT_GREETING)]);
  const targets = { codex, claude, agents };
  const routed: AgentClientsFake['routed'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const client = clientOf(body.toString('utf8'));
      routed.push(client);
      const target = new URL(req.url ?? '/', targets[client].url);
      const forwarded = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forwarded.on('error', (err) => res.destroy(err));
      forwarded.end(body);
    });
  });
  const front = await listen(server);
  return {
    url: front.url, codex, claude, agents, routed,
    close: async () => {
      await front.close();
      await Promise.all([codex.close(), claude.close(), agents.close()]);
    },
  };
}
