/** What each command does and what each of its options means: `model-gateway <command> --help`, and the usage lines of `--help`. */

/** One command's help: its usage lines, what it does, and each option with its meaning (units and defaults included). */
export interface CommandHelp {
  usage: readonly string[];
  about: readonly string[];
  options: ReadonlyArray<readonly [string, string]>;
}

const CONFIG: readonly [string, string] = ['--config <file>', 'the gateway\'s config, YAML or JSON (default: $MODEL_GATEWAY_CONFIG)'];
const JSON_OUT: readonly [string, string] = ['--json', 'print the result (or the error) as one JSON object, for scripts'];
const STORE = 'Works on the config\'s PostgreSQL store (a memory store lives in the running gateway: use its admin API or dashboard).';

/** Every command, in the order --help lists them. */
export const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  serve: {
    usage: ['model-gateway serve [--config gateway.yaml]'],
    about: [
      'Builds the gateway of the config, applies the store\'s migrations and listens. SIGTERM or SIGINT drains (requests in',
      'flight finish, billing is flushed) and exits 0; SIGHUP reloads the file (a bad one is refused, the old one serves on).',
      'Without a config: a zero-config start from ANTHROPIC_API_KEY or OPENAI_API_KEY on a memory store, on PORT (default',
      '8787); it prints an admin token and a first key, once.',
    ],
    options: [CONFIG],
  },
  validate: {
    usage: ['model-gateway validate --config gateway.yaml'],
    about: ['Makes every check serve makes and prints the URL each upstream calls, without listening or reaching the store or Redis.'],
    options: [CONFIG, JSON_OUT],
  },
  migrate: {
    usage: ['model-gateway migrate --config gateway.yaml'],
    about: ['Creates or upgrades the store\'s schema and prints the migrations it applied (serve does it too at start).'],
    options: [CONFIG, JSON_OUT],
  },
  keys: {
    usage: [
      'model-gateway keys create <caller> [--models a,b] [--secret s]',
      'model-gateway keys list [--caller c]',
      'model-gateway keys disable|enable|revoke <keyId>',
      'model-gateway keys rotate <keyId> [--grace-seconds n]',
    ],
    about: [
      'API keys. A key belongs to a caller, the account its requests are billed to, and carries no money: `create` opens the',
      'caller\'s account empty; give it money with `credit`. `disable` refuses a key until `enable`; `revoke` ends it for good;',
      '`rotate` makes a new key with the old one\'s caller, models, limits and metadata, and prints it once.',
      STORE,
    ],
    options: [
      ['--models a,b', 'create: the model ids the key may use, comma-separated, each one of the config (default: every model)'],
      ['--secret s', 'create: the key\'s secret, instead of a random one (e.g. a key moved from another system)'],
      ['--caller c', 'list: only this caller\'s keys'],
      ['--grace-seconds n', 'rotate: whole seconds the old key keeps working after the rotation (default 0: it stops at once)'],
      CONFIG, JSON_OUT,
    ],
  },
  credit: {
    usage: ['model-gateway credit <caller> <amount> --idempotency-key <key> [--create-account]'],
    about: [
      '<amount> is an integer of minor units, the smallest unit of the gateway\'s money (cents: 500 is $5.00); negative for a',
      'debit (-500). The credit applies once per idempotency key: repeated, it moves nothing and prints the balance. Audited.',
      STORE,
    ],
    options: [
      ['--idempotency-key <key>', 'required: the same key never moves money twice (e.g. invoice-2026-05-acme)'],
      ['--create-account', 'open the caller\'s account when it has none; without it an unknown caller is refused (a typo moves no money)'],
      CONFIG, JSON_OUT,
    ],
  },
  reviews: {
    usage: [
      'model-gateway reviews list [--caller c]',
      'model-gateway reviews resolve <requestId> (--charge <amount> | --waive) --reason "<why>"',
    ],
    about: [
      'Requests whose usage the upstream did not confirm whole (a stream cut short, an implausible figure) were charged only',
      'what was confirmed and flagged; each is resolved once, charging more or waiving. `list` shows the open ones.',
      STORE,
    ],
    options: [
      ['--caller c', 'list: only this caller\'s reviews'],
      ['--charge <amount>', 'resolve: charge this many more minor units (an integer, 0 or more), on top of what was charged'],
      ['--waive', 'resolve: charge nothing more'],
      ['--reason "<why>"', 'resolve: required; kept with the resolution and in the audit trail'],
      CONFIG, JSON_OUT,
    ],
  },
  'client-config': {
    usage: ['model-gateway client-config codex|claude-code|agents-sdk --url <gateway URL> [--model <id>] [--config gateway.yaml]'],
    about: [
      'Prints what a client needs to work through the gateway, ready to copy: Codex CLI\'s ~/.codex/config.toml and the model',
      'catalog that gives it apply_patch; Claude Code\'s ~/.claude/settings.json; the OpenAI Agents SDK\'s lines of TypeScript.',
      'The key is never printed: each client reads it from an environment variable.',
    ],
    options: [
      ['--url <gateway URL>', 'required: the address the client reaches the gateway at (e.g. https://gateway.example.com)'],
      ['--model <id>', 'the gateway model the client uses; required without --config'],
      ['--config <file>', 'checks --model against the config (an agent-ready llm model); without --model takes its first one (default: $MODEL_GATEWAY_CONFIG)'],
      JSON_OUT,
    ],
  },
};

/** The help of one command: usage, what it does, its options. */
export function commandHelp(command: string): string | undefined {
  const help = Object.hasOwn(COMMAND_HELP, command) ? COMMAND_HELP[command] : undefined;
  if (!help) return undefined;
  const width = Math.max(...help.options.map(([name]) => name.length));
  return [
    `usage: ${help.usage.join('\n       ')}`,
    '',
    ...help.about,
    '',
    'options:',
    ...help.options.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}`),
    '  --help, -h'.padEnd(width + 2) + '  this text',
  ].join('\n');
}
