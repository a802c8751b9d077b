/** The `model-gateway` command: serve, validate, and operator commands against the configured store. */
import { GatewayError } from '../errors';
import { VERSION } from '../version';
import { openStore } from './build';
import { ConfigError, loadConfig } from './config';
import { runCommand, UsageError, type Args } from './ops';
import { serve } from './serve';

const USAGE = `model-gateway ${VERSION}
usage:
  model-gateway serve [--config gateway.yaml]     serve (no config: ANTHROPIC_API_KEY or OPENAI_API_KEY, memory store)
  model-gateway validate --config gateway.yaml    check a config file without starting
  model-gateway migrate --config gateway.yaml
  model-gateway keys create <caller> [--models a,b] [--secret s] | list [--caller c] | disable|enable|revoke <keyId> | rotate <keyId> [--grace-seconds n]
  model-gateway credit <caller> <amount> --idempotency-key <key>
  model-gateway reviews list [--caller c] | resolve <requestId> (--charge <amount> | --waive) --reason "<why>"
options: --config <file> (default: $MODEL_GATEWAY_CONFIG), --json (machine-readable output)
exit codes: 0 done, 1 failed, 2 bad usage or config`;

/** `--flag value`, `--flag=value` and bare `--flag`; the rest are positionals. */
export function parseArgs(argv: readonly string[]): Args {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!a.startsWith('--')) { positional.push(a); continue; }
    const [name, inline] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const next = argv[i + 1];
    if (inline !== undefined) flags.set(name, inline);
    else if (name !== 'json' && name !== 'waive' && next !== undefined && !next.startsWith('--')) { flags.set(name, next); i++; }
    else flags.set(name, true);
  }
  return { positional, flags };
}

/** Runs the command; resolves with the exit code (serve resolves only when it stops). */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, print: (line: string) => void = (l) => console.log(l)): Promise<number> {
  const args = parseArgs(argv);
  const json = args.flags.has('json');
  const configFile = typeof args.flags.get('config') === 'string' ? (args.flags.get('config') as string) : env.MODEL_GATEWAY_CONFIG;
  const fail = (code: number, message: string): number => {
    if (json) print(JSON.stringify({ error: message }));
    else console.error(`model-gateway: ${message}`);
    return code;
  };
  try {
    const command = args.positional[0];
    if (command === undefined || command === 'help' || args.flags.has('help')) { print(USAGE); return command === undefined ? 2 : 0; }
    if (command === 'serve') {
      const running = await serve(configFile, env, print);
      await new Promise<void>((resolve) => {
        const stop = (): void => { process.off('SIGTERM', stop); process.off('SIGINT', stop); print('draining: new requests get 529, open requests finish, billing is flushed'); void running.close().then(resolve); };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
      print('stopped');
      return 0;
    }
    if (!configFile) throw new UsageError('--config <file> is required for this command');
    const config = loadConfig(configFile, env);
    if (command === 'validate') {
      print(json ? JSON.stringify({ valid: true, models: config.models.length }) : `${configFile}: valid (${config.models.length} models)`);
      return 0;
    }
    const opened = await openStore(config);
    try {
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
