import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { invalidParameters } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import { auditTx } from '../audit/index.ts';
import { sourceTx } from '../sources/index.ts';
import type { TokenService } from '../tokens/index.ts';
import * as communities from './community.repository.ts';

export const DEFAULT_COMMUNITY_NAME = 'Default';
export const DEFAULT_SOURCE_NAME = 'API';
export const ADMIN_LOGIN_EMAIL = 'admin@hearth.local';

export interface Bootstrap {
  communityId: number;
  sourceId: number;
  adminUserId: number;
  /** Whether this call created the community (the database had none). */
  created: boolean;
}

export function createCommunityService(deps: { db: Kysely<DB>; tokens: TokenService; clock: Clock }) {
  /** `actor`: who asks (a community has no writer before it exists); the new community's log records it. */
  async function create(name: string, actor: string) {
    const trimmed = name.trim();
    if (!trimmed) throw invalidParameters('a community needs a name');
    return deps.db.transaction().execute(async (trx) => {
      const communityId = await communities.insertCommunity(trx, trimmed);
      await communities.insertAppUser(trx, { communityId, name: 'Admin', loginEmail: ADMIN_LOGIN_EMAIL, role: 'admin' }, deps.clock.now());
      await auditTx.recordWrite(
        trx,
        { communityId, actor, tokenId: null },
        {
          operation: 'community.create',
          entityIds: [formatId('community', communityId)],
          detail: { name: trimmed },
        },
      );
      return { communityId };
    });
  }

  /**
   * First-run setup, safe to repeat and to run from several processes at once: the first community (made
   * as "Default" when there is none), its admin user and its "API" source.
   */
  async function bootstrap(actor: string): Promise<Bootstrap> {
    return deps.db.transaction().execute(async (trx) => {
      await communities.lockBootstrap(trx);
      let created = false;
      const made: string[] = [];
      let community = await communities.firstCommunity(trx);
      if (!community) {
        const id = await communities.insertCommunity(trx, DEFAULT_COMMUNITY_NAME);
        community = { id, name: DEFAULT_COMMUNITY_NAME };
        created = true;
        made.push(formatId('community', id));
      }
      const admin =
        (await communities.firstAdmin(trx, community.id))?.id ??
        (await communities.insertAppUser(trx, { communityId: community.id, name: 'Admin', loginEmail: ADMIN_LOGIN_EMAIL, role: 'admin' }, deps.clock.now()));
      let source = await sourceTx.findSourceByName(trx, community.id, DEFAULT_SOURCE_NAME);
      if (!source) {
        source = await sourceTx.insertSource(trx, { communityId: community.id, name: DEFAULT_SOURCE_NAME, serviceName: 'api', kind: 'api', path: null });
        made.push(formatId('provider', source.id));
      }
      if (made.length)
        await auditTx.recordWrite(trx, { communityId: community.id, actor, tokenId: null }, { operation: 'community.bootstrap', entityIds: made });
      return { communityId: community.id, sourceId: source.id, adminUserId: admin, created };
    });
  }

  /** An all-scope token of the community's admin; `expiresInSeconds` absent: one that does not expire. */
  function issueAdminToken(setup: Bootstrap, actor: string, expiresInSeconds?: number) {
    return deps.tokens.issue(
      { communityId: setup.communityId, actor, tokenId: null },
      {
        scopes: ['read', 'write', 'admin'],
        name: 'hearth init',
        appUserId: setup.adminUserId,
        ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
      },
    );
  }

  return {
    create,
    bootstrap,

    /** `hearth init`: the bootstrap, plus a new all-scope token on every call. */
    async init(actor: string) {
      const setup = await bootstrap(actor);
      return { ...setup, ...(await issueAdminToken(setup, actor)) };
    },

    issueAdminToken,

    list() {
      return communities.listCommunities(deps.db);
    },

    async adminOf(communityId: number): Promise<number | null> {
      return (await communities.firstAdmin(deps.db, communityId))?.id ?? null;
    },

    find(communityId: number) {
      return communities.findCommunity(deps.db, communityId);
    },
  };
}

export type CommunityService = ReturnType<typeof createCommunityService>;
