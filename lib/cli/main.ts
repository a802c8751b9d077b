/** The `model-gateway` command: serve, validate, migrate, operator commands against the configured store, and agent clients' set-up. */
import { GatewayError } from '../foundation/errors';
import { assemble } from './assemble';
import { createStore } from './build';
import { ConfigError, loadConfig, type GatewayConfig } from './config';
import { requireMigrated } from './connect';
import { CommandError, runCommand, UsageError } from './ops';
import { serve } from './serve';
import { onStop } from './stop-signals';
import { configWarnings, upstreamLines } from './summary';
import { clientConfig } from './client-config';
import { checkOptions, COMMANDS, helpOf, parseCommandLine, usageOf } from './usage';

/**
 * A memory store lives inside the gateway process that serves it: a command would open a new,
 * empty one the running gateway never sees (a key "shown once" that no server knows).
 */
function refuseMemoryStore(config: GatewayConfig, command: string): void {
  if ((config.store?.type ?? 'memory') !== 'memory') return;
  const admin = config.admin?.path ?? '/admin';
  const api = config.admin ? `its admin API (${admin}/keys, ${admin}/accounts/<caller>/credits, ${admin}/reviews) or its dashboard (${admin}/dashboard/)` : 'its admin API or dashboard (add an `admin` section with a write token)';
  throw new CommandError(`${command}: the config's store is memory, which only the running gateway holds: this command would use a new, empty store that gateway never sees. `
    + `Change a running memory gateway through ${api}, or use a postgres store (store: { type: postgres })`);
}

/**
 * Serves until SIGTERM or SIGINT (or npm's shell ends), then drains (a second signal ends the
 * process at once). The signals are taken before the start: one sent as the banner appears drains too.
 */
async function serveUntilSignal(configFile: string | undefined, env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<void> {
  let stopNow = (): void => undefined;
  const stopped = new Promise<void>((resolve) => { stopNow = resolve; });
  const release = onStop(env, print, () => stopNow());
  const running = await serve(configFile, env, print).catch((err: unknown) => { release(); throw err; });
  await stopped;
  await running.stop();
  print('stopped');
}

/** Runs the command; resolves with the exit code (serve resolves only when it stops). */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, print: (line: string) => void = (l) => console.log(l)): Promise<number> {
  let json = argv.includes('--json');
  let command: string | undefined = argv.find((a) => COMMANDS.has(a)); // until the arguments are parsed
  const fail = (code: number, message: string): number => {
    if (json) print(JSON.stringify({ error: message }));
    else console.error(`model-gateway: ${message}`);
    return code;
  };
  try {
    const args = parseCommandLine(argv);
    json = args.flags.has('json');
    command = args.positional[0];
    if (args.flags.has('help') || command === 'help') {
      print(helpOf(command === 'help' ? args.positional[1] : command));
      return 0;
    }
    if (command === undefined || !COMMANDS.has(command)) throw new UsageError(command === undefined ? 'no command given' : `unknown command: ${command}`);
    checkOptions(command, args);
    const configFile = (args.flags.get('config') as string | undefined) ?? env.MODEL_GATEWAY_CONFIG;
    if (command === 'client-config') {
      const out = clientConfig(args, configFile, env);
      print(json ? JSON.stringify(out.data) : out.human);
      return 0;
    }
    if (command === 'serve') {
      await serveUntilSignal(configFile, env, print);
      return 0;
    }
    if (!configFile) throw new UsageError('--config <file> is required for this command');
    const config = loadConfig(configFile, env);
    if (command === 'validate') {
      const gateway = await assemble(config, () => undefined); // every check serve makes; nothing listens or connects
      await gateway.close();
      const upstreams = gateway.endpoints();
      const warnings = configWarnings(config);
      print(json ? JSON.stringify({ valid: true, models: config.models.length, upstreams, ...(warnings.length > 0 ? { warnings } : {}) })
        : [`${configFile}: valid (${config.models.length} models)`, ...upstreamLines(upstreams), ...warnings.map((w) => `  ${w}`)].join('\n'));
      return 0;
    }
    if (command !== 'migrate') refuseMemoryStore(config, args.positional.slice(0, 2).join(' '));
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
    if (err instanceof UsageError) return fail(2, json ? err.message : `${err.message}\n${usageOf(command !== undefined && COMMANDS.has(command) ? command : undefined)}`);
    if (err instanceof CommandError) return fail(2, err.message);
    if (err instanceof ConfigError) return fail(2, `config: ${err.message}`);
    // What the store refuses of an operator's input (an unknown request id, a review already resolved…) is bad input too.
    if (err instanceof GatewayError) return fail(err.code === 'invalid_request_error' || err.code === 'not_found_error' ? 2 : 1, err.message);
    return fail(1, err instanceof Error ? err.message : String(err));
  }
}
