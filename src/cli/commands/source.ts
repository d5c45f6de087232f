import { cliWriter } from '../../core/writer.ts';
import { community, required, table, UsageError, type Command } from '../command.ts';

function sourceKind(value: string | undefined): 'api' | 'file' | undefined {
  if (value === undefined || value === 'api' || value === 'file') return value;
  throw new UsageError('--kind must be api or file');
}

export const sourceCommand: Command = {
  name: 'source',
  usage: `  source create --name NAME [--community com_N] [--kind api|file] [--path DIR] [--json]
  source list [--community com_N] [--json]`,
  run: {
    async create({ services, values, emit }) {
      const source = await services.sources.create(cliWriter(await community(services, values.community)), {
        name: required(values.name, '--name'),
        kind: sourceKind(values.kind),
        path: values.path ?? null,
      });
      emit({ sourceId: source.id }, `Created source ${source.id} ("${source.name}", ${source.kind}).`);
      return 0;
    },
    async list({ services, values, emit }) {
      const list = await services.sources.list(await community(services, values.community));
      emit(
        list.map((s) => ({ sourceId: s.id, name: s.name, kind: s.kind, path: s.path, visible: s.visible })),
        table(list.map((s) => [String(s.id), s.name, s.kind, s.path ?? ''])),
      );
      return 0;
    },
  },
};
