/** The code blocks of a document, as written: a snippet in the docs is code, and its test runs the text itself. */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');

/** The fenced blocks of `file` (relative to the repository) in `lang`, in order. */
export function codeBlocks(file: string, lang: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] as string);
}

/** Runs a TypeScript module snippet (its `model-gateway` imports bound to `lib`) and returns its exports. */
export function runModule(source: string, modules: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
  const exports: Record<string, unknown> = {};
  const load = (name: string): unknown => {
    if (!Object.hasOwn(modules, name)) throw new Error(`the snippet imports ${name}, which the test does not provide`);
    return modules[name];
  };
  new Function('exports', 'require', 'process', outputText)(exports, load, process); // eslint-disable-line @typescript-eslint/no-implied-eval
  return exports;
}
