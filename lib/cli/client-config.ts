/** `model-gateway client-config <client>`: the set-up of Codex CLI, Claude Code or the Agents SDK for a gateway URL and model, checked against the config when given. */
import { loadModels, type ModelConfig } from './config';
import { agentsSdkSetup, claudeCodeSetup, codexSetup, describeSetup, type ClientSetup, type ClientTarget } from './client-files';
import { CommandError, UsageError, type Args } from './ops';

const CLIENTS: Readonly<Record<string, (t: ClientTarget) => ClientSetup>> = { codex: codexSetup, 'claude-code': claudeCodeSetup, 'agents-sdk': agentsSdkSetup };
const NAMES = Object.keys(CLIENTS).join(', ');

/** The gateway's root URL as clients take it: http(s), no trailing slash, no `/v1` (each client adds what it needs). */
export function gatewayURL(text: string | undefined): string {
  if (text === undefined) throw new UsageError('--url <gateway URL> is required: the address clients reach the gateway at (e.g. https://gateway.example.com)');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--url: "${text}" is not a URL; give the gateway's address, e.g. https://gateway.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url: "${text}" must be an http(s) URL`);
  if (url.search || url.hash || url.username || url.password) throw new UsageError(`--url: "${text}" must have no query, fragment or credentials (clients send the key themselves)`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
}

/** The model a client asks, and the models of its catalog: from the config's agent-ready llm models when there is a config. */
function targetOf(url: string, wanted: string | undefined, configFile: string | undefined, env: NodeJS.ProcessEnv): ClientTarget {
  if (configFile === undefined) {
    if (wanted === undefined) throw new UsageError('--model <id> is required without --config (a model of the gateway, agent-ready)');
    return { url, model: wanted, models: [{ id: wanted }] };
  }
  const models = loadModels(configFile, env);
  const ready = models.filter((m) => m.capability === 'llm' && m.agentReady === true);
  const readyIds = ready.map((m) => m.id).join(', ') || 'none';
  const fix = `set agentReady: true on an llm model in ${configFile}`;
  const pick = (m: ModelConfig): ClientTarget['models'][number] => ({ id: m.id, displayName: m.displayName, maxOutputTokens: m.maxOutputTokens, clampMaxTokens: m.clampMaxTokens });
  if (wanted === undefined) {
    const first = ready[0];
    if (!first) throw new CommandError(`${configFile} has no agent-ready model, and agent clients send tools, which a plain (V1) model refuses: ${fix}`);
    return { url, model: first.id, models: ready.map(pick) };
  }
  const model = models.find((m) => m.id === wanted);
  if (!model) throw new CommandError(`--model: "${wanted}" is not a model of ${configFile} (agent-ready: ${readyIds})`);
  if (model.capability !== 'llm') throw new CommandError(`--model: "${wanted}" is a ${model.capability} model; agent clients need an llm model (agent-ready: ${readyIds})`);
  if (model.agentReady !== true) {
    throw new CommandError(`--model: "${wanted}" is not agent-ready: agent clients send tools, which a plain (V1) model refuses; set agentReady: true on it in ${configFile} (agent-ready: ${readyIds})`);
  }
  return { url, model: wanted, models: ready.map(pick) };
}

/** Runs `client-config <client> --url … [--model …]`: the set-up to print, as text and as data. */
export function clientConfig(args: Args, configFile: string | undefined, env: NodeJS.ProcessEnv): { human: string; data: ClientSetup } {
  const client = args.positional[1];
  if (client === undefined) throw new UsageError(`missing <client>: one of ${NAMES}`);
  const setup = Object.hasOwn(CLIENTS, client) ? CLIENTS[client] : undefined;
  if (!setup) throw new UsageError(`unknown client: ${client}; one of ${NAMES}`);
  if (args.positional.length > 2) throw new UsageError(`unexpected argument: ${args.positional[2]}`);
  const text = (name: string): string | undefined => {
    const value = args.flags.get(name);
    if (value === true) throw new UsageError(`--${name} needs a value`);
    return value;
  };
  const data = setup(targetOf(gatewayURL(text('url')), text('model'), configFile, env));
  return { human: describeSetup(data), data };
}
