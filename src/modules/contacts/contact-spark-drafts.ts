import type { Executor } from '../../core/executor.ts';
import { activityTypeTx } from '../activity-types/index.ts';
import { activityDigestsOf, type ActivityDigest } from './contact-spark.repository.ts';
import { activateMessageOf, recentSparkSummariesOf, SPARK_DAYS, SPARK_PERIODS, sparkSummaryOf } from './contact-spark.ts';

/** What the deterministic rules write for a contact, with the digest and names they were written from. */
export interface SparkDraft {
  digest: ActivityDigest | undefined;
  typeNames: Map<string, string>;
  sparkSummary: string | null;
  recentSparkSummaries: string[];
  activateMessage: { title: string; message: string } | null;
}

/**
 * The deterministic spark texts of several contacts at once (what the reads show without a model's text):
 * for the insights module, which gives them to the model as its draft and keeps them when the model fails.
 */
export async function sparkDraftsOf(
  db: Executor,
  communityId: number,
  people: readonly { id: number; fullName: string | null; name: string }[],
  now: Date,
): Promise<Map<number, SparkDraft>> {
  const digests = await activityDigestsOf(
    db,
    communityId,
    people.map((person) => person.id),
    now,
    { days: SPARK_DAYS, periods: SPARK_PERIODS },
  );
  const typeKeys = [
    ...new Set(
      [...digests.values()].flatMap((digest) => [
        ...digest.periods.flatMap((period) => period.types.map((type) => type.key)),
        ...(digest.latest ? [digest.latest.type] : []),
      ]),
    ),
  ];
  const typeNames = await activityTypeTx.activityTypeNames(db, communityId, typeKeys);
  return new Map(
    people.map((person) => {
      const digest = digests.get(person.id);
      return [
        person.id,
        {
          digest,
          typeNames,
          sparkSummary: sparkSummaryOf(digest, typeNames),
          recentSparkSummaries: recentSparkSummariesOf(digest, typeNames, now),
          activateMessage: activateMessageOf(digest, typeNames, person),
        },
      ];
    }),
  );
}
