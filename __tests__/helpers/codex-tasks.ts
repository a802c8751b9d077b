/** The Codex tasks the scripted upstream fakes play (when Codex talks to the gateway, the gateway talks to them), as data:
 * what each tool turn calls, the file it leaves, the thinking and its signature, and every turn's cache-aware usage. */
import type { TurnUsage } from './fake-agent-anthropic-turns';
import type { OpenAITurnUsage } from './fake-agent-openai-chunks';

/** - `patch`: the model edits a file through Codex's apply_patch (a custom tool, which the gateway presents as a function with
 *   one string parameter), then answers;
 * - `exec`: the model runs a shell command through exec_command, then answers;
 * - `reason`: like `exec`, with a signed thinking block first (Anthropic) or reasoning text (chat) in the tool turn. */
export const CODEX_TASKS = ['patch', 'exec', 'reason'] as const;
export type CodexTask = (typeof CODEX_TASKS)[number];
export type CodexTurn = 'tool' | 'answer';

/** The prompt that makes the fakes play `task` (the marker reaches the upstream inside the user's message). */
export const taskPrompt = (task: CodexTask): string => `codex-task:${task} Do the scripted task.`;

/** Which task a request plays: the marker in any of its text. */
export function taskOf(text: string): CodexTask | undefined {
  const match = /codex-task:(\w+)/.exec(text);
  return CODEX_TASKS.find((t) => t === match?.[1]);
}

export const PATCH_FILE = { name: 'codex-patched.txt', content: 'Edited through apply_patch.\nSecond line: "quoted" & ünïcode ✓\n' };
export const PATCH = `*** Begin Patch\n*** Add File: ${PATCH_FILE.name}\n${PATCH_FILE.content.split('\n').filter((l) => l !== '').map((l) => `+${l}`).join('\n')}\n*** End Patch\n`;
export const EXEC = { cmd: "printf 'exec ran: %s\\n' \"$((6 * 7))\" > exec-output.txt && cat exec-output.txt", file: 'exec-output.txt', output: 'exec ran: 42\n' };

/** The thinking of the `reason` task's tool turn; its signature must come back byte for byte, first in its assistant turn. */
export const CODEX_THINKING = ['Codex wants a command run.', ' exec_command takes `cmd`;', ' I will compute 6 × 7 in the shell.'];
/** Opaque, with `+`, `/` and `=` (a careless re-serialiser escapes or mangles them); not the Claude Code fake's signature. */
export const CODEX_SIGNATURE = `Eo${Buffer.from(Array.from({ length: 320 }, (_, i) => (i * 97 + 13) % 256)).toString('base64')}`;
export const CODEX_REASONING = ['The user wants', ' a command run;', ' exec_command it is.'];

export const ANSWERS: Record<CodexTask, string[]> = {
  patch: ['I created', ` \`${PATCH_FILE.name}\``, ' with apply_patch.'],
  exec: ['The command', ' printed 42.'],
  reason: ['Thought it through;', ' the command printed 42.'],
};

/** Anthropic usage per task and turn: every figure distinct and non-zero, cache reads and both write TTLs, so a figure billed
 * at the wrong rate shows in the total. */
export const ANTHROPIC_USAGE: Record<CodexTask, Record<CodexTurn, TurnUsage>> = {
  patch: {
    tool: { input_tokens: 9, cache_read_input_tokens: 1_200, ephemeral_5m_input_tokens: 9_800, ephemeral_1h_input_tokens: 1_700, output_tokens: 160 },
    answer: { input_tokens: 6, cache_read_input_tokens: 12_700, ephemeral_5m_input_tokens: 380, ephemeral_1h_input_tokens: 25, output_tokens: 29 },
  },
  exec: {
    tool: { input_tokens: 11, cache_read_input_tokens: 1_300, ephemeral_5m_input_tokens: 9_700, ephemeral_1h_input_tokens: 1_600, output_tokens: 120 },
    answer: { input_tokens: 4, cache_read_input_tokens: 12_600, ephemeral_5m_input_tokens: 410, ephemeral_1h_input_tokens: 35, output_tokens: 17 },
  },
  reason: {
    tool: { input_tokens: 13, cache_read_input_tokens: 1_400, ephemeral_5m_input_tokens: 9_600, ephemeral_1h_input_tokens: 1_500, output_tokens: 260 },
    answer: { input_tokens: 7, cache_read_input_tokens: 12_500, ephemeral_5m_input_tokens: 440, ephemeral_1h_input_tokens: 45, output_tokens: 23 },
  },
};

/** OpenAI chat usage per task and turn (`cached_tokens` is part of `prompt_tokens`). */
export const OPENAI_USAGE: Record<CodexTask, Record<CodexTurn, OpenAITurnUsage>> = {
  patch: { tool: { prompt_tokens: 12_300, completion_tokens: 150, cached_tokens: 10_240 }, answer: { prompt_tokens: 12_800, completion_tokens: 27, cached_tokens: 12_160 } },
  exec: { tool: { prompt_tokens: 12_200, completion_tokens: 110, cached_tokens: 10_112 }, answer: { prompt_tokens: 12_700, completion_tokens: 19, cached_tokens: 12_032 } },
  reason: { tool: { prompt_tokens: 12_400, completion_tokens: 240, cached_tokens: 10_368 }, answer: { prompt_tokens: 12_900, completion_tokens: 21, cached_tokens: 12_288 } },
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The one string property of a one-string-parameter function schema (how the gateway presents apply_patch), or why not. */
export function singleStringProperty(schema: unknown): { name: string } | { problem: string } {
  const properties = isObject(schema) && isObject(schema.properties) ? Object.entries(schema.properties) : [];
  if (properties.length !== 1) return { problem: `has ${properties.length} properties, not one` };
  const [name, property] = properties[0] as [string, unknown];
  return isObject(property) && property.type === 'string' ? { name } : { problem: `its property ${name} is not a string` };
}

/** The tool call a task's tool turn makes, given the request's tools as [name, schema] pairs; a string says what is missing. */
export function toolCall(task: CodexTask, tools: Array<[string, unknown]>): { name: string; input: Json } | string {
  const name = task === 'patch' ? 'apply_patch' : 'exec_command';
  const schema = tools.find(([n]) => n === name)?.[1];
  if (schema === undefined) return `fake: the request offers no \`${name}\` tool (tools: ${tools.map(([n]) => n).join(', ')})`;
  if (task !== 'patch') return { name, input: { cmd: EXEC.cmd } };
  const property = singleStringProperty(schema);
  return 'name' in property ? { name, input: { [property.name]: PATCH } } : `fake: \`apply_patch\` is not a one-string function: it ${property.problem}`;
}
