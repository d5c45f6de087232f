/**
 * How likely two contacts are one person (docs/ingestion.md, "Likely duplicates: merge suggestions").
 *
 * Each piece of evidence a pair has weighs in as a probability, and they combine as independent ones do:
 * score = 1 − Π(1 − weight). A name alone stays below the threshold; a name shared by many contacts weighs
 * less; namesakes whose organizations differ are held below the threshold whatever else they share.
 */

/** Pairs at or above this score are stored and listed; the API's `minScore` can only raise it. */
export const THRESHOLD = 0.7;

export const WEIGHTS = {
  /** The same full name, shared by exactly two contacts; a name of n contacts weighs `name * 2 / n`. */
  name: 0.5,
  /** A name of one word ("ada") says less than a first and a last name: its weight is multiplied by this. */
  oneWordName: 0.5,
  /** With the same name: the same organization, or addresses at the same organization's domain. */
  workplace: 0.6,
  /** With the same name: a handle of one equals a handle of the other on another platform. */
  handle: 0.7,
  /** Without the same name (one has none): a handle in common. */
  handleAlone: 0.4,
  /** The same personal website named by both profiles (a GitHub blog, a Stack Overflow or Discourse website). */
  site: 0.7,
  /** Two addresses of one mailbox, one with a `+tag` (not when both have full names and they differ). */
  alias: 0.85,
  /** With the same name: the same city. */
  place: 0.3,
  /** With the same name: an address of one spells that name (`ada.lovelace@…`, `alovelace@…`). */
  namedAddress: 0.3,
} as const;

/** Namesakes at two different organizations score at most this: never suggested. */
export const DIFFERENT_ORGANIZATIONS_CAP = 0.5;

/**
 * Name groups larger than this are not paired by name (a name that common is no evidence, and its pairs grow
 * as its square); their members are still paired by addresses.
 */
export const MAX_NAME_GROUP = 50;

/** The step runs this often; a push is reflected in the suggestions within about this long. */
export const STEP_INTERVAL_MS = 30_000;

/**
 * Contacts changed this long before the last run's start are computed again: a push stamps its time when it
 * starts and may commit after a run has read, and processes' clocks differ a little.
 */
export const LATE_COMMIT_MARGIN_MS = 30_000;

/** Communities computed per run of the step, so that one run stays bounded. */
export const COMMUNITIES_PER_RUN = 100;
