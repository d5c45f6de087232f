import { jsonObjectIn, LlmError, type ChatMessage } from './llm-client.ts';
import type { OrganizationFacts } from './research-insights.repository.ts';

export const RESEARCH_SYSTEM_PROMPT = `You answer one research question about an organization, for the team of an online community the organization's people take part in.
Use only the facts given: the organization's own record, its people's job titles, the topics of their recent activity, its job openings and news.
Invent nothing. When the facts do not answer the question, say so in one sentence.
Plain language, no markdown, at most 120 words.
Answer with one JSON object and nothing else: {"answer": string}`;

/** The chat a research answer is asked with: the instructions, then the question and the facts as JSON. */
export function researchMessages(question: string, facts: OrganizationFacts): ChatMessage[] {
  return [
    { role: 'system', content: RESEARCH_SYSTEM_PROMPT },
    { role: 'user', content: JSON.stringify({ question, organization: facts }) },
  ];
}

const MAX_ANSWER = 4000;

/** The model's answer, checked; anything else throws LlmError, and no answer is shown. */
export function checkResearchAnswer(content: string): string {
  const answer = jsonObjectIn(content)?.answer;
  if (typeof answer !== 'string') throw new LlmError('the answer is not a JSON object with an "answer" string', false);
  const trimmed = answer.trim();
  if (!trimmed) throw new LlmError('the answer is empty', false);
  if (trimmed.length > MAX_ANSWER) throw new LlmError(`the answer is longer than ${MAX_ANSWER} characters`, false);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(trimmed)) throw new LlmError('the answer holds control characters', false);
  return trimmed;
}
