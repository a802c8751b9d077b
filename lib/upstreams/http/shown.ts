/**
 * What of an upstream's refusal a caller may read: its words without a URL or a host (the
 * upstreams' endpoints are the operator's), and its OpenAI terms (`param`, `code`) when their
 * shapes are a field path and a code. The gateway's keys are redacted apart (redact.ts).
 */
import type { UpstreamTerms } from '../../foundation/errors';

/** Every upstream host the process's adapters were made for (`host:port`, and a dotted or IP host alone): a text bound for a caller names none. */
const KNOWN_HOSTS = new Set<string>();

/** Records the host of an adapter's base URL (called once per adapter, at construction). */
export function knowHost(baseURL: string): void {
  const url = new URL(baseURL);
  KNOWN_HOSTS.add(url.host.toLowerCase());
  // A bare name ("vllm", "localhost") is a common word: it is known only with its port.
  if (/[.:]/.test(url.hostname)) KNOWN_HOSTS.add(url.hostname.toLowerCase());
}

/** Any URL (a scheme, `://`, then up to a space or a quote; trailing punctuation is the sentence's). */
const URLS = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*[^\s"'<>`.,;:!?)\]}]/gi;
/** IP literals, with a port: IPv4, and IPv6 in brackets. */
const IPS = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b|\[[0-9a-f]{0,4}(?::[0-9a-f.]{0,15}){2,7}\](?::\d{1,5})?/gi;
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with every URL as `[url]` and every known upstream host and IP literal as `[host]`. */
export function withoutHosts(text: string): string {
  let out = text.replace(URLS, '[url]');
  for (const host of KNOWN_HOSTS) {
    if (out.toLowerCase().includes(host)) out = out.replace(new RegExp(`(?<![\\w.-])${escape(host)}(?![\\w-])`, 'gi'), '[host]');
  }
  return out.replace(IPS, '[host]');
}

/** A field path as OpenAI names one (`include[0]`, `tools.2.type`), and a code (`invalid_value`). */
const PARAM = /^[A-Za-z0-9_.[\]-]{1,128}$/;
const CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The `param` and `code` of an upstream's OpenAI-shaped error body, each kept only when its shape is a path or a code (and names no host); undefined when neither is. */
export function termsOf(body: unknown): UpstreamTerms | undefined {
  const error = (body as { error?: { param?: unknown; code?: unknown } | null } | null)?.error;
  const checked = (value: unknown, shape: RegExp): string | undefined => (typeof value === 'string' && shape.test(value) && withoutHosts(value) === value ? value : undefined);
  const param = checked(error?.param, PARAM);
  const code = checked(error?.code, CODE);
  return param === undefined && code === undefined ? undefined : { ...(param === undefined ? {} : { param }), ...(code === undefined ? {} : { code }) };
}
