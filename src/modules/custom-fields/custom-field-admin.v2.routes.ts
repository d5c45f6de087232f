import { contextOf, type HearthApp } from '../../http/types.ts';
import { CustomFieldParams } from './custom-field.schemas.ts';
import {
  AdminCustomFieldResponse,
  AdminCustomFieldsQuery,
  AdminCustomFieldsResponse,
  CustomFieldChangesBody,
  NewCustomFieldBody,
} from './custom-field-admin.schemas.ts';
import { parseCustomFieldId, type CustomFieldAdminService } from './custom-field-admin.service.ts';

export function customFieldAdminRoutes(app: HearthApp, services: { customFieldAdmin: CustomFieldAdminService }) {
  const admin = { auth: { all: ['admin' as const] } };

  app.post(
    '/api/v2/admin/custom-fields',
    {
      config: admin,
      schema: {
        operationId: 'createCustomField',
        tags: ['admin'],
        summary: 'Define a custom field',
        description: 'For contacts, organizations and/or custom objects. An enum field needs `allowedValues`; `multivalue` makes it a multi-select.',
        body: NewCustomFieldBody,
        response: { 201: AdminCustomFieldResponse },
      },
    },
    async (request, reply) => reply.code(201).send({ success: true as const, data: await services.customFieldAdmin.create(contextOf(request), request.body) }),
  );

  app.get(
    '/api/v2/admin/custom-fields',
    {
      config: admin,
      schema: {
        operationId: 'listAdminCustomFields',
        tags: ['admin'],
        summary: 'List custom field definitions with what decides their writes',
        querystring: AdminCustomFieldsQuery,
        response: { 200: AdminCustomFieldsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.customFieldAdmin.list(contextOf(request).communityId, request.query.includeRetired ?? false),
    }),
  );

  app.get(
    '/api/v2/admin/custom-fields/:id',
    {
      config: admin,
      schema: {
        operationId: 'getAdminCustomField',
        tags: ['admin'],
        summary: 'Get a custom field definition, retired or not',
        params: CustomFieldParams,
        response: { 200: AdminCustomFieldResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.customFieldAdmin.get(contextOf(request).communityId, parseCustomFieldId(request.params.id)),
    }),
  );

  app.patch(
    '/api/v2/admin/custom-fields/:id',
    {
      config: admin,
      schema: {
        operationId: 'updateCustomField',
        tags: ['admin'],
        summary: 'Change a custom field',
        description:
          'What is given changes. Refused with 409 when records hold values and the type (or multivalue) would change, or when an allowed value that records hold would be dropped; the error says how many.',
        params: CustomFieldParams,
        body: CustomFieldChangesBody,
        response: { 200: AdminCustomFieldResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.customFieldAdmin.update(contextOf(request), parseCustomFieldId(request.params.id), request.body),
    }),
  );

  app.delete(
    '/api/v2/admin/custom-fields/:id',
    {
      config: admin,
      schema: {
        operationId: 'retireCustomField',
        tags: ['admin'],
        summary: 'Retire a custom field',
        description: 'No longer shown, filtered, sorted or written; its values stay stored. A retired field answers 404 here.',
        params: CustomFieldParams,
        response: { 200: AdminCustomFieldResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.customFieldAdmin.retire(contextOf(request), parseCustomFieldId(request.params.id)) }),
  );
}
