import { formatId } from '../../core/ids.ts';
import { compileBodyValidator } from '../../core/validation.ts';
import { cliWriter } from '../../core/writer.ts';
import { BuyingCommitteeBody, DEPARTMENT_CLASSES, SENIORITY_CLASSES, type Committee } from '../../modules/buying-committees/index.ts';
import { readJsonFile } from '../json-file.ts';
import { community, required, table, type Command } from '../command.ts';

const checkBody = compileBodyValidator(BuyingCommitteeBody as object);

function describeCommittee(committee: Committee): string {
  const rows = (ranks: Committee['seniorities']) =>
    table(
      ['  ID', 'KEY', 'NAME'],
      ranks.map((rank) => [`  ${rank.id}`, rank.key, rank.name]),
    );
  return `Seniorities (rows):\n${rows(committee.seniorities)}\nDepartments (columns):\n${rows(committee.departments)}`;
}

const size = (committee: Committee) =>
  `${committee.seniorities.length} seniorities × ${committee.departments.length} departments = ${committee.seniorities.length * committee.departments.length} cells`;

export const buyingCommitteeCommand: Command = {
  name: 'buying-committee',
  run: {
    async set({ services, values, args, emit, terminal, file: resolve }) {
      const file = resolve(required(args[0], 'the committee file (FILE.json)'));
      const committee = readJsonFile<Committee>(file, checkBody);
      const communityId = await community(services, values.community);
      const { committee: stored, warnings } = await services.buyingCommittees.set(cliWriter(communityId), committee);
      if (!values.json) for (const warning of warnings) terminal.err(`hearth: warning: ${warning}\n`);
      emit({ ...stored, warnings }, `Set the buying committee of ${formatId('community', communityId)}: ${size(stored)}.`);
      return 0;
    },
    async show({ services, values, emit }) {
      const committee = await services.buyingCommittees.get(await community(services, values.community));
      emit(committee, describeCommittee(committee));
      return 0;
    },
    async remove({ services, values, emit }) {
      const communityId = await community(services, values.community);
      const removed = await services.buyingCommittees.remove(cliWriter(communityId));
      emit(removed, `Removed the buying committee of ${formatId('community', communityId)} (${size(removed)}).`);
      return 0;
    },
    async keys({ emit }) {
      const keys = { seniorities: SENIORITY_CLASSES, departments: DEPARTMENT_CLASSES };
      const rows = (classes: Record<string, string>) =>
        table(
          ['  KEY', 'MEANING'],
          Object.entries(classes).map(([key, what]) => [`  ${key}`, what]),
        );
      emit(keys, `Seniority keys:\n${rows(SENIORITY_CLASSES)}\nDepartment keys:\n${rows(DEPARTMENT_CLASSES)}`);
      return 0;
    },
  },
};
