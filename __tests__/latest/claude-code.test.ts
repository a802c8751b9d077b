/** The newest Claude Code (`claude-code-latest`: npm:@anthropic-ai/claude-code, whose engines want Node 22) through the pinned release's file task. */
import { claudeBinary } from '../helpers/claude-code';
import { claudeCodeFileTask } from '../helpers/claude-code-cases';
import { devSpec, installedVersion, requireModernNode } from '../helpers/modern-node';
import { execFileSync } from 'node:child_process';

requireModernNode('Claude Code 2.1.198 and later');

it('is the newest release the package pins, and its native binary is that release', () => {
  const version = installedVersion('claude-code-latest');
  expect(`npm:@anthropic-ai/claude-code@${version}`).toBe(devSpec('claude-code-latest'));
  expect(execFileSync(claudeBinary('claude-code-latest'), ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent' } })).toContain(version);
});

claudeCodeFileTask('claude-code-latest');
