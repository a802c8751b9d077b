/** lib/cli/usage.ts: the help text from one table of commands, a command's own usage after a mistake, the command line parsed. */
import { VERSION } from '../../../lib/version';
import { COMMANDS, parseCommandLine, USAGE, usageOf } from '../../../lib/cli/usage';
import { UsageError } from '../../../lib/cli/ops';

describe('the usage text', () => {
  it('names the version, every command, the options and the exit codes', () => {
    expect(USAGE.split('\n')[0]).toBe(`model-gateway ${VERSION}`);
    for (const command of COMMANDS) expect(USAGE).toContain(`model-gateway ${command}`);
    expect([...COMMANDS]).toEqual(['serve', 'validate', 'migrate', 'keys', 'credit', 'reviews']);
    expect(USAGE).toMatch(/^options: --config <file>/m);
    expect(USAGE).toMatch(/^exit codes: 0 done, 1 failed/m);
  });

  it("gives a known command's own lines, and the whole text for an unknown one", () => {
    expect(usageOf('credit')).toBe('usage: model-gateway credit <caller> <amount> --idempotency-key <key> [--create-account]\n(model-gateway --help for every command)');
    expect(usageOf('nope')).toBe(USAGE);
    expect(usageOf(undefined)).toBe(USAGE);
    expect(usageOf('constructor')).toBe(USAGE);
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
