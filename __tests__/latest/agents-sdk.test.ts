/** The newest OpenAI Agents SDK (`agents-latest`: npm:@openai/agents, which needs Node 22), through the same cases as the pinned one. */
import { agentsSdkCases } from '../helpers/agents-sdk-cases';
import { devSpec, installedVersion, requireModernNode } from '../helpers/modern-node';

requireModernNode('@openai/agents 0.15 and later');
agentsSdkCases('agents-latest');

it('is the newest release the package pins, on the openai 7 it depends on', () => {
  expect(`npm:@openai/agents@${installedVersion('agents-latest')}`).toBe(devSpec('agents-latest'));
  const agentsOpenai = require.resolve('@openai/agents-openai', { paths: [require.resolve('agents-latest')] });
  expect(installedVersion('openai', agentsOpenai)).toMatch(/^7\./);
});
