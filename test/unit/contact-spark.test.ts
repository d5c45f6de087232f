import { describe, expect, it } from 'vitest';
import type { ActivityDigest } from '../../src/modules/contacts/contact-spark.repository.ts';
import { activateMessageOf, describePeriod, recentSparkSummariesOf, sparkSummaryOf } from '../../src/modules/contacts/contact-spark.ts';

const names = new Map([
  ['commented_replied', 'Commented or replied'],
  ['made_post_topic', 'Made a post'],
  ['starred_repo', 'Starred a repository'],
]);
const now = new Date('2026-11-27T12:00:00Z');

const digest: ActivityDigest = {
  periods: [
    {
      period: 0,
      total: 9,
      types: [
        { key: 'commented_replied', count: 6 },
        { key: 'made_post_topic', count: 2 },
        { key: 'starred_repo', count: 1 },
      ],
      places: [
        { key: 'Slack #help', count: 7 },
        { key: 'GitHub', count: 2 },
      ],
      topics: [
        { key: 'Kubernetes', count: 5 },
        { key: 'Helm', count: 3 },
        { key: 'ingress', count: 2 },
        { key: 'latency', count: 1 },
      ],
    },
    { period: 2, total: 1, types: [{ key: 'starred_repo', count: 1 }], places: [{ key: 'GitHub', count: 1 }], topics: [] },
  ],
  latest: { time: new Date('2026-11-25T09:30:00Z'), type: 'commented_replied', place: 'Slack #help', topics: ['ingress', 'Kubernetes'] },
};

describe('spark summaries and activate messages, from a digest of activities', () => {
  it('describes a period: how much, how often, what, where and about what', () => {
    expect(describePeriod(digest.periods[0]!, names)).toBe(
      '9 activities (about 2 a week): mostly commented or replied (6) and made a post (2), in Slack #help (7) and GitHub (2); about Kubernetes, Helm and ingress.',
    );
    expect(describePeriod(digest.periods[1]!, names)).toBe('1 activity: starred a repository, in GitHub.');
  });

  it('says the last 30 days in sparkSummary, and each period with activity in recentSparkSummaries', () => {
    expect(sparkSummaryOf(digest, names)).toBe(
      'In the last 30 days, 9 activities (about 2 a week): mostly commented or replied (6) and made a post (2), in Slack #help (7) and GitHub (2); about Kubernetes, Helm and ingress. Latest on 2026-11-25.',
    );
    expect(recentSparkSummariesOf(digest, names, now)).toEqual([
      '30 days to 2026-11-27: 9 activities (about 2 a week): mostly commented or replied (6) and made a post (2), in Slack #help (7) and GitHub (2); about Kubernetes, Helm and ingress.',
      '30 days to 2026-09-28: 1 activity: starred a repository, in GitHub.',
    ]);
  });

  it('suggests an outreach about the latest activity, by first name', () => {
    expect(activateMessageOf(digest, names, { fullName: 'Ada Lovelace', name: 'Ada Lovelace' })).toEqual({
      title: 'Follow up on Kubernetes',
      message:
        "Hi Ada, I saw your activity in Slack #help on 2026-11-25 (commented or replied about Kubernetes). It's one of 9 things you did with us in the last 30 days, and we're grateful. Would it help to talk it through with someone on our team?",
    });
    const quiet: ActivityDigest = { periods: [{ ...digest.periods[1]!, period: 0 }], latest: { time: now, type: 'meetup_talk', place: 'Meetups', topics: [] } };
    expect(activateMessageOf(quiet, new Map([['meetup_talk', 'Meetup talk']]), { fullName: null, name: 'ada@example.com' })).toEqual({
      title: 'Follow up on meetup talk',
      message: 'Hi, I saw your activity in Meetups on 2026-11-27 (meetup talk). Would it help to talk it through with someone on our team?',
    });
  });

  it('is null or empty without activity', () => {
    expect(sparkSummaryOf(undefined, names)).toBeNull();
    expect(recentSparkSummariesOf(undefined, names, now)).toEqual([]);
    expect(activateMessageOf(undefined, names, { fullName: 'Ada', name: 'Ada' })).toBeNull();
    // Activity only in older periods: no summary of the last 30 days and no outreach, but the history.
    const older: ActivityDigest = { periods: [digest.periods[1]!], latest: null };
    expect(sparkSummaryOf(older, names)).toBeNull();
    expect(activateMessageOf(older, names, { fullName: 'Ada', name: 'Ada' })).toBeNull();
    expect(recentSparkSummariesOf(older, names, now)).toHaveLength(1);
  });
});
