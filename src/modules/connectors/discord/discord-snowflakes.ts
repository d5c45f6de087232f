/*
 * Discord's IDs are snowflakes ("Reference", https://discord.com/developers/docs/reference#snowflakes): the
 * milliseconds since the Discord epoch (the first second of 2015) in the bits above 22, then a worker, a
 * process and an increment. They order records by creation time across all of Discord, and a snowflake made
 * from a time is a valid `before` / `after` bound.
 */

export const DISCORD_EPOCH_MS = 1_420_070_400_000;

/** The smallest snowflake of a moment: every record made at or after it has an ID at least this. */
export function snowflakeAt(ms: number): string {
  return (BigInt(Math.max(0, Math.floor(ms) - DISCORD_EPOCH_MS)) << 22n).toString();
}

/** When the record with this ID was made, in milliseconds since 1970. */
export function timeOfSnowflake(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH_MS;
}

/** Snowflakes compare as numbers; as text, "9" would pass "10". */
export function compareSnowflakes(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The larger of two IDs, either of which may be absent. */
export function newestOf(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return compareSnowflakes(a, b) >= 0 ? a : b;
}

export function isSnowflake(value: unknown): value is string {
  return typeof value === 'string' && /^(0|[1-9][0-9]{0,19})$/.test(value);
}
