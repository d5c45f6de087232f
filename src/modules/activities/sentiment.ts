import { forAnalysis, sentimentNlp } from './language-model.ts';

export type Sentiment = 'positive' | 'negative' | 'neutral';

/**
 * wink-nlp scores a document from -1 (very negative) to +1 (very positive); text with no sentiment-bearing
 * word scores exactly 0. A score of at least +0.1 is positive, at most -0.1 negative, anything between is
 * neutral: the dead band keeps faint signals ("Could you add support for dark mode?" scores +0.01) neutral.
 */
export const SENTIMENT_THRESHOLD = 0.1;

/** The sentiment of plain text (pass `plainText(content)`); empty text is neutral. */
export function sentimentOf(text: string): Sentiment {
  try {
    if (typeof text !== 'string') return 'neutral';
    const sample = forAnalysis(text);
    if (!/[\p{L}\p{Extended_Pictographic}]|[:;]-?[()DPp]/u.test(sample)) return 'neutral';
    const winkNlp = sentimentNlp();
    const score = winkNlp.readDoc(sample).out(winkNlp.its.sentiment) as number;
    if (!Number.isFinite(score)) return 'neutral';
    if (score >= SENTIMENT_THRESHOLD) return 'positive';
    if (score <= -SENTIMENT_THRESHOLD) return 'negative';
    return 'neutral';
  } catch {
    return 'neutral';
  }
}
