import type { AssocInput } from '../../modules/objects/index.ts';
import { community, communityWriter, required, table, UsageError, type Command } from '../command.ts';

/** `--assoc type:target` or `type:object:cot_N`, as the object type route takes it. */
function parseAssoc(given: string): AssocInput {
  const [objectAssocType, targetEntity, targetObjectTypeId, ...more] = given.split(':');
  if (!objectAssocType || !targetEntity || more.length) throw new UsageError(`--assoc "${given}" must be type:target or type:object:cot_N`);
  return { objectAssocType, targetEntity, targetObjectTypeId: targetObjectTypeId ?? null };
}

function describeAssoc(assoc: { objectAssocType: string; targetEntity: string; targetObjectTypeId: string | null }): string {
  return [assoc.objectAssocType, assoc.targetEntity, assoc.targetObjectTypeId].filter(Boolean).join(':');
}

export const objectTypeCommand: Command = {
  name: 'object-type',
  run: {
    async create({ services, values, emit }) {
      const type = await services.objectTypeAdmin.create(await communityWriter({ services, values }), {
        name: required(values.name, '--name'),
        assocs: (values.assoc ?? []).map(parseAssoc),
      });
      const assocs = type.assocs.length ? ` with associations ${type.assocs.map(describeAssoc).join(', ')}` : '';
      emit(type, `Created object type ${type.id} ("${type.name}")${assocs}.`);
      return 0;
    },
    async list({ services, values, emit }) {
      const list = await services.objectTypes.list(await community(services, values.community));
      emit(
        list,
        table(
          ['TYPE', 'NAME', 'ASSOCIATIONS'],
          list.map((type) => [type.id, type.name, type.assocs.map(describeAssoc).join(' ')]),
        ),
      );
      return 0;
    },
  },
};
