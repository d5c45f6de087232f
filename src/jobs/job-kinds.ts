/**
 * Every kind of background job Hearth runs, with the payload its jobs carry: the one list. `enqueue` takes
 * a kind only from here and its payload only of that kind's type, and the composition root (services.ts)
 * must give a handler for each kind, which gets the payload with this type; so a misspelt kind, a wrong
 * payload or a kind without a handler stops `tsc`, not a job at run time.
 *
 * A payload is stored as JSON in `jobs.payload` and kept after the job ends (`hearth jobs`, the admin
 * routes), so it names what the job works on by IDs, never personal data. The kind strings are stored
 * too: renaming one strands the jobs already queued under the old name. A payload's type is what queued
 * jobs hold: a job enqueued by the previous version runs under the new one, so a field added later is
 * optional (or the handler checks it).
 */
// A type, not an interface: the queue checks that every payload is a JSON object, which needs the implicit
// index signature only a type literal has.
export type JobPayloads = {
  /** Erases the person of a removal request (privacy). */
  'privacy.erase': { removalRequestId: number };
  /** Imports a file source's new files, then re-derives what the source touched (source-imports, data-available). */
  'source.import': { sourceId: number };
  /** Computes every value of one version of a lead score definition (lead-scores). */
  'lead_scores.recompute': { scoreId: number; version: number };
  /**
   * Fetches a job board or news feed (feeds): the feed's schedule (`scheduled`: it runs when due and enqueues
   * the next round), or an admin's "fetch now" (it fetches and records, and leaves the schedule alone).
   */
  'feeds.fetch': { feedId: number; scheduled: boolean };
  /** Syncs a connector's source from its platform (connectors). */
  'connector.sync': { sourceId: number };
  /** Asks the model for a community's due insights; `all`: every contact and answer, due or not (insights). */
  'insights.generate': { all?: boolean };
};

export type JobKind = keyof JobPayloads;
