/** The `model-gateway` command: serve, validate, migrate, and operator commands against the configured store. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GatewayError } from '../errors';
import { VERSION } from '../version';
import { assemble } from './assemble';
import { createStore } from './build';
import { ConfigError, loadConfig } from './config';
import { requireMigrated } from './connect';
import { runCommand, UsageError, type Args } from './ops';
import { serve } from './serve';

const USAGE = `model-gateway ${VERSION}
usage:
  model-gateway serve [--config gateway.yaml]     serve (no config: ANTHROPIC_API_KEY or OPENAI_API_KEY, memory store)
  model-gateway validate --config gateway.yaml    every check serve makes, without listening or reaching the store
  model-gateway migrate --config gateway.yaml     create or upgrade the store's schema (serve does it too)
  model-gateway keys create <caller> [--models a,b] [--secret s] | list [--caller c] | disable|enable|revoke <keyId> | rotate <keyId> [--grace-seconds n]
  model-gateway credit <caller> <amount> --idempotency-key <key> [--create-account]
  model-gateway reviews list [--caller c] | resolve <requestId> (--charge <amount> | --waive) --reason "<why>"
options: --config <file> (default: $MODEL_GATEWAY_CONFIG), --json (machine-readable output), --help
exit codes: 0 done, 1 failed (a store or port out of reach, a schema behind, a refused operation), 2 bad usage or config`;

/** Every option of every command (one table, so a misspelt one is refused, not ignored). */
const OPTIONS = {
  config: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  models: { type: 'string' }, secret: { type: 'string' }, caller: { type: 'string' }, 'grace-seconds': { type: 'string' },
  'idempotency-key': { type: 'string' }, 'create-account': { type: 'boolean' }, charge: { type: 'string' }, reason: { type: 'string' }, waive: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

const COMMANDS = new Set(['serve', 'validate', 'migrate', 'keys', 'credit', 'reviews']);

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
    throw new UsageError(err instanceof Error ? err.message.split('\n')[0] ?? '' : String(err));
  }
  const unmark = (a: string): string => (a.startsWith(MARK) ? a.slice(1) : a);
  const flags = new Map<string, string | true>();
  for (const [name, value] of Object.entries(parsed.values)) if (value !== undefined) flags.set(name, value === true ? true : unmark(String(value)));
  return { positional: parsed.positionals.map(unmark), flags };
}

/** Serves until SIGTERM or SIGINT, then drains (a second signal ends the process at once). */
async function serveUntilSignal(configFile: string | undefined, env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<void> {
  const running = await serve(configFile, env, print);
  await new Promise<void>((resolve, reject) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      running.stop().then(resolve, reject);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  print('stopped');
}

/** Runs the command; resolves with the exit code (serve resolves only when it stops). */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, print: (line: string) => void = (l) => console.log(l)): Promise<number> {
  let json = argv.includes('--json');
  const fail = (code: number, message: string): number => {
    if (json) print(JSON.stringify({ error: message }));
    else console.error(`model-gateway: ${message}`);
    return code;
  };
  try {
    const args = parseCommandLine(argv);
    json = args.flags.has('json');
    const command = args.positional[0];
    if (args.flags.has('help') || command === 'help') {
      print(USAGE);
      return 0;
    }
    if (command === undefined || !COMMANDS.has(command)) throw new UsageError(command === undefined ? 'no command given' : `unknown command: ${command}`);
    const configFile = (args.flags.get('config') as string | undefined) ?? env.MODEL_GATEWAY_CONFIG;
    if (command === 'serve') {
      await serveUntilSignal(configFile, env, print);
      return 0;
    }
    if (!configFile) throw new UsageError('--config <file> is required for this command');
    const config = loadConfig(configFile, env);
    if (command === 'validate') {
      const gateway = await assemble(config, () => undefined); // every check serve makes; nothing listens or connects
      await gateway.close();
      print(json ? JSON.stringify({ valid: true, models: config.models.length }) : `${configFile}: valid (${config.models.length} models)`);
      return 0;
    }
    const opened = await createStore(config);
    try {
      if (command !== 'migrate') await requireMigrated(opened, `model-gateway migrate --config ${configFile}`);
      const out = await runCommand(opened.store, args, { models: config.models.map((m) => m.id) });
      print(json ? JSON.stringify(out.data) : out.human);
      return 0;
    } finally {
      await opened.close();
    }
  } catch (err) {
    if (err instanceof UsageError) return fail(2, `${err.message}\n${json ? '' : USAGE}`.trim());
    if (err instanceof ConfigError) return fail(2, `config: ${err.message}`);
    if (err instanceof GatewayError) return fail(1, err.message);
    return fail(1, err instanceof Error ? err.message : String(err));
  }
}
