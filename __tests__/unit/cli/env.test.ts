/** lib/cli/env.ts: `${NAME}` and `${NAME:-default}` filled from the environment and typed by the config schema at their path. */
import { configSchema } from '../../../lib/cli/config-schema';
import { ConfigError } from '../../../lib/cli/config-error';
import { substitute } from '../../../lib/cli/env';

const fill = (value: unknown, env: NodeJS.ProcessEnv = {}) => substitute(value, configSchema, env).value;

describe('substitute()', () => {
  it('types a filled value by the schema: a port, a flag, a list; text stays text', () => {
    const out = fill({
      server: { port: '${PORT}', host: '${HOST:-0.0.0.0}', trustProxy: '${PROXIES}' },
      logging: { requests: '${LOG:-false}' },
      upstreams: { a: { type: 'anthropic', apiKey: '${KEY}', name: '${NAME:-123}' } },
    }, { PORT: '8080', KEY: 'sk-1', PROXIES: 'loopback, 10.0.0.0/8' }) as Record<string, Record<string, unknown>>;
    expect(out.server).toEqual({ port: 8080, host: '0.0.0.0', trustProxy: ['loopback', '10.0.0.0/8'] });
    expect(out.logging).toEqual({ requests: false });
    expect(out.upstreams).toEqual({ a: { type: 'anthropic', apiKey: 'sk-1', name: '123' } });
  });

  it('uses the default for an unset or empty variable, and an empty value where none is given', () => {
    expect(fill({ server: { host: '${H:-x}' } }, { H: '' })).toEqual({ server: { host: 'x' } });
    expect(fill({ server: { host: '${H}' } }, { H: '' })).toEqual({ server: { host: '' } });
    expect(fill({ server: { host: 'at ${H}:${P:-1}' } }, { H: 'h' })).toEqual({ server: { host: 'at h:1' } });
  });

  it('leaves text the schema would refuse as text, for the schema to name by path', () => {
    expect(fill({ server: { port: '${PORT}' } }, { PORT: 'eighty' })).toEqual({ server: { port: 'eighty' } });
  });

  it('records which variables each path came from', () => {
    const { sources } = substitute({ models: [{ id: '${ID}' }] }, configSchema, { ID: 'm' });
    expect(sources.get('models[0].id')).toEqual(['ID']);
  });

  it('names a variable that is not set, with where it is used, and every one when several are missing', () => {
    expect(() => fill({ server: { port: '${PORT}' } })).toThrow(new ConfigError('server.port: environment variable PORT is not set; set it, give a default (${PORT:-value}) or write the value in the file'));
    expect(() => fill({ server: { port: '${PORT}', host: '${HOST}' } })).toThrow(/^2 environment variables are not set;[^]*\n {2}PORT \(server\.port\)\n {2}HOST \(server\.host\)$/);
  });

  it('takes no inherited property for a variable', () => {
    expect(() => fill({ server: { host: '${constructor}' } }, {})).toThrow(ConfigError);
  });
});
