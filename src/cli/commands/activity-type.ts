import { community, communityWriter, required, table, type Command } from '../command.ts';

export const activityTypeCommand: Command = {
  name: 'activity-type',
  run: {
    async add({ services, values, emit }) {
      const entry = await services.activityTypes.add(await communityWriter({ services, values }), {
        id: required(values.id, '--id'),
        displayName: required(values.name, '--name'),
        category: values.category,
      });
      emit(entry, `Added activity type ${entry.id} ("${entry.displayName}").`);
      return 0;
    },
    async list({ services, values, emit }) {
      const list = await services.activityTypes.list(await community(services, values.community));
      emit(
        list,
        table(
          ['ID', 'NAME', 'CATEGORY'],
          list.map((t) => [t.id, t.displayName, t.category]),
        ),
      );
      return 0;
    },
  },
};
