/** The command line: every command's usage, every option, and parsing by node:util's parseArgs. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { VERSION } from '../version';
import { UsageError, type Args } from './ops';

/** Each command's usage lines (one table: --help prints them all, a usage mistake its command's). */
const COMMAND_USAGE: Record<string, string[]> = {
  serve: ['model-gateway serve [--config gateway.yaml]     serve (no config: ANTHROPIC_API_KEY or OPENAI_API_KEY, memory store)'],
  validate: ['model-gateway validate --config gateway.yaml    every check serve makes, without listening or reaching the store'],
  migrate: ['model-gateway migrate --config gateway.yaml     create or upgrade the store\'s schema (serve does it too)'],
  keys: ['model-gateway keys create <caller> [--models a,b] [--secret s] | list [--caller c] | disable|enable|revoke <keyId> | rotate <keyId> [--grace-seconds n]'],
  credit: ['model-gateway credit <caller> <amount> --idempotency-key <key> [--create-account]'],
  reviews: ['model-gateway reviews list [--caller c] | resolve <requestId> (--charge <amount> | --waive) --reason "<why>"'],
};

export const COMMANDS = new Set(Object.keys(COMMAND_USAGE));

export const USAGE = `model-gateway ${VERSION}
usage:
${Object.values(COMMAND_USAGE).flat().map((line) => `  ${line}`).join('\n')}
options: --config <file> (default: $MODEL_GATEWAY_CONFIG), --json (machine-readable output), --help
exit codes: 0 done, 1 failed (a store, Redis or port out of reach, a schema behind), 2 bad usage, config or input (an unknown id…)`;

/** What follows a usage mistake: the command's usage lines, or every command's when it is not known. */
export function usageOf(command: string | undefined): string {
  const lines = command !== undefined && Object.hasOwn(COMMAND_USAGE, command) ? COMMAND_USAGE[command] : undefined;
  return lines ? `usage: ${lines.join('\n       ')}\n(model-gateway --help for every command)` : USAGE;
}

/** Every option of every command (one table, so a misspelt one is refused, not ignored). */
const OPTIONS = {
  config: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  models: { type: 'string' }, secret: { type: 'string' }, caller: { type: 'string' }, 'grace-seconds': { type: 'string' },
  'idempotency-key': { type: 'string' }, 'create-account': { type: 'boolean' }, charge: { type: 'string' }, reason: { type: 'string' }, waive: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

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
