import type { ConnectorKind, PlatformAccess, Translation } from '../src/modules/connectors/index.ts';

/** Profiles a request of the connector's profile pass asks for (connector-sync.ts PROFILE_BATCH). */
const PROFILE_BATCH = 50;

/**
 * The pages a connector of `kind` reads, translated by the kind itself (what the connector stores), and the
 * profiles of the people they name, as the profile pass reads them (when the kind reads profiles).
 */
export async function translateAll(kind: ConnectorKind<unknown, unknown>, settings: unknown, secrets: unknown, withProfiles = true) {
  // A signal per request group: some clients leave a listener on the signal of every request they make.
  const access = (): PlatformAccess => ({ fetch: globalThis.fetch, now: () => new Date(), signal: new AbortController().signal, cache: new Map() });
  const pages: Translation[] = [];
  let started = performance.now();
  for (const stream of await kind.streams(settings, secrets, access())) {
    let checkpoint = null;
    for (;;) {
      const page = await kind.page(stream, checkpoint, settings, secrets, access());
      if (page.translation.users.length || page.translation.activities.length) pages.push(page.translation);
      checkpoint = page.checkpoint;
      if (page.done) break;
    }
  }
  const readMs = performance.now() - started;
  const people = [
    ...new Set(pages.flatMap((page) => [...page.activities.map((activity) => activity.user?.id), ...page.users.map((user) => user.id)]).map(String)),
  ].filter((id) => id !== 'undefined');
  const profileBatches: Translation['users'][] = [];
  let profilesReadMs = 0;
  if (withProfiles && kind.profiles) {
    started = performance.now();
    const chunks: string[][] = [];
    for (let at = 0; at < people.length; at += PROFILE_BATCH) chunks.push(people.slice(at, at + PROFILE_BATCH));
    // Eight chunks at a time: this is preparation, not a figure (the pass asks one chunk at a time).
    let next = 0;
    const read: Translation['users'][] = new Array(chunks.length);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < chunks.length) {
          const at = next++;
          read[at] = await kind.profiles!(chunks[at]!, settings, secrets, access());
        }
      }),
    );
    profileBatches.push(...read.filter((users) => users.length > 0));
    profilesReadMs = performance.now() - started;
  }
  return { pages, people, profileBatches, readMs, profilesReadMs };
}
