import { parseId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  NewAssocBody,
  NewObjectTypeBody,
  ObjectTypeAssocParams,
  ObjectTypeItem,
  ObjectTypeParams,
  ObjectUpsertBody,
  ObjectUpsertResponse,
} from './object-admin.schemas.ts';
import type { ObjectTypeAdminService } from './object-type-admin.service.ts';
import type { ObjectUpsertService } from './object-upsert.service.ts';

// 1,000 records with their custom fields and associations do not fit Fastify's default 1 MiB.
const UPSERT_BODY_LIMIT = 16 * 1024 * 1024;

/** Object types and objects come from here (and from `hearth objects import`); GET /api/v2/object-types and /objects read them. */
export function objectAdminRoutes(app: HearthApp, services: { objectTypeAdmin: ObjectTypeAdminService; objectUpserts: ObjectUpsertService }) {
  const admin = { auth: { all: ['admin' as const] } };

  app.post(
    '/api/v2/admin/object-types',
    {
      config: admin,
      schema: {
        operationId: 'createObjectType',
        tags: ['admin'],
        summary: 'Create a custom object type',
        description:
          "The name is unique in the community, whatever its case (409 otherwise). Each association links the type's objects to " +
          'contacts, organizations or objects of a type (`targetObjectTypeId`, required exactly when `targetEntity` is object). ' +
          'Answers the type as GET /api/v2/object-types shows it.',
        body: NewObjectTypeBody,
        response: { 201: ObjectTypeItem },
      },
    },
    async (request, reply) => reply.code(201).send({ success: true as const, data: await services.objectTypeAdmin.create(contextOf(request), request.body) }),
  );

  app.post(
    '/api/v2/admin/object-types/:id/assocs',
    {
      config: admin,
      schema: {
        operationId: 'addObjectTypeAssociation',
        tags: ['admin'],
        summary: 'Add an association to a custom object type',
        description: 'An `objectAssocType` the type already has is a 409. Answers the type with its associations.',
        params: ObjectTypeParams,
        body: NewAssocBody,
        response: { 201: ObjectTypeItem },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        success: true as const,
        data: await services.objectTypeAdmin.addAssoc(contextOf(request), parseId('object_type', request.params.id), request.body),
      }),
  );

  app.delete(
    '/api/v2/admin/object-types/:id/assocs/:objectAssocType',
    {
      config: admin,
      schema: {
        operationId: 'removeObjectTypeAssociation',
        tags: ['admin'],
        summary: 'Remove an association from a custom object type',
        description: "The objects' links through it are removed with it. Answers the type with the associations it keeps.",
        params: ObjectTypeAssocParams,
        response: { 200: ObjectTypeItem },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.objectTypeAdmin.removeAssoc(contextOf(request), parseId('object_type', request.params.id), request.params.objectAssocType),
    }),
  );

  app.post(
    '/api/v2/admin/objects',
    {
      config: admin,
      bodyLimit: UPSERT_BODY_LIMIT,
      schema: {
        operationId: 'upsertObjects',
        tags: ['admin'],
        summary: 'Insert or update custom objects of one type',
        description:
          'Upserts 1..1000 records by `(objectTypeId, recordKey)` in one transaction. Every record is checked first (names, ' +
          'duplicate keys, custom field values against their definitions, association targets), and one 400 names every fault ' +
          'with its `records[i]` path; nothing is written then. `customFields` sets the values listed (null clears); ' +
          "`associations`, when given, replaces the object's associations. Answers the IDs in request order and how many " +
          'objects were created and updated. `hearth objects import FILE.jsonl` does the same from a file.',
        body: ObjectUpsertBody,
        response: { 200: ObjectUpsertResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.objectUpserts.upsert(contextOf(request), request.body) }),
  );
}
