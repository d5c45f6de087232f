/**
 * The title classifier: a person's seniority and department from their job title, by the rules of
 * title-rules.ts. Pure, no database; a title not in English, or not a title, is left unclassified.
 */
import { DEPARTMENT_TIERS, FOREIGN_WORDS, OTHER_PEOPLES_RANKS, SENIORITY_RULES, type DepartmentKey, type SeniorityKey } from './title-rules.ts';

export interface TitleClass {
  seniority: SeniorityKey | null;
  department: DepartmentKey | null;
}

const UNCLASSIFIED: TitleClass = { seniority: null, department: null };

/** Only the start of a title is read: longer text is a biography, not a title. */
const MAX_TITLE = 200;

/** A letter outside ASCII: a title in another language (or another script). */
const NON_ASCII_LETTER = /(?![a-zA-Z])\p{L}/u;

/**
 * The title as the rules read it: lowercase ASCII words separated by single spaces (`Sr.Software` → `sr
 * software`), initials joined (`V.P.` → `vp`), apostrophes dropped, `&` a word of its own, and a lowercase
 * "it" in a title with capitals (the pronoun: "Making it happen") left out; null when the title holds
 * letters outside ASCII (another language or script).
 */
export function normalizeTitle(title: string): string | null {
  const text = title.normalize('NFKC').slice(0, MAX_TITLE);
  if (NON_ASCII_LETTER.test(text)) return null;
  const pronoun = /[A-Z]/.test(text) ? /\bit\b/g : null;
  return (pronoun ? text.replace(pronoun, ' ') : text)
    .toLowerCase()
    .replace(/\b(?:[a-z]\.){2,}/g, (initials) => initials.replace(/\./g, ''))
    .replace(/['’]/g, '')
    .replace(/&/g, ' & ')
    .replace(/[^a-z0-9&]+/g, ' ')
    .trim();
}

/** The department rules with the `g` flag, so each can give every match. */
const TIERS = DEPARTMENT_TIERS.map((tier) => tier.map((rule) => ({ key: rule.key, pattern: new RegExp(rule.pattern.source, 'g') })));

/** The department of the first tier with a match: the earliest match in the title, then the longest, then the rule listed first. */
function departmentOf(text: string): DepartmentKey | null {
  for (const tier of TIERS) {
    let best: { key: DepartmentKey; index: number; length: number } | null = null;
    for (const rule of tier) {
      for (const match of text.matchAll(rule.pattern)) {
        if (!best || match.index < best.index || (match.index === best.index && match[0].length > best.length)) {
          best = { key: rule.key, index: match.index, length: match[0].length };
        }
      }
    }
    if (best) return best.key;
  }
  return null;
}

function seniorityOf(text: string): SeniorityKey | null {
  return SENIORITY_RULES.find((rule) => rule.pattern.test(text))?.key ?? null;
}

/**
 * The seniority and department of an English job title (each null when the title does not say). A title
 * with a department and no rank word is an individual contributor's.
 */
export function classifyTitle(title: string | null | undefined): TitleClass {
  if (typeof title !== 'string') return UNCLASSIFIED;
  const normalized = normalizeTitle(title);
  if (!normalized || !/[a-z]/.test(normalized)) return UNCLASSIFIED;
  if (normalized.split(' ').some((word) => FOREIGN_WORDS.has(word))) return UNCLASSIFIED;
  const text = OTHER_PEOPLES_RANKS.reduce((rest, phrase) => rest.replace(phrase, ' '), ` ${normalized} `)
    .replace(/ +/g, ' ')
    .trim();
  const department = departmentOf(text);
  const seniority = seniorityOf(text) ?? (department ? 'individual_contributor' : null);
  return { seniority, department };
}

/**
 * classifyTitle, remembering the titles it has seen (many people share a title): the map is dropped when
 * it holds `limit` titles.
 */
export function createTitleClassifier(limit = 50_000): (title: string | null | undefined) => TitleClass {
  const known = new Map<string, TitleClass>();
  return (title) => {
    if (typeof title !== 'string') return UNCLASSIFIED;
    let found = known.get(title);
    if (!found) {
      if (known.size >= limit) known.clear();
      found = classifyTitle(title);
      known.set(title, found);
    }
    return found;
  };
}
