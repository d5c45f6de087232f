import { contextOf, type HearthApp } from '../../http/types.ts';
import { BulkUpdateResult, ContactBulkUpdateBody, ObjectBulkUpdateBody, OrganizationBulkUpdateBody } from './bulk-update.schemas.ts';
import type { BulkUpdateService } from './bulk-update.service.ts';

const RULES =
  'Everything is checked before anything is written: every record ID (malformed, unknown, or of another community), the segment ' +
  '(it exists and is of the entity type), every tag (it exists, is not deleted and applies to the entity) and every custom field ' +
  '(it exists, applies to the entity, and the value fits its definition). Any fault answers one 400 whose `error.invalidIds` names ' +
  'every offending ID, and nothing is written. Otherwise all changes are made in one transaction. Each change is idempotent ' +
  '(records already in the segment, tags already assigned, values already set are skipped), so a request can be retried whole. ' +
  '`data.ids` lists every record ID of the request, skipped ones included. At least one change is required.';

export function bulkUpdateRoutes(app: HearthApp, services: { bulkUpdates: BulkUpdateService }) {
  app.post(
    '/api/v2/contacts/bulk-update',
    {
      config: { auth: { all: ['contacts:write'] } },
      schema: {
        operationId: 'bulkUpdateContacts',
        tags: ['v2'],
        summary: 'Bulk-update contacts',
        description: `Adds 1..100 contacts to a segment, adds and removes tags, and sets custom field values. ${RULES} A merged contact's ID stands for the contact it was merged into.`,
        body: ContactBulkUpdateBody,
        response: { 200: BulkUpdateResult },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.bulkUpdates.update(contextOf(request), 'contact', { ...request.body, ids: request.body.contactIds }),
    }),
  );

  app.post(
    '/api/v2/organizations/bulk-update',
    {
      config: { auth: { all: ['organizations:write'] } },
      schema: {
        operationId: 'bulkUpdateOrganizations',
        tags: ['v2'],
        summary: 'Bulk-update organizations',
        description: `Adds 1..100 organizations to a segment, adds and removes tags, and sets custom field values. ${RULES}`,
        body: OrganizationBulkUpdateBody,
        response: { 200: BulkUpdateResult },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.bulkUpdates.update(contextOf(request), 'organization', { ...request.body, ids: request.body.organizationIds }),
    }),
  );

  app.post(
    '/api/v2/objects/bulk-update',
    {
      config: { auth: { all: ['objects:write'] } },
      schema: {
        operationId: 'bulkUpdateObjects',
        tags: ['v2'],
        summary: 'Bulk-update custom objects',
        description: `Adds 1..100 custom objects to an object segment of their type and sets custom field values (no tags). ${RULES}`,
        body: ObjectBulkUpdateBody,
        response: { 200: BulkUpdateResult },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.bulkUpdates.update(contextOf(request), 'object', { ...request.body, ids: request.body.objectIds }),
    }),
  );
}
