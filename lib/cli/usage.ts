/** The command line: every command's usage, every option, and parsing by node:util's parseArgs. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { VERSION } from '../foundation/version';
import { UsageError, type Args } from './ops';
import { closestKey } from './config-text';
import { COMMAND_HELP, commandHelp } from './help';

export const COMMANDS = new Set(Object.keys(COMMAND_HELP));

const EXIT_CODES = 'exit codes: 0 done, 1 failed (a store, Redis or port out of reach, a schema behind), 2 bad usage, config or input (an unknown id…)';

export const USAGE = `model-gateway ${VERSION}
usage:
${Object.values(COMMAND_HELP).flatMap((c) => c.usage).map((line) => `  ${line}`).join('\n')}
options: --config <file> (default: $MODEL_GATEWAY_CONFIG), --json (machine-readable output), --help
model-gateway <command> --help explains a command and each of its options.
${EXIT_CODES}`;

/** `--help` after a command: its own help and the exit codes; the whole usage otherwise. */
export function helpOf(command: string | undefined): string {
  const help = command === undefined ? undefined : commandHelp(command);
  return help === undefined ? USAGE : `${help}\n${EXIT_CODES}`;
}

/** What follows a usage mistake: the command's usage lines, or every command's when it is not known. */
export function usageOf(command: string | undefined): string {
  const help = command !== undefined && Object.hasOwn(COMMAND_HELP, command) ? COMMAND_HELP[command] : undefined;
  return help ? `usage: ${help.usage.join('\n       ')}\n(model-gateway ${command} --help explains each option)` : USAGE;
}

/** Every option of every command (one table, so a misspelt one is refused, not ignored). */
const OPTIONS = {
  config: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  models: { type: 'string' }, secret: { type: 'string' }, caller: { type: 'string' }, 'grace-seconds': { type: 'string' },
  'idempotency-key': { type: 'string' }, 'create-account': { type: 'boolean' }, charge: { type: 'string' }, reason: { type: 'string' }, waive: { type: 'boolean' },
  url: { type: 'string' }, model: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** The names of every option the command line takes (each is some command's, in its --help). */
export const OPTION_NAMES: readonly string[] = Object.keys(OPTIONS);

// parseArgs reads "-500" as short options: a negative amount is marked as a value, then unmarked.
const NEGATIVE = /^-\d/;
const MARK = '\u0000';

const read = (args: string[]) => parseArgs({ args, options: OPTIONS, allowPositionals: true });

/** Positionals and `--flag value` / `--flag=value` / `--flag` options, by node:util's parseArgs. */
export function parseCommandLine(argv: readonly string[]): Args {
  let parsed: ReturnType<typeof read>;
  try {
    parsed = read(argv.map((a) => (NEGATIVE.test(a) ? MARK + a : a)));
  } catch (err) {
    // node's own words, without its advice on positionals that start with "-" (the usage follows instead)
    throw new UsageError((err instanceof Error ? err.message : String(err)).split(/\n|\. To specify/)[0] ?? '');
  }
  const unmark = (a: string): string => (a.startsWith(MARK) ? a.slice(1) : a);
  const flags = new Map<string, string | true>();
  for (const [name, value] of Object.entries(parsed.values)) if (value !== undefined) flags.set(name, value === true ? true : unmark(String(value)));
  return { positional: parsed.positionals.map(unmark), flags };
}

/** Options every command takes. */
const GLOBAL_OPTIONS = new Set(['config', 'json', 'help']);

/** Refuses an option that is not `command`'s (`keys create --model`), naming the one it likely meant. */
export function checkOptions(command: string, args: Args): void {
  const own = (Object.hasOwn(COMMAND_HELP, command) ? COMMAND_HELP[command]?.options ?? [] : []).map(([spec]) => /^--([\w-]+)/.exec(spec)?.[1] ?? '');
  for (const name of args.flags.keys()) {
    if (GLOBAL_OPTIONS.has(name) || own.includes(name)) continue;
    const meant = closestKey(name, own);
    throw new UsageError(`--${name} is not an option of ${command}${meant ? `; did you mean --${meant}?` : ''}`);
  }
}
