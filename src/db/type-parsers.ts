import pg from 'pg';

/**
 * One parser table for both engines, keyed by PostgreSQL type OID. Both drivers hand these functions the
 * text form of a value, so every query returns identical JavaScript values on PGlite and on PostgreSQL:
 * int8 and numeric as numbers (our keys and counts stay far below 2^53), dates as `YYYY-MM-DD` strings
 * (never a Date at local midnight), timestamps as Date objects, json as parsed values.
 */
const textArray = pg.types.getTypeParser(1009 as never) as (value: string) => (string | null)[];
const timestamp = pg.types.getTypeParser(1184 as never) as (value: string) => Date;
const json = (value: string): unknown => JSON.parse(value);

function toNumber(value: string): number {
  return Number(value);
}

function numberArray(value: string): (number | null)[] {
  return textArray(value).map((item) => (item === null ? null : Number(item)));
}

export const TYPE_PARSERS: Record<number, (value: string) => unknown> = {
  20: toNumber, // int8
  1016: numberArray, // int8[]
  21: toNumber, // int2
  23: toNumber, // int4
  1005: numberArray, // int2[]
  1007: numberArray, // int4[]
  700: toNumber, // float4
  701: toNumber, // float8
  1700: toNumber, // numeric
  1231: numberArray, // numeric[]
  1082: (value) => value, // date
  1182: textArray, // date[]
  1114: (value) => timestamp(`${value}+00`), // timestamp without time zone, read as UTC
  1184: timestamp, // timestamptz
  114: json, // json
  3802: json, // jsonb
  1009: textArray, // text[]
  1015: textArray, // varchar[]
};

/** The `types` option of a `pg` Pool: our table first, pg's defaults for everything else. */
export const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    const parser = TYPE_PARSERS[oid];
    if (parser && format !== 'binary') return parser;
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};
