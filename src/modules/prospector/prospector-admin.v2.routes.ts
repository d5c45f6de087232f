import type { FastifyRequest } from 'fastify';
import { NDJSON } from '../../http/raw-input.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { bodyCheckedByService } from '../../http/validation.ts';
import { CompanyImportBody, ContactImportBody, ImportResponse } from './prospector-admin.schemas.ts';
import type { ImportBody, ProspectorImportService } from './prospector-import.service.ts';

/** 10,000 records with long descriptions do not fit Fastify's default 1 MiB. */
const IMPORT_BODY_LIMIT = 64 * 1024 * 1024;

function importBodyOf(request: FastifyRequest): ImportBody {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  return type === NDJSON ? { format: 'jsonl', text: String(request.body ?? '') } : { format: 'json', value: request.body };
}

const IMPORT_RULES =
  'All or nothing: every record is checked first, and one 400 names every fault of every record, by its index in the ' +
  'array (`[3]`) or its line (`line 4`); nothing is written then. A record replaces what was stored under its key ' +
  '(fields left out become null or []). Answers how many records were added, changed and left unchanged. The data is ' +
  'shared by every community of the server. Up to 10,000 records and 64 MiB per request. See docs/prospector.md.';

/** Imports of the prospector data (admin); GET /api/v2/prospector-companies and /prospector-contacts read it. */
export function prospectorAdminRoutes(app: HearthApp, services: { prospectorImports: ProspectorImportService }) {
  const config = { auth: { all: ['admin' as const] }, itemsCheckedAlone: true };

  app.post(
    '/api/v2/admin/prospector/companies',
    {
      config,
      bodyLimit: IMPORT_BODY_LIMIT,
      validatorCompiler: bodyCheckedByService,
      schema: {
        operationId: 'importProspectorCompanies',
        tags: ['admin'],
        summary: 'Add or update prospector companies',
        description:
          'Upserts companies by their domain (the registrable domain of `domain`, or of `primaryWebsite`). `technologies` ' +
          'must be products of the technographic catalog (any case; stored as the catalog spells them) and `industry` a ' +
          `NAICS 2022 code. ${IMPORT_RULES}`,
        body: CompanyImportBody,
        response: { 200: ImportResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.prospectorImports.importCompanies(contextOf(request), importBodyOf(request)) }),
  );

  app.post(
    '/api/v2/admin/prospector/contacts',
    {
      config,
      bodyLimit: IMPORT_BODY_LIMIT,
      validatorCompiler: bodyCheckedByService,
      schema: {
        operationId: 'importProspectorContacts',
        tags: ['admin'],
        summary: 'Add or update prospector contacts',
        description:
          'Upserts contacts by their LinkedIn handle (as identity matching reads it: a handle or profile URL, in any case). ' +
          "`companyDomain` names the contact's company, which must have been imported before (POST " +
          `/api/v2/admin/prospector/companies). ${IMPORT_RULES}`,
        body: ContactImportBody,
        response: { 200: ImportResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.prospectorImports.importContacts(contextOf(request), importBodyOf(request)) }),
  );
}
