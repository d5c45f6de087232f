/**
 * Queues that all communities share (jobs, webhook events and deliveries, connector deliveries, daily
 * recomputes) are claimed one community at a time (docs/scaling.md, "Queues"). A claim that locks rows
 * (`FOR UPDATE SKIP LOCKED`) names its community, which is what a Citus cluster can route to the one node
 * holding that community; and the communities with work take turns, so that one community's backlog does not
 * hold back the others.
 *
 * A claimer first reads, without locking, which communities have work due (a read a cluster may run on
 * every node), then visits them in turn: starting after the community it served last, in ID order, round
 * and round.
 */
/** At most this many communities with work are visited by one claim; the others get their turn in the next. */
export const MAX_CANDIDATES = 1_000;

export class CommunityTurns {
  private last = 0;

  /** The distinct `candidates`, in the order to visit them. */
  order(candidates: readonly number[]): number[] {
    const ids = [...new Set(candidates)].sort((a, b) => a - b);
    const next = ids.findIndex((id) => id > this.last);
    return next <= 0 ? ids : [...ids.slice(next), ...ids.slice(0, next)];
  }

  served(communityId: number): void {
    this.last = communityId;
  }

  /**
   * Visits the candidates in turn, claiming up to `limit` items in all: each community's claim is asked for
   * what is still missing.
   */
  async claim<T>(candidates: readonly number[], limit: number, claimIn: (communityId: number, limit: number) => Promise<T[]>): Promise<T[]> {
    const claimed: T[] = [];
    for (const communityId of this.order(candidates)) {
      if (claimed.length >= limit) break;
      const items = await claimIn(communityId, limit - claimed.length);
      if (items.length === 0) continue;
      claimed.push(...items);
      this.served(communityId);
    }
    return claimed;
  }
}
