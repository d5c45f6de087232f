import { parseId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { CustomFieldDefinitionItem, CustomFieldDefinitionList, CustomFieldParams, CustomFieldsQuery } from './custom-field.schemas.ts';
import type { CustomFieldDefinitionService } from './custom-field-definitions.service.ts';

export function customFieldDefinitionRoutes(app: HearthApp, services: { customFields: CustomFieldDefinitionService }) {
  app.get(
    '/api/v2/custom-fields',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'listCustomFields',
        tags: ['v2'],
        summary: 'List custom field definitions',
        description: 'Every live custom field in ID order (deleted ones are left out); `entityType` keeps those of one entity type. Not paged.',
        querystring: CustomFieldsQuery,
        response: { 200: CustomFieldDefinitionList },
      },
    },
    async (request) => ({ success: true as const, data: await services.customFields.list(contextOf(request).communityId, request.query) }),
  );

  app.get(
    '/api/v2/custom-fields/:id',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'getCustomField',
        tags: ['v2'],
        summary: 'Get a custom field definition',
        description: 'A deleted custom field is a 404, as a missing one.',
        params: CustomFieldParams,
        response: { 200: CustomFieldDefinitionItem },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.customFields.get(contextOf(request).communityId, parseId('custom_field', request.params.id)),
    }),
  );
}
