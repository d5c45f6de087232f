import Type, { type Static, type TSchema, type TUnsafe } from 'typebox';

/**
 * Named schemas: the records (Contact, Organization, …) and error bodies that routes share. Each is added
 * to Fastify once (`app.addSchema`) and routes refer to it by `$ref`, so the OpenAPI document lists it under
 * `components.schemas` and generated clients get a named type. Response serialization resolves the
 * reference when the route is compiled, so it costs nothing per request.
 */
const named = new Map<string, TSchema>();

export function component<T extends TSchema>(name: string, schema: T): TUnsafe<Static<T>> {
  if (named.has(name)) throw new Error(`two schemas are named ${name}`);
  named.set(name, { ...schema, $id: name });
  return Type.Unsafe<Static<T>>({ $ref: `${name}#` });
}

/**
 * Every named schema, for `app.addSchema` before the routes that refer to them, by name: the order modules
 * happen to be loaded in must not move the OpenAPI document's components.
 */
export function components(): TSchema[] {
  return [...named.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, schema]) => schema);
}
