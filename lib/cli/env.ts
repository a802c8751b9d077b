/**
 * `${NAME}` and `${NAME:-default}` in the config's strings, filled from the environment. A value
 * with a reference takes the type the schema wants at its path (a port, a flag, a list), so a
 * platform's `PORT` fills `port: ${PORT}`; where the schema takes text it stays text.
 */
import { ConfigError, configPath } from './config-error';

/** The schema keywords the walk reads (the config schema is plain JSON Schema, no $ref). */
interface Node {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Node>;
  additionalProperties?: Node | boolean;
  items?: Node;
}

/** The result: the filled config, and which variables each filled path came from (for error messages). */
export interface Substituted {
  value: unknown;
  /** Config path (`server.port`) → the variables in its value. */
  sources: Map<string, string[]>;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The types a schema node takes: its `type`, else those of its `enum` values; none known: any. */
function typesOf(node: Node | undefined): Set<string> | undefined {
  if (!node) return undefined;
  if (node.type !== undefined) return new Set(Array.isArray(node.type) ? node.type : [node.type]);
  if (node.enum) return new Set(node.enum.map((v) => typeof v));
  return undefined;
}

const own = <T>(record: Record<string, T> | undefined, key: string): T | undefined =>
  record && Object.hasOwn(record, key) ? record[key] : undefined;

/** The schema of a property of an object node. */
function child(node: Node | undefined, key: string): Node | undefined {
  const named = own(node?.properties, key);
  if (named) return named;
  return typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined;
}

/**
 * Filled text as the schema at its path wants it: text where text is taken; otherwise a boolean
 * ("true"/"false"), an integer, a number, or a comma-separated list (each item by the items'
 * schema). Text that is none of the wanted types stays text, for the schema to refuse by path.
 */
function coerce(text: string, node: Node | undefined): unknown {
  const types = typesOf(node);
  if (!types || types.has('string')) return text;
  const trimmed = text.trim();
  if (types.has('boolean') && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  if ((types.has('integer') || types.has('number')) && /^-?\d+$/.test(trimmed)) return Number(trimmed);
  if (types.has('number') && trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  if (types.has('array')) return trimmed === '' ? [] : trimmed.split(',').map((item) => coerce(item.trim(), node?.items));
  return text;
}

/**
 * Fills every reference in `value` (walked with the config schema `schema`); every variable that
 * is not set (and has no default) is reported in one ConfigError, with where it is used.
 */
export function substitute(value: unknown, schema: object, env: NodeJS.ProcessEnv): Substituted {
  const sources = new Map<string, string[]>();
  const missing: Array<[string, string]> = [];
  const walk = (v: unknown, node: Node | undefined, at: string): unknown => {
    if (typeof v === 'string') {
      const names: string[] = [];
      const filled = v.replace(REFERENCE, (_, name: string, fallback: string | undefined) => {
        names.push(name);
        const found = Object.hasOwn(env, name) ? env[name] : undefined; // `${constructor}` is no variable
        if (found !== undefined && (found !== '' || fallback === undefined)) return found;
        if (fallback !== undefined) return fallback;
        missing.push([name, at]);
        return '';
      });
      if (names.length === 0) return v;
      sources.set(at, names);
      return coerce(filled, node);
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, node?.items, configPath(at, i)));
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, child(node, k), configPath(at, k))]));
    }
    return v;
  };
  const filled = walk(value, schema as Node, '');
  if (missing.length === 1) {
    const [[name, at]] = missing as [[string, string]];
    throw new ConfigError(`${at}: environment variable ${name} is not set; set it, give a default (\${${name}:-value}) or write the value in the file`);
  }
  if (missing.length > 1) {
    throw new ConfigError(`${missing.length} environment variables are not set; set them, give defaults (\${NAME:-value}) or write the values in the file:\n${missing.map(([name, at]) => `  ${name} (${at})`).join('\n')}`);
  }
  return { value: filled, sources };
}
