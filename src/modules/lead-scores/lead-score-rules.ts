import { HearthError } from '../../core/errors.ts';
import { ID_PREFIXES, parseKey } from '../../core/ids.ts';
import type { LeadScoreEntity } from './lead-score.repository.ts';

/**
 * How a definition computes its score (docs/lead-scores.md), as stored in lead_score_definitions.rules:
 *
 *   score = min(scoreCap, min(activityCap, Σ weight × 0.5^(age in days / halfLifeDays)) + Σ fit points)
 *
 * over the entity's activities of the last `lookbackDays`, each taking the weight of the most specific
 * rule that matches it (activity type and source and sub-source, then type and source, then type), rounded
 * to 2 decimals. A cap that is null does not apply.
 */
export interface ScoreRules {
  halfLifeDays: number;
  lookbackDays: number;
  activityCap: number | null;
  scoreCap: number | null;
  weights: WeightRule[];
  fit: FitRule[];
}

export interface WeightRule {
  activityType: string;
  sourceId: number | null;
  subSource: string | null;
  weight: number;
}

export type FitRule =
  | { field: 'titleSeniority'; values: string[]; points: number }
  | { field: 'organizationSize'; min: number | null; max: number | null; points: number }
  | { field: 'country'; values: string[]; points: number }
  | { field: 'tag'; tagId: number; points: number }
  | { field: 'customField'; customFieldId: number; values: string[]; points: number };

export const FIT_FIELDS = ['titleSeniority', 'organizationSize', 'country', 'tag', 'customField'] as const;

/** A fit rule as the API takes it: which of its members apply depends on `field`. */
export interface FitRuleInput {
  field: (typeof FIT_FIELDS)[number];
  points: number;
  values?: string[];
  min?: number;
  max?: number;
  tagId?: string;
  customFieldId?: string;
}

export interface WeightRuleInput {
  activityType: string;
  sourceId?: number;
  subSource?: string;
  weight: number;
}

/** What an admin gives for the computation (create, dry run; update gives some of it). */
export interface RulesInput {
  halfLifeDays?: number;
  lookbackDays?: number;
  activityCap?: number | null;
  scoreCap?: number | null;
  weights?: WeightRuleInput[];
  fit?: FitRuleInput[];
}

export const DEFAULT_HALF_LIFE_DAYS = 30;
export const DEFAULT_LOOKBACK_DAYS = 365;

/** Where each fit rule's members belong: the others are refused, naming them. */
const MEMBERS: Record<FitRuleInput['field'], (keyof FitRuleInput)[]> = {
  titleSeniority: ['values'],
  organizationSize: ['min', 'max'],
  country: ['values'],
  tag: ['tagId'],
  customField: ['customFieldId', 'values'],
};

const bad = (problems: string[]) => new HearthError('invalid_lead_score', problems.join('; '));

/**
 * The rules of a definition from what an admin gave, checked as a whole: every problem is named by its
 * path in the body (`fit.2.values`), in one 400. `seniorities` are the title classifier's classes.
 */
export function checkRules(input: RulesInput, entityType: LeadScoreEntity, seniorities: readonly string[]): ScoreRules {
  const problems: string[] = [];
  const rules: ScoreRules = {
    halfLifeDays: input.halfLifeDays ?? DEFAULT_HALF_LIFE_DAYS,
    lookbackDays: input.lookbackDays ?? DEFAULT_LOOKBACK_DAYS,
    activityCap: input.activityCap ?? null,
    scoreCap: input.scoreCap ?? null,
    weights: [],
    fit: [],
  };
  const seen = new Map<string, number>();
  (input.weights ?? []).forEach((weight, index) => {
    const at = `weights.${index}`;
    const activityType = weight.activityType.trim();
    if (!activityType) problems.push(`"${at}.activityType" must not be blank`);
    const subSource = weight.subSource === undefined ? null : weight.subSource.trim();
    if (subSource !== null && weight.sourceId === undefined) problems.push(`"${at}.subSource" needs "${at}.sourceId": a sub-source belongs to a source`);
    if (subSource === '') problems.push(`"${at}.subSource" must not be blank`);
    const key = JSON.stringify([activityType, weight.sourceId ?? null, subSource]);
    const earlier = seen.get(key);
    if (earlier !== undefined) problems.push(`"${at}" matches the same activities as "weights.${earlier}" (same activityType, sourceId and subSource)`);
    else seen.set(key, index);
    rules.weights.push({ activityType, sourceId: weight.sourceId ?? null, subSource, weight: weight.weight });
  });
  (input.fit ?? []).forEach((rule, index) => {
    const at = `fit.${index}`;
    const allowed = MEMBERS[rule.field];
    for (const member of ['values', 'min', 'max', 'tagId', 'customFieldId'] as const) {
      if (rule[member] !== undefined && !allowed.includes(member)) problems.push(`"${at}.${member}" does not apply to a ${rule.field} rule`);
    }
    const values = () => {
      const given = (rule.values ?? []).map((value) => value.trim());
      if (given.length === 0) problems.push(`"${at}.values" is required for a ${rule.field} rule (at least one value)`);
      return given;
    };
    switch (rule.field) {
      case 'titleSeniority': {
        if (entityType !== 'contact') problems.push(`"${at}.field": titleSeniority applies to contact scores only`);
        const given = values();
        given.forEach((value, position) => {
          if (!seniorities.includes(value)) problems.push(`"${at}.values.${position}" must be one of ${seniorities.join(', ')} (not "${value}")`);
        });
        rules.fit.push({ field: 'titleSeniority', values: given, points: rule.points });
        break;
      }
      case 'organizationSize': {
        if (rule.min === undefined && rule.max === undefined) problems.push(`"${at}" needs "min", "max" or both for an organizationSize rule`);
        if (rule.min !== undefined && rule.max !== undefined && rule.min > rule.max) problems.push(`"${at}.min" must not be greater than "${at}.max"`);
        rules.fit.push({ field: 'organizationSize', min: rule.min ?? null, max: rule.max ?? null, points: rule.points });
        break;
      }
      case 'country':
        rules.fit.push({ field: 'country', values: values(), points: rule.points });
        break;
      case 'tag': {
        const tagId = prefixed(rule.tagId, 'tag');
        if (tagId === null) problems.push(`"${at}.tagId" is required for a tag rule, as l_<number>${rule.tagId === undefined ? '' : ` (not "${rule.tagId}")`}`);
        rules.fit.push({ field: 'tag', tagId: tagId ?? 0, points: rule.points });
        break;
      }
      case 'customField': {
        const customFieldId = prefixed(rule.customFieldId, 'custom_field');
        if (customFieldId === null) {
          problems.push(
            `"${at}.customFieldId" is required for a customField rule, as cf_<number>${rule.customFieldId === undefined ? '' : ` (not "${rule.customFieldId}")`}`,
          );
        }
        rules.fit.push({ field: 'customField', customFieldId: customFieldId ?? 0, values: values(), points: rule.points });
        break;
      }
    }
  });
  if (rules.weights.length === 0 && rules.fit.length === 0) problems.push('"weights" and "fit" are both empty: a score needs at least one weight or fit rule');
  if (problems.length) throw bad(problems);
  return rules;
}

function prefixed(value: string | undefined, entity: 'tag' | 'custom_field'): number | null {
  if (value === undefined) return null;
  const prefix = ID_PREFIXES[entity];
  return value.startsWith(prefix) ? parseKey(value.slice(prefix.length)) : null;
}

/** Rules as an admin reads them back: the API's shape (prefixed IDs, no member that does not apply). */
export function presentRules(rules: ScoreRules) {
  return {
    halfLifeDays: rules.halfLifeDays,
    lookbackDays: rules.lookbackDays,
    activityCap: rules.activityCap,
    scoreCap: rules.scoreCap,
    weights: rules.weights.map((weight) => ({
      activityType: weight.activityType,
      ...(weight.sourceId === null ? {} : { sourceId: weight.sourceId }),
      ...(weight.subSource === null ? {} : { subSource: weight.subSource }),
      weight: weight.weight,
    })),
    fit: rules.fit.map((rule) => {
      switch (rule.field) {
        case 'organizationSize':
          return { field: rule.field, ...(rule.min === null ? {} : { min: rule.min }), ...(rule.max === null ? {} : { max: rule.max }), points: rule.points };
        case 'tag':
          return { field: rule.field, tagId: `${ID_PREFIXES.tag}${rule.tagId}`, points: rule.points };
        case 'customField':
          return { field: rule.field, customFieldId: `${ID_PREFIXES.custom_field}${rule.customFieldId}`, values: rule.values, points: rule.points };
        default:
          return { field: rule.field, values: rule.values, points: rule.points };
      }
    }),
  };
}

/** The input form of stored rules (for an update that changes some of them). */
export function rulesInput(rules: ScoreRules): RulesInput {
  return presentRules(rules) as RulesInput;
}
