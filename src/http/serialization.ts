import SerializerSelector from '@fastify/fast-json-stringify-compiler';

const buildDefault = SerializerSelector();

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled when its route first answers with
 * its status instead of when the app starts. Compiling every route's every status took about 1.2 s per app
 * on the CI machine, most of it for error statuses that are rarely sent; the first answer of a route pays a
 * few milliseconds instead.
 */
export const lazySerializers = (...args: Parameters<typeof buildDefault>) => {
  const compile = buildDefault(...args);
  return (route: Parameters<typeof compile>[0]) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= compile(route))(data);
  };
};
