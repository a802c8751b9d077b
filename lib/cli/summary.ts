/** What serve's start-up summary and validate say of a config: its models, and the URL each upstream calls (never a key). */
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';
import type { GatewayConfig } from './config';

/** "id (capability, upstream), …": a failover group as its members, each with the model it is sent. */
export const describeModels = (c: GatewayConfig): string => c.models.map((m) => {
  const upstream = m.upstream ?? `failover to ${(m.failover ?? []).map((f) => `${f.upstream}${f.upstreamModel ? ` (${f.upstreamModel})` : ''}`).join(', then ')}`;
  return `${m.id} (${m.capability}, ${upstream})`;
}).join(', ');

/** A URL as it may be printed: credentials in it (`user:pass@`) masked. */
export function printableURL(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = parsed.username ? '***' : '';
    parsed.password = parsed.password ? '***' : '';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** What each configured upstream calls: `name → POST <url>`, a failover group by its members; keyed by config name. */
export function upstreamEndpoints(config: GatewayConfig, built: Record<string, MessagesAdapter | RerankAdapter>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, u] of Object.entries(config.upstreams ?? {})) {
    const endpoint = Object.hasOwn(built, name) ? built[name]?.endpoint : undefined;
    out[name] = u.type === 'failover' ? `failover to ${(u.of ?? []).join(', then ')}` : endpoint ? `POST ${printableURL(endpoint)}` : '(no endpoint reported)';
  }
  return out;
}

/** The summary lines of the upstreams, one each: `  upstream openai: POST https://api.openai.com/v1/chat/completions`. */
export const upstreamLines = (endpoints: Record<string, string>): string[] =>
  Object.entries(endpoints).map(([name, what]) => `  upstream ${name}: ${what}`);

/**
 * What a config allows that the operator likely did not mean, one line each (`warning: …`) for the
 * start-up summary and validate: a memory store without an admin API can never have a key (the key
 * commands need a store outside the process, and nothing else makes one).
 */
export function configWarnings(c: GatewayConfig): string[] {
  const warnings: string[] = [];
  if ((c.store?.type ?? 'memory') === 'memory' && !c.admin) {
    warnings.push('warning: a memory store and no admin section: no key can ever be made, so every request gets 401. Add an admin section '
      + '(admin: { tokens: [{ name: ops, token: "${ADMIN_TOKEN}", access: write }] }) and make keys through its API or dashboard, '
      + 'or use a postgres store (store: { type: postgres, url: "${DATABASE_URL}" }), whose keys `model-gateway keys create` makes');
  }
  return warnings;
}
