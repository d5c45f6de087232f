/**
 * Queues that all communities share (jobs, webhook events and deliveries, connector deliveries, daily
 * recomputes) are claimed one community at a time (docs/scaling.md, "Queues"). A claim that locks rows
 * (`FOR UPDATE SKIP LOCKED`) names its community, which is what a Citus cluster can route to the one node
 * holding that community; and the communities with work take turns, so that one community's backlog does not
 * hold back the others.
 *
 * A claimer reads, without locking, which communities have work due (a read a cluster may run on every
 * node), then visits them in turn: starting after the community it served last, in ID order, round and
 * round. That read looks at every due item, so a claimer keeps its answer for a while (CANDIDATES_FOR_MS)
 * rather than reading it for each claim of a long backlog: it drops a community that gave less than it was
 * asked for, and reads again when the list is old or when the communities on it ran short.
 */
/** At most this many communities with work are visited by one claim; the others get their turn in the next. */
export const MAX_CANDIDATES = 1_000;
/** How long a claimer visits the communities it last found with work before it looks again. */
export const CANDIDATES_FOR_MS = 1_000;

export class CommunityTurns {
  private last = 0;
  private candidates: number[] = [];
  private foundAt = -Infinity;

  constructor(private readonly monotonicMs: () => number = () => performance.now()) {}

  /** The distinct `candidates`, in the order to visit them. */
  order(candidates: readonly number[]): number[] {
    const ids = [...new Set(candidates)].sort((a, b) => a - b);
    const next = ids.findIndex((id) => id > this.last);
    return next <= 0 ? ids : [...ids.slice(next), ...ids.slice(0, next)];
  }

  /**
   * Claims up to `limit` items in all, visiting the communities with work in turn: each community's claim is
   * asked for what is still missing. `find` reads which communities have work due.
   */
  async claim<T>(find: () => Promise<number[]>, limit: number, claimIn: (communityId: number, limit: number) => Promise<T[]>): Promise<T[]> {
    const kept = this.monotonicMs() - this.foundAt < CANDIDATES_FOR_MS;
    if (!kept) await this.find(find);
    const claimed = await this.visit(limit, claimIn);
    if (!kept || claimed.length >= limit) return claimed;
    // The communities known to have work ran short: others may have some by now.
    await this.find(find);
    return [...claimed, ...(await this.visit(limit - claimed.length, claimIn))];
  }

  private async find(find: () => Promise<number[]>): Promise<void> {
    this.candidates = await find();
    this.foundAt = this.monotonicMs();
  }

  private async visit<T>(limit: number, claimIn: (communityId: number, limit: number) => Promise<T[]>): Promise<T[]> {
    const claimed: T[] = [];
    for (const communityId of this.order(this.candidates)) {
      if (claimed.length >= limit) break;
      const wanted = limit - claimed.length;
      const items = await claimIn(communityId, wanted);
      // Less than asked: nothing more is due there now (or another claimer holds it), until the next look.
      if (items.length < wanted) this.candidates = this.candidates.filter((id) => id !== communityId);
      if (items.length === 0) continue;
      claimed.push(...items);
      this.last = communityId;
    }
    return claimed;
  }
}
