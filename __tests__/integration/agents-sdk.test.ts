/** The pinned OpenAI Agents SDK (`@openai/agents`, the last release whose engines admit Node 20): the cases of helpers/agents-sdk-cases.ts. */
import { agentsSdkCases } from '../helpers/agents-sdk-cases';

agentsSdkCases('@openai/agents');
