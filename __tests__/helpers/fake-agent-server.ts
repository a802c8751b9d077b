/** The recording HTTP server under the agent fakes: keeps each request's raw body text, so tests can check bytes. */
import http from 'node:http';
import { listen } from './local';

/** A request an agent fake received. */
export interface AgentRequest {
  method: string;
  /** Path with its query string, as sent (`/v1/messages?beta=true`). */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as received (UTF-8). */
  text: string;
  /** The parsed JSON body; undefined when the body was empty or not JSON. */
  body: Record<string, unknown> | undefined;
}

/** Answers one request; the request is already recorded. */
export type AgentHandler = (req: AgentRequest, res: http.ServerResponse) => void;

export interface AgentServer {
  url: string;
  requests: AgentRequest[];
  close(): Promise<void>;
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts a recording server on 127.0.0.1:0; a handler that throws answers 500 rather than hanging the client. */
export async function startAgentServer(handler: AgentHandler): Promise<AgentServer> {
  const requests: AgentRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, text, body: parse(text) };
      requests.push(request);
      try {
        handler(request, res);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`fake failed: ${String(err)}`);
      }
    });
  });
  const { url, close } = await listen(server);
  return { url, requests, close };
}

/** Sends a JSON response. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The last message of `role` in a request's `messages` (Claude Code may put a `role: "system"` message after its last user turn). */
export function lastOfRole(body: Record<string, unknown> | undefined, role: string): Record<string, unknown> | undefined {
  const messages = Array.isArray(body?.messages) ? (body.messages as unknown[]) : [];
  const found = messages.filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && (m as { role?: unknown }).role === role);
  return found.at(-1);
}

/** Claude Code names its working directory in the system prompt ("Primary working directory: …"); the fakes resolve relative file names against it. */
export function workingDirectory(text: string): string | undefined {
  const match = /Primary working directory: ((?:[^"\\]|\\[^n])+)\\n/.exec(text);
  return match?.[1] === undefined ? undefined : (JSON.parse(`"${match[1]}"`) as string);
}

/** Splits a string into pieces of `size` characters (the fakes' fragments). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
