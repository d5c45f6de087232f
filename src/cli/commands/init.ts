import { formatId } from '../../core/ids.ts';
import { cliActor } from '../../core/writer.ts';
import type { Command } from '../command.ts';

export const initCommand: Command = {
  name: 'init',
  run: {
    async ''({ services, emit }) {
      const setup = await services.communities.init(cliActor());
      const communityId = formatId('community', setup.communityId);
      emit(
        { communityId, sourceId: setup.sourceId, token: setup.token },
        `Community ${communityId}, source ${setup.sourceId}.\nToken (shown once): ${setup.token}`,
      );
      return 0;
    },
  },
};
