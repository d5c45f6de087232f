import { parseId } from '../../core/ids.ts';
import { compileBodyValidator } from '../../core/validation.ts';
import { cliWriter } from '../../core/writer.ts';
import { LeadScoreChangesBody, NewLeadScoreBody, type LeadScoreChanges, type NewLeadScore } from '../../modules/lead-scores/index.ts';
import { readJsonFile } from '../json-file.ts';
import { community, communityWriter, positiveInteger, required, table, UsageError, yesNoOption, type Command, type Options } from '../command.ts';

const checkNew = compileBodyValidator(NewLeadScoreBody as object);
const checkChanges = compileBodyValidator(LeadScoreChangesBody as object);

/** What the options say on top of a file (they win over it). */
function flags(values: Options): LeadScoreChanges {
  return {
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(values.description !== undefined ? { description: values.description === '' ? null : values.description } : {}),
    ...(values.enabled !== undefined ? { enabled: yesNoOption(values.enabled, '--enabled') } : {}),
    ...(values.primary !== undefined ? { isPrimaryScore: yesNoOption(values.primary, '--primary') } : {}),
  };
}

const isScoreId = (value: string) => /^ls_/.test(value);

export const leadScoreCommand: Command = {
  name: 'lead-score',
  run: {
    async add({ services, values, args, emit, file }) {
      const given = { ...readJsonFile<NewLeadScore>(file(required(args[0], 'the definition file (FILE.json)')), checkNew), ...flags(values) } as NewLeadScore;
      const score = await services.leadScoreAdmin.create(await communityWriter({ services, values }), given);
      const job = score.recomputeJobId === null ? '' : `; recomputing in job ${score.recomputeJobId}`;
      emit(score, `Defined ${score.id} "${score.name}" for ${score.entityType}s${job}.`);
      return 0;
    },
    async list({ services, values, emit }) {
      const scores = await services.leadScoreAdmin.list(await community(services, values.community), values.all ?? false);
      const rows = scores.map((score) => [
        score.id,
        score.name,
        score.entityType,
        [score.enabled ? 'enabled' : 'disabled', score.isPrimaryScore ? 'primary' : '', score.computed ? '' : 'not computed'].filter(Boolean).join(', '),
        `${score.weights.length} weights, ${score.fit.length} fit`,
        String(score.scoredCount),
        score.recomputeJobId === null ? (score.computedAt ?? 'never') : `job ${score.recomputeJobId}`,
        score.retiredAt ? `retired ${score.retiredAt}` : '',
      ]);
      emit(scores, rows.length ? table(['SCORE', 'NAME', 'FOR', 'STATE', 'RULES', 'SCORED', 'COMPUTED', ''], rows) : '(none)');
      return 0;
    },
    async update({ services, values, args, emit, file }) {
      const id = parseId('lead_score', required(args[0], 'the lead score ID (ls_N)'));
      const changes = { ...(args[1] === undefined ? {} : readJsonFile<LeadScoreChanges>(file(args[1]), checkChanges)), ...flags(values) };
      if (Object.keys(changes).length === 0) throw new UsageError('say what changes: FILE.json, --name, --description, --enabled or --primary');
      const score = await services.leadScoreAdmin.update(await communityWriter({ services, values }), id, changes);
      const job = score.recomputeJobId === null ? '' : `; recomputing in job ${score.recomputeJobId}`;
      emit(score, `Changed ${score.id} "${score.name}" (version ${score.version})${job}.`);
      return 0;
    },
    async retire({ services, values, args, emit }) {
      const id = parseId('lead_score', required(args[0], 'the lead score ID (ls_N)'));
      const score = await services.leadScoreAdmin.retire(await communityWriter({ services, values }), id);
      emit(score, `Retired ${score.id} "${score.name}"; its values were removed.`);
      return 0;
    },
    async 'dry-run'({ services, values, args, emit, file }) {
      const target = required(args[0], 'a lead score ID (ls_N) or a definition file (FILE.json)');
      const communityId = await community(services, values.community);
      const given = isScoreId(target)
        ? await services.leadScoreAdmin.storedRules(communityId, parseId('lead_score', target))
        : readJsonFile<NewLeadScore>(file(target), checkNew);
      const limit = values.limit === undefined ? 10 : positiveInteger(values.limit, '--limit');
      if (limit > 100) throw new UsageError('--limit is at most 100');
      const result = await services.leadScoreAdmin.dryRun(cliWriter(communityId), given, limit);
      const rows = result.top.map((record, index) => [
        String(index + 1),
        record.id,
        record.name,
        String(record.score),
        String(record.percentile),
        record.keyFactors.map((factor) => `${factor.label} ${factor.value} (${factor.strength})`).join('; '),
      ]);
      const summary = `${result.scored} ${result.entityType}(s) would be scored, ${result.nonZero} above 0.`;
      emit(result, rows.length ? `${table(['#', 'ID', 'NAME', 'SCORE', 'PERCENTILE', 'KEY FACTORS'], rows)}\n${summary}` : summary);
      return 0;
    },
  },
};
