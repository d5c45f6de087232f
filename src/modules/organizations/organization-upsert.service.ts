import type { Kysely, Transaction } from 'kysely';
import type { Static } from 'typebox';
import { checkRepeatedSource, unknownFieldWarnings } from '../../core/core-bodies.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { retryingTransaction } from '../../db/transaction.ts';
import { HearthError, notFound } from '../../core/errors.ts';
import { formatId, parseCoreId } from '../../core/ids.ts';
import { auditTx } from '../audit/index.ts';
import type { Writer } from '../../core/writer.ts';
import { customFieldTx } from '../custom-fields/index.ts';
import { leadScoreTx } from '../lead-scores/index.ts';
import { sourceTx } from '../sources/index.ts';
import { tagTx } from '../tags/index.ts';
import { registrableDomain } from './domains.ts';
import * as organizations from './organization-write.repository.ts';
import { SourceUpsertBody } from './organization.schemas.ts';

/** What both core organization upserts say, after their own rules picked the organization. */
export interface OrganizationUpsert {
  domain?: string | null;
  /** Source of a new organization. */
  sourceId?: number | null;
  /** Organization to update instead of finding or creating one (groupAttributesId). */
  organizationId?: number | null;
  prospectorCompanyId?: number | null;
  customFields?: { customFieldId: unknown; customFieldValue?: { type?: unknown; value?: unknown } | null }[] | null;
  tagIdsToAdd?: (string | number)[] | null;
  tagIdsToRemove?: (string | number)[] | null;
}

const badBody = (detail: string) => new HearthError('invalid_parameters', detail, { coreReason: 'invalid-request-body' });

export function createOrganizationUpsertService(deps: { db: Kysely<DB>; clock: Clock }) {
  async function checkSource(communityId: number, sourceId: number | null | undefined) {
    if (sourceId === null || sourceId === undefined) return null;
    if (!(await sourceTx.findSource(deps.db, communityId, sourceId))) throw notFound('source_not_found', `no source ${sourceId}`);
    return sourceId;
  }

  /** The organization this upsert is about: named by ID, found by domain, or made from the domain. */
  async function target(trx: Transaction<DB>, communityId: number, input: OrganizationUpsert, domain: string | null, sourceId: number | null, now: Date) {
    if (input.organizationId !== null && input.organizationId !== undefined) {
      const found = await organizations.findOrganization(trx, communityId, input.organizationId);
      if (!found) throw notFound('org_not_found', `no organization ${input.organizationId}`);
      return { organization: found, created: false };
    }
    if (!domain) throw badBody('give a domain, a groupAttributesId or a prospectorCompanyId');
    const found = await organizations.findOrganizationByDomain(trx, communityId, domain);
    if (found) return { organization: found, created: false };
    if (sourceId === null) throw badBody('destinationSourceId is needed to create an organization');
    const label = domain.split('.')[0] ?? domain;
    const made = await organizations.insertOrganization(trx, {
      communityId,
      name: label.charAt(0).toUpperCase() + label.slice(1),
      domain,
      sourceId,
      now,
    });
    return { organization: made, created: true };
  }

  async function upsert(writer: Writer, input: OrganizationUpsert) {
    const { communityId } = writer;
    const sourceId = await checkSource(communityId, input.sourceId);
    const company =
      input.prospectorCompanyId === null || input.prospectorCompanyId === undefined
        ? null
        : await organizations.findProspectorCompany(deps.db, input.prospectorCompanyId);
    if (input.prospectorCompanyId != null && !company) throw notFound('prospector_company_not_found', `no prospector company ${input.prospectorCompanyId}`);
    let domain: string | null = null;
    if (input.domain) {
      domain = registrableDomain(input.domain);
      if (!domain) throw badBody(`domain "${input.domain}" is not a domain`);
    } else if (company) {
      // The company's import key is its registrable domain; only a row written some other way lacks it,
      // and then its website is the best there is.
      domain = company.primaryDomain ?? (company.primaryWebsite ? registrableDomain(company.primaryWebsite) : null);
    }

    return retryingTransaction(deps.db, async (trx) => {
      const now = deps.clock.now();
      const { organization, created } = await target(trx, communityId, input, domain, sourceId, now);
      const values = await customFieldTx.checkCustomFieldWrites(
        trx,
        { communityId, entityType: 'organization', sourceId },
        (input.customFields ?? []).map((entry, index) => ({ field: entry.customFieldId, value: entry.customFieldValue, path: `customFields[${index}]` })),
      );
      const tags = async (given: (string | number)[] | null | undefined, field: string) => {
        if (!given?.length) return [];
        const { tagIds, invalid } = await tagTx.resolveTagRefs(
          trx,
          communityId,
          given.map((id) => ({ type: 'id' as const, id: String(id) })),
          'company',
        );
        if (invalid.length) throw badBody(`${field}: no live organization tag ${invalid.join(', ')}`);
        return tagIds;
      };
      const adding = await tags(input.tagIdsToAdd, 'tagIdsToAdd');
      const removing = await tags(input.tagIdsToRemove, 'tagIdsToRemove');
      if (company) await organizations.updateOrganizationFromProspector(trx, communityId, organization.id, company, now);
      await customFieldTx.writeValues(trx, { communityId, entityType: 'organization', entityId: organization.id, now }, values);
      await tagTx.assignTags(trx, communityId, 'organization', organization.id, adding);
      await tagTx.unassignTags(trx, communityId, 'organization', organization.id, removing);
      await leadScoreTx.markForScoring(trx, communityId, [{ entityType: 'organization', entityId: organization.id }]);
      await auditTx.recordWrite(trx, writer, {
        operation: 'organization.upsert',
        entityIds: [formatId('organization', organization.id), ...[...adding, ...removing].map((id) => formatId('tag', id))],
        detail: {
          created,
          sourceId,
          customFields: values.map((value) => formatId('custom_field', value.fieldId)),
          tagsAdded: adding.map((id) => formatId('tag', id)),
          tagsRemoved: removing.map((id) => formatId('tag', id)),
        },
      });
      return { status: 'success' as const, organizationId: formatId('organization', organization.id), created };
    });
  }

  return {
    upsert,

    /**
     * An organization upserted into a source: POST /community/v1/source/{id}/organization, and an
     * organization line of a file import. Unknown body fields are named in `warnings`.
     */
    async upsertInSource(writer: Writer, sourceId: number, body: Static<typeof SourceUpsertBody>) {
      checkRepeatedSource(sourceId, body.sourceId, 'sourceId');
      const result = await upsert(writer, { ...body, sourceId });
      return { ...result, warnings: unknownFieldWarnings(body, SOURCE_UPSERT_FIELDS) };
    },
  };
}

const SOURCE_UPSERT_FIELDS = Object.keys(SourceUpsertBody.properties);

export type OrganizationUpsertService = ReturnType<typeof createOrganizationUpsertService>;

/** Core IDs are integers, also accepted as prefixed strings (docs/behaviour.md, IDs). */
export function coreKey(entity: 'provider' | 'organization' | 'prospector_company', value: unknown): number | null {
  if (value === undefined || value === null) return null;
  return parseCoreId(entity, value as string | number);
}
