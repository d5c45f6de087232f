import { HearthError, invalidParameters, type HearthErrorCode } from '../../core/errors.ts';
import { formatId, ID_PREFIXES, parseKey, type IdEntity } from '../../core/ids.ts';
import { checkCustomFieldValue } from '../custom-fields/index.ts';
import type { SegmentRef } from '../segments/index.ts';
import type { FieldDefinition, TagState } from './bulk-update.repository.ts';
import type { BulkTarget } from './bulk-update-targets.ts';

/**
 * The rules of a bulk update, apart from the database: what a request names (parseRequest), and, once the
 * named rows are loaded, every fault in it and the changes to make (checkRequest). No fault stops the
 * checking: the caller answers all of them in one 400, or applies the plan.
 */

/** A bulk update body, whichever entity it is for (the record IDs taken from the entity's own field). */
export interface BulkUpdateInput {
  ids: string[];
  segmentId?: string;
  tagIdsToAdd?: string[];
  tagIdsToRemove?: string[];
  customFields?: { customFieldId: string; customFieldValue: { type: string; value: unknown } }[];
}

/** One ID of the request: as given, where it was, and its key (null when it is no ID of its kind). */
export interface Named {
  given: string;
  path: string;
  key: number | null;
}

export interface ParsedRequest {
  /** The record IDs, once each, in request order. */
  records: Named[];
  segment: Named | null;
  tagsToAdd: Named[];
  tagsToRemove: Named[];
  fields: (Named & { value: { type: string; value: unknown } })[];
}

/** What was found for the keys of a request, read in the update's transaction. */
export interface Loaded {
  /** Given record key → the live record it names (a merged contact's survivor). Unknown keys are absent. */
  records: Map<number, number>;
  /** Live record → its object type (custom objects; null for the others). */
  objectTypes: Map<number, number | null>;
  segment: SegmentRef | undefined;
  tags: Map<number, TagState>;
  fields: Map<number, FieldDefinition>;
}

export interface Plan {
  /** Live records in ID order, once each. */
  recordIds: number[];
  segmentId: number | null;
  addTagIds: number[];
  removeTagIds: number[];
  /** null clears the field. */
  values: { fieldId: number; value: unknown }[];
}

type FaultKind = 'record' | 'segment' | 'tag' | 'custom_field' | 'custom_field_value';

export interface Fault {
  kind: FaultKind;
  path: string;
  given: string;
  reason: string;
}

const keyOf = (entity: IdEntity, given: string): number | null =>
  given.startsWith(ID_PREFIXES[entity]) ? parseKey(given.slice(ID_PREFIXES[entity].length)) : null;

const named = (entity: IdEntity, given: string, path: string): Named => ({ given, path, key: keyOf(entity, given) });

const expected = (entity: IdEntity) => `expected ${ID_PREFIXES[entity]}<number>`;

/** "a contact", "an organization", "an object". */
const withArticle = (noun: string) => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;

const otherTypeText = (ids: string[]) => `${ids.join(', ')} ${ids.length === 1 ? 'is' : 'are'} of another type`;

export function parseRequest(target: BulkTarget, input: BulkUpdateInput): ParsedRequest {
  const tagsToAdd = input.tagIdsToAdd ?? [];
  const tagsToRemove = input.tagIdsToRemove ?? [];
  const fields = input.customFields ?? [];
  if (input.segmentId === undefined && tagsToAdd.length === 0 && tagsToRemove.length === 0 && fields.length === 0) {
    const changes = target.tagEntityType ? 'segmentId, tagIdsToAdd, tagIdsToRemove or customFields' : 'segmentId or customFields';
    throw invalidParameters(`a bulk update needs at least one change: ${changes}`);
  }
  const seen = new Set<string>();
  const records: Named[] = [];
  input.ids.forEach((given, index) => {
    if (seen.has(given)) return;
    seen.add(given);
    records.push(named(target.idEntity, given, `${target.idsField}[${index}]`));
  });
  return {
    records,
    segment: input.segmentId === undefined ? null : named('segment', input.segmentId, 'segmentId'),
    tagsToAdd: tagsToAdd.map((given, index) => named('tag', given, `tagIdsToAdd[${index}]`)),
    tagsToRemove: tagsToRemove.map((given, index) => named('tag', given, `tagIdsToRemove[${index}]`)),
    fields: fields.map((entry, index) => ({
      ...named('custom_field', entry.customFieldId, `customFields[${index}].customFieldId`),
      value: entry.customFieldValue,
    })),
  };
}

/** Keys to load, per kind: only well-formed ones, once each. */
export function keysOf(parsed: ParsedRequest) {
  const keys = (list: Named[]) => [...new Set(list.flatMap((item) => (item.key === null ? [] : [item.key])))];
  return {
    records: keys(parsed.records),
    segment: parsed.segment?.key ?? null,
    tags: keys([...parsed.tagsToAdd, ...parsed.tagsToRemove]),
    fields: keys(parsed.fields),
  };
}

export function checkRequest(target: BulkTarget, parsed: ParsedRequest, loaded: Loaded): { faults: Fault[]; plan: Plan } {
  const faults: Fault[] = [];
  const fault = (kind: FaultKind, item: Named, reason: string) => faults.push({ kind, path: item.path, given: item.given, reason });

  const live = new Set<number>();
  for (const item of parsed.records) {
    const id = item.key === null ? undefined : loaded.records.get(item.key);
    if (item.key === null) fault('record', item, `not ${withArticle(target.label)} ID (${expected(target.idEntity)})`);
    else if (id === undefined) fault('record', item, `no ${target.label} with this ID`);
    else live.add(id);
  }
  const recordIds = [...live].sort((a, b) => a - b);
  /** Live records whose object type is not `objectTypeId`, as IDs for a message. */
  const ofOtherType = (objectTypeId: number) =>
    recordIds.filter((id) => loaded.objectTypes.get(id) !== objectTypeId).map((id) => formatId(target.idEntity, id));

  let segmentId: number | null = null;
  const segment = parsed.segment;
  if (segment) {
    const found = loaded.segment;
    if (segment.key === null) fault('segment', segment, `not a segment ID (${expected('segment')})`);
    else if (!found) fault('segment', segment, 'no segment with this ID');
    else if (found.entityType !== target.entity)
      fault('segment', segment, `${withArticle(found.entityType)} segment, not ${withArticle(target.entity)} segment`);
    else if (found.objectTypeId !== null && ofOtherType(found.objectTypeId).length) {
      fault('segment', segment, `a segment of object type ${formatId('object_type', found.objectTypeId)}; ${otherTypeText(ofOtherType(found.objectTypeId))}`);
    } else segmentId = found.id;
  }

  const checkTag = (item: Named): number | null => {
    const tag = item.key === null ? undefined : loaded.tags.get(item.key);
    if (item.key === null) fault('tag', item, `not a tag ID (${expected('tag')})`);
    else if (!tag) fault('tag', item, 'no tag with this ID');
    else if (tag.deleted) fault('tag', item, 'the tag is deleted');
    else if (!tag.entityTypes.includes(target.tagEntityType ?? '')) {
      fault('tag', item, `the tag does not apply to ${target.label}s (it allows ${tag.entityTypes.join(', ') || 'nothing'})`);
    } else return tag.id;
    return null;
  };
  const addTagIds = new Set<number>();
  for (const item of parsed.tagsToAdd) {
    const id = checkTag(item);
    if (id !== null) addTagIds.add(id);
  }
  const addKeys = new Set(parsed.tagsToAdd.map((item) => item.key));
  const removeTagIds = new Set<number>();
  for (const item of parsed.tagsToRemove) {
    if (item.key !== null && addKeys.has(item.key)) {
      fault('tag', item, 'also in tagIdsToAdd: a tag is either added or removed');
      continue;
    }
    const id = checkTag(item);
    if (id !== null) removeTagIds.add(id);
  }

  const values: { fieldId: number; value: unknown }[] = [];
  const fieldsSeen = new Set<number>();
  for (const item of parsed.fields) {
    const field = item.key === null ? undefined : loaded.fields.get(item.key);
    if (item.key === null) fault('custom_field', item, `not a custom field ID (${expected('custom_field')})`);
    else if (fieldsSeen.has(item.key)) fault('custom_field', item, 'the custom field is given more than once');
    else if (!field) fault('custom_field', item, 'no custom field with this ID');
    else if (field.deleted) fault('custom_field', item, 'the custom field is deleted');
    else if (!field.entityTypes.includes(target.entity)) {
      fault('custom_field', item, `the custom field does not apply to ${target.label}s (it applies to ${field.entityTypes.join(', ')})`);
    } else if (field.objectTypeId !== null && ofOtherType(field.objectTypeId).length) {
      fault('custom_field', item, `a field of object type ${formatId('object_type', field.objectTypeId)}; ${otherTypeText(ofOtherType(field.objectTypeId))}`);
    } else {
      const checked = checkCustomFieldValue(field, item.value);
      if (checked.ok) values.push({ fieldId: field.id, value: checked.value });
      else
        faults.push({ kind: 'custom_field_value', path: item.path.replace(/customFieldId$/, 'customFieldValue'), given: item.given, reason: checked.reason });
    }
    if (item.key !== null) fieldsSeen.add(item.key);
  }

  return { faults, plan: { recordIds, segmentId, addTagIds: [...addTagIds], removeTagIds: [...removeTagIds], values } };
}

/**
 * One 400 for every fault: `invalidIds` lists each offending ID as given, in request order. The code is the
 * fault's own when all faults are of one kind (`invalid_contact_id`, `invalid_tag_id`, ...), else
 * `invalid_parameters`.
 */
export function bulkUpdateError(target: BulkTarget, faults: Fault[]): HearthError {
  const codes: Record<FaultKind, HearthErrorCode> = {
    record: `invalid_${target.idEntity}_id`,
    segment: 'invalid_segment_id',
    tag: 'invalid_tag_id',
    custom_field: 'invalid_custom_field_id',
    custom_field_value: 'invalid_custom_field_value',
  };
  const kinds = new Set(faults.map((fault) => fault.kind));
  const code = kinds.size === 1 ? codes[faults[0]!.kind] : 'invalid_parameters';
  const detail = faults.map((fault) => `${fault.path} ${JSON.stringify(fault.given)}: ${fault.reason}`).join('; ');
  return new HearthError(code, `nothing was updated: ${detail}`, { invalidIds: [...new Set(faults.map((fault) => fault.given))] });
}
