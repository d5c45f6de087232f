import { ID_PREFIXES } from '../../core/ids.ts';
import { community, communityWriter, required, table, UsageError, type Command } from '../command.ts';

/** A `c_N` given on the command line (or a bare number). */
function contactId(value: string | undefined, what: string): number {
  const given = required(value, what);
  const digits = given.startsWith(ID_PREFIXES.contact) ? given.slice(ID_PREFIXES.contact.length) : given;
  if (!/^\d+$/.test(digits)) throw new UsageError(`"${given}" is not a contact ID (c_N)`);
  return Number(digits);
}

const c = (id: number) => `${ID_PREFIXES.contact}${id}`;

/** Merging contacts by hand and undoing merges (docs/ingestion.md, "Merging by hand, and undoing a merge"). */
export const contactCommand: Command = {
  name: 'contact',
  run: {
    async merge(context) {
      const { services, args, emit } = context;
      const merged = await services.contactMerges.merge(
        await communityWriter(context),
        contactId(args[0], 'the contact ID'),
        contactId(args[1], 'the other contact ID'),
      );
      const result = { survivorId: c(merged.survivorId), mergedId: c(merged.mergedId) };
      emit(
        result,
        `Merged ${result.mergedId} into ${result.survivorId} (the older one); \`hearth contact unmerge ${result.survivorId} ${result.mergedId}\` undoes it.`,
      );
      return 0;
    },
    async unmerge(context) {
      const { services, args, emit } = context;
      const undone = await services.contactMerges.unmerge(
        await communityWriter(context),
        contactId(args[0], 'the contact ID'),
        contactId(args[1], 'the merged contact ID'),
      );
      const result = { survivorId: c(undone.survivorId), restoredId: c(undone.restoredId) };
      emit(result, `Brought ${result.restoredId} back from ${result.survivorId}; the two are marked never to merge again.`);
      return 0;
    },
    async merges({ services, values, args, emit }) {
      const merges = await services.contacts.merges(await community(services, values.community), contactId(args[0], 'the contact ID'));
      emit(
        merges,
        merges.length
          ? table(
              ['MERGED', 'AT', 'BY', 'UNDONE', 'REASON'],
              merges.map((merge) => [
                merge.mergedId,
                merge.mergedAt,
                merge.mergedBy ?? 'ingestion',
                merge.unmergedAt ? `${merge.unmergedAt} by ${merge.unmergedBy}` : merge.undoable ? '' : '(cannot be undone)',
                merge.reason,
              ]),
            )
          : '(none)',
      );
      return 0;
    },
  },
};
