import { checkPromptKey, type ImportedAnswer, type ResearchPromptChanges } from '../../modules/insights/index.ts';
import { fileLines } from '../record-files.ts';
import { community, communityWriter, required, table, UsageError, yesNoOption, type Command, type Options } from '../command.ts';

/** What `add` and `update` read alike. */
function common(values: Options): ResearchPromptChanges {
  return {
    ...(values.name !== undefined ? { promptName: values.name } : {}),
    ...(values.prompt !== undefined ? { prompt: values.prompt } : {}),
    ...(values.primary !== undefined ? { isPrimaryPrompt: yesNoOption(values.primary, '--primary') } : {}),
  };
}

const describe = (prompt: { promptId: string; promptName: string; isPrimaryPrompt: boolean }) =>
  `${prompt.promptId} "${prompt.promptName}"${prompt.isPrimaryPrompt ? ' (primary)' : ''}`;

export const researchPromptCommand: Command = {
  name: 'research-prompt',
  run: {
    async add({ services, values, args, emit }) {
      const prompt = await services.researchPrompts.create(await communityWriter({ services, values }), {
        ...common(values),
        promptId: checkPromptKey(required(args[0], 'the prompt ID')),
        promptName: required(values.name, '--name'),
        prompt: required(values.prompt, '--prompt'),
      });
      emit(prompt, `Defined research prompt ${describe(prompt)}.`);
      return 0;
    },
    async list({ services, values, emit }) {
      const prompts = await services.researchPrompts.list(await community(services, values.community), values.all ?? false);
      const rows = prompts.map((prompt) => [
        prompt.promptId,
        prompt.promptName,
        prompt.isPrimaryPrompt ? 'yes' : '',
        String(prompt.answerCount),
        prompt.prompt.length > 60 ? `${prompt.prompt.slice(0, 59)}…` : prompt.prompt,
        prompt.retiredAt ? `retired ${prompt.retiredAt}` : '',
      ]);
      emit(prompts, rows.length ? table(['ID', 'NAME', 'PRIMARY', 'ANSWERS', 'PROMPT', ''], rows) : '(none)');
      return 0;
    },
    async update({ services, values, args, emit }) {
      const changes = common(values);
      if (Object.keys(changes).length === 0) throw new UsageError('say what changes: --name, --prompt or --primary');
      const prompt = await services.researchPrompts.update(await communityWriter({ services, values }), required(args[0], 'the prompt ID'), changes);
      emit(prompt, `Changed research prompt ${describe(prompt)}.`);
      return 0;
    },
    async retire({ services, values, args, emit }) {
      const prompt = await services.researchPrompts.retire(await communityWriter({ services, values }), required(args[0], 'the prompt ID'));
      emit(prompt, `Retired research prompt ${prompt.promptId}; its ${prompt.answerCount} answer(s) stay stored and are no longer shown.`);
      return 0;
    },
  },
};

/** Answers imported per request to the service: the route's limit. */
const CHUNK = 1000;

export const researchCommand: Command = {
  name: 'research',
  run: {
    async import({ services, values, args, emit, file: resolve }) {
      const file = resolve(required(args[0], 'the file'));
      const writer = await communityWriter({ services, values });
      let chunk: { line: number; answer: ImportedAnswer }[] = [];
      let imported = 0;
      const flush = async () => {
        if (chunk.length === 0) return;
        const lines = chunk.map((entry) => entry.line);
        imported += (
          await services.researchPrompts.importAnswers(
            writer,
            chunk.map((entry) => entry.answer),
            (index) => `line ${lines[index]}`,
          )
        ).imported;
        chunk = [];
      };
      for await (const row of fileLines(file, { byteOffset: 0, line: 0 })) {
        if (row.value.trim() === '') continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(row.value);
        } catch {
          throw new UsageError(`line ${row.line} of ${file} is not JSON (${imported} answer(s) imported before it)`);
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`line ${row.line} of ${file} is not a JSON object`);
        const item = parsed as Record<string, unknown>;
        const extra = Object.keys(item).filter((key) => !['organizationId', 'domain', 'promptId', 'answer'].includes(key));
        if (extra.length)
          throw new UsageError(`line ${row.line} of ${file}: unknown field(s) ${extra.join(', ')} (expected organizationId or domain, promptId, answer)`);
        for (const key of ['organizationId', 'domain', 'promptId', 'answer'] as const) {
          if (item[key] !== undefined && typeof item[key] !== 'string') throw new UsageError(`line ${row.line} of ${file}: ${key} must be a string`);
        }
        if (typeof item.promptId !== 'string' || typeof item.answer !== 'string')
          throw new UsageError(`line ${row.line} of ${file}: promptId and answer are required`);
        chunk.push({ line: row.line, answer: item as unknown as ImportedAnswer });
        if (chunk.length === CHUNK) await flush();
      }
      await flush();
      emit({ imported }, `Imported ${imported} research answer(s).`);
      return 0;
    },
  },
};
