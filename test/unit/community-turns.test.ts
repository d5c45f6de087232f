import { describe, expect, it } from 'vitest';
import { CANDIDATES_FOR_MS, CommunityTurns } from '../../src/core/community-turns.ts';

/** Queues by community: each claim takes up to `limit` of a community's items, oldest first. */
function queues(items: Record<number, number>) {
  const left = new Map(Object.entries(items).map(([id, n]) => [Number(id), n]));
  const finds: number[][] = [];
  return {
    finds,
    find: async () => {
      const found = [...left].filter(([, n]) => n > 0).map(([id]) => id);
      finds.push(found);
      return found;
    },
    claimIn: async (communityId: number, limit: number) => {
      const n = Math.min(limit, left.get(communityId) ?? 0);
      left.set(communityId, (left.get(communityId) ?? 0) - n);
      return Array.from({ length: n }, () => communityId);
    },
    add: (communityId: number, n: number) => left.set(communityId, (left.get(communityId) ?? 0) + n),
  };
}

describe('CommunityTurns', () => {
  it('visits the communities with work in turn, starting after the one it served last', async () => {
    const q = queues({ 3: 10, 1: 10, 2: 10 });
    const turns = new CommunityTurns(() => 0);
    const claimed: number[][] = [];
    for (let i = 0; i < 4; i++) claimed.push(await turns.claim(q.find, 1, q.claimIn));
    expect(claimed).toEqual([[1], [2], [3], [1]]);
    // A claim asks each community for what is still missing.
    expect(await turns.claim(q.find, 12, q.claimIn)).toEqual([...Array(9).fill(2), 3, 3, 3]);
  });

  it('keeps the communities it found while they fill its claims, and looks again once they run short', async () => {
    const q = queues({ 1: 5 });
    const turns = new CommunityTurns(() => 0);
    expect(await turns.claim(q.find, 2, q.claimIn)).toEqual([1, 1]);
    q.add(2, 5);
    expect(await turns.claim(q.find, 2, q.claimIn)).toEqual([1, 1]);
    expect(q.finds).toHaveLength(1);
    // One item of community 1 is left: the claim looks again, in the same call, and finds community 2.
    expect(await turns.claim(q.find, 2, q.claimIn)).toEqual([1, 2]);
    expect(q.finds).toEqual([[1], [2]]);
  });

  it('looks again once its list is older than CANDIDATES_FOR_MS, so a community with new work waits no longer', async () => {
    let now = 0;
    const q = queues({ 1: 100 });
    const turns = new CommunityTurns(() => now);
    await turns.claim(q.find, 1, q.claimIn);
    q.add(2, 1);
    now = CANDIDATES_FOR_MS - 1;
    expect(await turns.claim(q.find, 1, q.claimIn)).toEqual([1]);
    now = CANDIDATES_FOR_MS;
    expect(await turns.claim(q.find, 1, q.claimIn)).toEqual([2]);
    expect(q.finds).toHaveLength(2);
  });

  it('with nothing to do, looks every time', async () => {
    const q = queues({});
    const turns = new CommunityTurns(() => 0);
    expect(await turns.claim(q.find, 5, q.claimIn)).toEqual([]);
    expect(await turns.claim(q.find, 5, q.claimIn)).toEqual([]);
    q.add(7, 1);
    expect(await turns.claim(q.find, 5, q.claimIn)).toEqual([7]);
  });
});
