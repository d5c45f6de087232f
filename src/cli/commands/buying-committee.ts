import fs from 'node:fs';
import { invalidParameters } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import { compileBodyValidator, describeValidation, findInvalidText } from '../../core/validation.ts';
import { cliWriter } from '../../core/writer.ts';
import { BuyingCommitteeBody, DEPARTMENT_CLASSES, SENIORITY_CLASSES, type Committee } from '../../modules/buying-committees/index.ts';
import { community, required, table, UsageError, type Command } from '../command.ts';

const checkBody = compileBodyValidator(BuyingCommitteeBody as object);

/** The committee in FILE.json, checked as the PUT route checks its body. */
function readCommitteeFile(file: string): Committee {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidParameters(`${file} is not JSON: ${(error as Error).message}`);
  }
  const invalid = findInvalidText(value);
  if (invalid) throw invalidParameters(`${file}: "${invalid.path}" ${invalid.problem}`);
  if (!checkBody(value)) throw invalidParameters(`${file}: ${describeValidation(checkBody.errors ?? [], 'field')}`);
  return value as Committee;
}

function describeCommittee(committee: Committee): string {
  const rows = (ranks: Committee['seniorities']) => table(ranks.map((rank) => [`  ${rank.id}`, rank.key, rank.name]));
  return `Seniorities (rows):\n${rows(committee.seniorities)}\nDepartments (columns):\n${rows(committee.departments)}`;
}

const size = (committee: Committee) =>
  `${committee.seniorities.length} seniorities × ${committee.departments.length} departments = ${committee.seniorities.length * committee.departments.length} cells`;

export const buyingCommitteeCommand: Command = {
  name: 'buying-committee',
  usage: `  buying-committee set FILE.json [--community com_N] [--json]
                                          sets (replaces) the buying committee: {"seniorities": [{"id", "key",
                                          "name"}, ...], "departments": [...]}, each list in order
  buying-committee show [--community com_N] [--json]     (--json prints what set takes)
  buying-committee remove [--community com_N] [--json]
  buying-committee keys [--json]          the title classifier's seniority and department keys`,
  run: {
    async set({ services, values, args, emit }) {
      const file = required(args[0], 'the committee file (FILE.json)');
      const committee = readCommitteeFile(file);
      const communityId = await community(services, values.community);
      const { committee: stored, warnings } = await services.buyingCommittees.set(cliWriter(communityId), committee);
      if (!values.json) for (const warning of warnings) process.stderr.write(`hearth: warning: ${warning}\n`);
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
      const rows = (classes: Record<string, string>) => table(Object.entries(classes).map(([key, what]) => [`  ${key}`, what]));
      emit(keys, `Seniority keys:\n${rows(SENIORITY_CLASSES)}\nDepartment keys:\n${rows(DEPARTMENT_CLASSES)}`);
      return 0;
    },
  },
};
