import type { FastifySchemaCompiler } from 'fastify';
import { compileBodyValidator, compileTextValidator } from '../core/validation.ts';

/** Bodies are JSON and never coerced; query strings and path parameters are text and are (core/validation.ts). */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  httpPart === 'body' ? compileBodyValidator(schema as object) : compileTextValidator(schema as object);
