/** lib/cli/usage.ts: the help text from one table of commands, a command's own usage after a mistake, the command line parsed. */
import { VERSION } from '../../../lib/foundation/version';
import { checkOptions, COMMANDS, helpOf, OPTION_NAMES, parseCommandLine, USAGE, usageOf } from '../../../lib/cli/usage';
import { COMMAND_HELP } from '../../../lib/cli/help';
import { UsageError } from '../../../lib/cli/ops';

describe('the usage text', () => {
  it('names the version, every command, the options and the exit codes', () => {
    expect(USAGE.split('\n')[0]).toBe(`model-gateway ${VERSION}`);
    for (const command of COMMANDS) expect(USAGE).toContain(`model-gateway ${command}`);
    expect([...COMMANDS]).toEqual(['serve', 'validate', 'migrate', 'keys', 'credit', 'reviews', 'client-config']);
    expect(USAGE).toMatch(/^options: --config <file>/m);
    expect(USAGE).toMatch(/^exit codes: 0 done, 1 failed/m);
  });

  it("gives a known command's own lines, and the whole text for an unknown one", () => {
    expect(usageOf('credit')).toBe('usage: model-gateway credit <caller> <amount> --idempotency-key <key> [--create-account]\n(model-gateway credit --help explains each option)');
    expect(usageOf('nope')).toBe(USAGE);
    expect(usageOf(undefined)).toBe(USAGE);
    expect(usageOf('constructor')).toBe(USAGE);
  });
});

describe('--help', () => {
  it("after a command is that command's help and the exit codes; otherwise the whole usage", () => {
    const keys = helpOf('keys');
    expect(keys.split('\n')[0]).toBe('usage: model-gateway keys create <caller> [--models a,b] [--secret s]');
    expect(keys).toMatch(/^ {2}--grace-seconds n +rotate: .*\(default 0: it stops at once\)$/m);
    expect(keys).toMatch(/^exit codes: 0 done/m);
    expect(keys).not.toContain('credit <caller>');
    expect(helpOf(undefined)).toBe(USAGE);
    expect(helpOf('nope')).toBe(USAGE);
    expect(helpOf('constructor')).toBe(USAGE);
  });

  it('lists every option the command line takes under some command, and none it does not take', () => {
    const documented = new Set(Object.values(COMMAND_HELP).flatMap((c) => c.options.map(([spec]) => /^--([\w-]+)/.exec(spec)?.[1])));
    expect([...OPTION_NAMES].filter((name) => name !== 'help').sort()).toEqual([...documented].sort());
  });
});

describe('checkOptions()', () => {
  it("refuses an option that is not the command's, naming the likely one; takes --config, --json and --help everywhere", () => {
    expect(() => checkOptions('keys', parseCommandLine(['keys', 'create', 'a', '--model', 'x']))).toThrow(new UsageError('--model is not an option of keys; did you mean --models?'));
    expect(() => checkOptions('serve', parseCommandLine(['serve', '--waive']))).toThrow(new UsageError('--waive is not an option of serve'));
    expect(() => checkOptions('credit', parseCommandLine(['credit', 'a', '5', '--idempotency-key', 'k', '--create-account', '--json', '--config', 'f']))).not.toThrow();
    expect(() => checkOptions('serve', parseCommandLine(['serve', '--config', 'f', '--json', '--help']))).not.toThrow();
  });
});

describe('parseCommandLine()', () => {
  it('reads positionals and every form of option', () => {
    const args = parseCommandLine(['keys', 'create', 'acme', '--models=a,b', '--secret', 's', '--json']);
    expect(args.positional).toEqual(['keys', 'create', 'acme']);
    expect(Object.fromEntries(args.flags)).toEqual({ models: 'a,b', secret: 's', json: true });
  });

  it('takes a negative amount as a value, not as options', () => {
    expect(parseCommandLine(['credit', 'acme', '-500', '--idempotency-key', 'k']).positional).toEqual(['credit', 'acme', '-500']);
  });

  it("refuses an unknown option in node's words, without its advice", () => {
    expect(() => parseCommandLine(['serve', '--colour'])).toThrow(UsageError);
    expect(() => parseCommandLine(['serve', '--colour'])).toThrow(/Unknown option '--colour'$/);
    expect(() => parseCommandLine(['serve', '-x'])).not.toThrow(/To specify/);
  });
});
