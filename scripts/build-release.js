// Builds a past release's PostgresStore from git history: `node scripts/build-release.js <commit>`
// prints the compiled module that exports it (and `migrate`). The release's `lib` (git archive) is
// unpacked under node_modules/.cache, where it loads the installed dependencies, and the store's
// file and all it imports are transpiled file by file with the project's TypeScript (the sources
// use isolatedModules, so each file compiles alone).
// Built once per commit; needs the clone's full history, nothing from the network.
const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..');
const cache = path.join(root, 'node_modules', '.cache', 'model-gateway-releases');
const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, isolatedModules: true };
const git = (args, input) => execFileSync('git', args, { cwd: root, input, maxBuffer: 1 << 28, stdio: ['pipe', 'pipe', 'pipe'] });

function resolve(commit) {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${commit}^{commit}`]).toString().trim();
  } catch {
    throw new Error(`release ${commit} is not in this clone's history: past releases are built from git (a shallow clone? run \`git fetch --unshallow\`).`);
  }
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** Transpiles `entry` and every file it imports, transitively (a release's store needs a fraction of its lib). */
function transpileFrom(entry) {
  const seen = new Set();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const source = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file.replace(/\.ts$/, '.js'), ts.transpileModule(source, { compilerOptions: options, fileName: file }).outputText);
    for (const [, spec] of source.matchAll(IMPORT)) {
      const base = path.resolve(path.dirname(file), spec);
      const found = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
      if (found) queue.push(found);
    }
  }
}

/** The file of a release's lib that defines `export class PostgresStore`. */
function storeFile(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    if (entry.isFile() && file.endsWith('.ts') && /^export class PostgresStore\b/m.test(fs.readFileSync(file, 'utf8'))) return file;
  }
  throw new Error(`no PostgresStore in ${dir}`);
}

/** The compiled module of release `commit` that exports PostgresStore; built on first use. */
function buildRelease(commit) {
  const hash = resolve(commit);
  const dir = path.join(cache, hash);
  const built = path.join(dir, '.built');
  if (fs.existsSync(built)) return path.join(dir, fs.readFileSync(built, 'utf8').trim());
  // Built aside and renamed into place, so two builds at once never leave half a tree.
  const work = `${dir}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(work, { recursive: true });
  try {
    execFileSync('tar', ['-x', '-C', work], { input: git(['archive', '--format=tar', hash, 'lib']) });
    const store = storeFile(path.join(work, 'lib'));
    transpileFrom(store);
    const entry = path.relative(work, store).replace(/\.ts$/, '.js');
    fs.writeFileSync(path.join(work, '.built'), `${entry}\n`);
    try {
      fs.renameSync(work, dir);
    } catch (err) {
      if (!fs.existsSync(built)) throw err;
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return path.join(dir, fs.readFileSync(built, 'utf8').trim());
}

module.exports = { buildRelease };

if (require.main === module) {
  try {
    process.stdout.write(`${buildRelease(process.argv[2] ?? 'HEAD')}\n`);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
