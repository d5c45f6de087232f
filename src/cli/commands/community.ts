import { formatId } from '../../core/ids.ts';
import { cliActor } from '../../core/writer.ts';
import { required, table, type Command } from '../command.ts';

export const communityCommand: Command = {
  name: 'community',
  run: {
    async create({ services, values, emit }) {
      const { communityId } = await services.communities.create(required(values.name, '--name'), cliActor());
      emit({ communityId: formatId('community', communityId) }, `Created community ${formatId('community', communityId)}.`);
      return 0;
    },
    async list({ services, emit }) {
      const list = await services.communities.list();
      emit(
        list.map((c) => ({ communityId: formatId('community', c.id), name: c.name, createdAt: c.createdAt.toISOString() })),
        table(
          ['COMMUNITY', 'NAME'],
          list.map((c) => [formatId('community', c.id), c.name]),
        ),
      );
      return 0;
    },
  },
};
