import type { FastifySchemaCompiler } from 'fastify';
import { compileBodyValidator, compileTextValidator } from '../core/validation.ts';

/** Bodies are JSON and never coerced; query strings and path parameters are text and are (core/validation.ts). */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  httpPart === 'body' ? compileBodyValidator(schema as object) : compileTextValidator(schema as object);

/**
 * For a route whose service checks the body itself, record by record, so that one answer names every
 * fault of every record: the body's schema documents it (OpenAPI) but is not applied here; the query
 * string and path parameters are checked as on every route.
 */
export const bodyCheckedByService: FastifySchemaCompiler<unknown> = (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route));
