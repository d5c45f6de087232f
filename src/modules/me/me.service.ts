import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { RequestContext } from '../../core/writer.ts';
import * as me from './me.repository.ts';

export function createMeService(deps: { db: Kysely<DB>; clock: Clock }) {
  return {
    /**
     * The app user the token was made for. `id` is that person's contact: the one holding the user's login
     * email (it follows merges), else the contact made with the user.
     */
    async get(context: RequestContext) {
      const user = context.userId === null ? undefined : await me.findAppUser(deps.db, context.communityId, context.userId);
      if (!user) throw notFound('user_not_found', 'this token was not made for an app user');
      const [profiles, segments, personas] = await Promise.all([
        user.contactId === null ? [] : me.listContactProfiles(deps.db, context.communityId, user.contactId),
        me.listBookmarkedSegments(deps.db, context.communityId, user.id),
        me.listPersonas(deps.db, context.communityId, user.id),
      ]);
      return {
        // A user whose contact was removed by hand gets a new one: the id is never null.
        id: formatId('contact', user.contactId ?? (await me.linkContact(deps.db, { ...user, communityId: context.communityId }, deps.clock.now()))),
        communityId: formatId('community', context.communityId),
        name: user.name,
        title: user.title,
        role: user.role,
        loginEmail: user.loginEmail,
        profiles,
        segments: segments.map((segment) => ({ id: formatId('segment', segment.id), name: segment.name })),
        personas: personas.map((persona) => ({ id: String(persona.id), name: persona.name })),
        company: {
          name: user.companyName ?? context.communityName,
          domains: user.companyDomains,
          summary: user.companySummary ?? '',
        },
      };
    },
  };
}

export type MeService = ReturnType<typeof createMeService>;
