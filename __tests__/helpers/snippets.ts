/**
 * Runs the documents' code as written: a snippet's text goes whole into an ES module, between the lines a
 * harness needs (the names a fragment assumes before it, a report or a check after it), is type-checked
 * strictly against the built package (`model-gateway` resolves to dist/, as in an installed host), and runs.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { blocks, read, ROOT } from './markdown';

export interface Snippet {
  /** File name (without extension) of the module. */
  name: string;
  /** The document's text, exactly. */
  code: string;
  /** Harness lines before the text (imports and the names a fragment assumes). */
  before?: string;
  /** Harness lines after it. */
  after?: string;
}

/** The fenced blocks of one language under a heading of a document (a heading's own text, as written after the #s). */
export function snippetsUnder(doc: string, heading: string, lang = 'ts'): string[] {
  const found = blocks(read(doc)).filter((b) => b.heading === heading && b.lang === lang).map((b) => b.code);
  if (found.length === 0) throw new Error(`${doc}: no \`\`\`${lang} block under the heading "${heading}"`);
  return found;
}

/** A scratch folder inside the checkout, so that `model-gateway` and the dev dependencies resolve as in a host app. */
export function scratch(name: string): { dir: string; remove(): void } {
  const dir = path.join(ROOT, '.snippet-test', `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Writes each snippet as `<name>.mts` and compiles them together, strict (`noUncheckedIndexedAccess` too), as
 * ES modules resolved the way Node resolves them; throws tsc's diagnostics. Returns each module's `.mjs` path.
 */
export function compile(dir: string, snippets: Snippet[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const s of snippets) {
    writeFileSync(path.join(dir, `${s.name}.mts`), [s.before ?? '', s.code, s.after ?? ''].join('\n'));
    files[s.name] = path.join(dir, `${s.name}.mjs`);
  }
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noUncheckedIndexedAccess: true, skipLibCheck: true, target: 'ES2022', module: 'node16', moduleResolution: 'node16', types: ['node'], esModuleInterop: true },
    files: snippets.map((s) => `${s.name}.mts`),
  }));
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`the snippets do not compile as written:\n${stdout ?? ''}${stderr ?? ''}`);
  }
  return files;
}

/** Runs a compiled snippet to its end; rejects with its output when it exits non-zero. */
export async function runToEnd(file: string, env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [file], { env, timeout: timeoutMs, cwd: path.dirname(file) });
  return stdout;
}

/** A snippet running as a process: its output so far, and the first line matching a pattern. */
export interface Started {
  child: ChildProcess;
  out(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code (or signal) when the process ends. */
  exited: Promise<number | string | null>;
}

export function start(file: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, [file], { env, cwd: path.dirname(file), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (c: Buffer): void => { out += c.toString(); for (const w of waiters) w(); };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | string | null>((resolve) => { child.once('exit', (code, signal) => { for (const w of waiters) w(); resolve(code ?? signal); }); });
  return {
    child, exited, out: () => out,
    waitFor: (pattern, timeoutMs = 30_000) => new Promise((resolve, reject) => {
      const check = (): void => {
        const m = pattern.exec(out);
        if (m) { waiters.delete(check); clearTimeout(timer); resolve(m); } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(check); clearTimeout(timer); reject(new Error(`${path.basename(file)} exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${out}`));
        }
      };
      const timer = setTimeout(() => { waiters.delete(check); reject(new Error(`${path.basename(file)}: no ${pattern} in ${timeoutMs} ms:\n${out}`)); }, timeoutMs);
      waiters.add(check);
      check();
    }),
  };
}
