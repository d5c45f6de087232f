import fs from 'node:fs';
import { formatId } from '../../core/ids.ts';
import type { Cols, PageRequest, SortedListQuery } from '../../core/list-query.ts';
import type { ColsOptions } from '../../http/cols.ts';
import { ACTIVITY_LIST_COLS } from '../../modules/activities/index.ts';
import { CONTACT_LIST_COLS } from '../../modules/contacts/index.ts';
import { ORGANIZATION_LIST_COLS } from '../../modules/organizations/index.ts';
import type { Services } from '../../services.ts';
import { community, required, UsageError, type Command } from '../command.ts';
import { lineProgress, terminalProgress } from '../progress-bar.ts';

/** Records per page: the lists' largest page, so an export is a few hundred reads, each one bounded. */
const PAGE_SIZE = 1000;

type Page = { data: Record<string, unknown>[]; meta: { nextCursor: string | null; recordCount?: number } };

/** What each exportable list reads: every column its v2 list offers, custom fields included. */
const LISTS: Record<string, { cols: ColsOptions; read(services: Services, communityId: number, query: SortedListQuery): Promise<Page> }> = {
  contacts: { cols: CONTACT_LIST_COLS, read: (services, id, query) => services.contacts.list(id, query) as Promise<Page> },
  organizations: { cols: ORGANIZATION_LIST_COLS, read: (services, id, query) => services.organizations.list(id, query) as Promise<Page> },
  activities: { cols: ACTIVITY_LIST_COLS, read: (services, id, query) => services.activities.list(id, query) as Promise<Page> },
};

const FORMATS = ['jsonl', 'csv'] as const;

/** Text a spreadsheet would run as a formula: it starts with =, +, -, @, a tab or a carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number or a phone number (`-3.5`, `+1 (555) 010-0100`): no formula, and kept as it is. */
const NUMBER_LIKE = /^[+-]?\d[\d\s().,-]*$/;
/**
 * What follows a semicolon, tab or line break inside a field, when it would run as a formula once the field
 * is cut there: spaces and quotes, a formula character, and the rest up to the next such separator.
 */
const FORMULA_AFTER_SEPARATOR = /(?<=[;\t\r\n])[ "]*[=+\-@][^;\t\r\n]*/g;

/**
 * One CSV field (RFC 4180): nested values as JSON, quoted when they hold a comma, semicolon, tab, quote or
 * line break. People write their own names and titles, so text a spreadsheet would run as a formula
 * (`=HYPERLINK(…)`) is written with an apostrophe before it, as OWASP advises for CSV files: the
 * spreadsheet takes it as text.
 *
 * Spreadsheets set to a locale whose list separator is the semicolon, and imports that split on tabs, cut
 * a row at those characters without reading the quotes that surround a field in mid-row, so `x;=1+1` there
 * is two cells, the second a formula. Quoting keeps such a field whole where quotes are read; where they
 * are not, each part that would run as a formula gets the apostrophe too (`x;'=1+1`).
 */
function csvField(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text) && !NUMBER_LIKE.test(text)) text = `'${text}`;
  // Nested values too: their JSON holds people's text, and a semicolon in it cuts the cell as well.
  text = text.replace(FORMULA_AFTER_SEPARATOR, (part: string, offset: number) => {
    // A number is left as it is only where the cut cell ends with it: at the field's end, the cell runs on
    // into the fields after it.
    const cutBefore = offset + part.length < text.length;
    return cutBefore && NUMBER_LIKE.test(part.replace(/^[ "]*/, '')) ? part : `'${part}`;
  });
  return /[",;\t\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const exportCommand: Command = {
  name: 'export',
  takesArguments: true,
  run: {
    async ''({ services, values, args, terminal, file, emit }) {
      const what = required(args[0], 'what to export (contacts, organizations or activities)');
      const list = Object.hasOwn(LISTS, what) ? LISTS[what]! : null;
      if (!list) throw new UsageError(`export takes contacts, organizations or activities, not "${what}"`);
      const format = values.format ?? 'jsonl';
      if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be jsonl or csv, not "${format}"`);
      const communityId = await community(services, values.community);
      const out = values.out === undefined ? null : file(values.out);

      // Written beside the target and renamed at the end: a file that is there is a whole export. It holds
      // people's contact details, so only its owner may read it, as a backup.
      const partial = out === null ? null : `${out}.partial-${process.pid}`;
      const stream = partial === null ? null : fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 });
      if (stream)
        await new Promise<void>((resolve, reject) =>
          stream.once('open', () => resolve()).once('error', (error) => reject(new UsageError(`cannot write ${out}: ${error.message}`))),
        );
      const write = (text: string) =>
        stream
          ? new Promise<void>((resolve, reject) => {
              if (stream.write(text, (error) => error && reject(error))) resolve();
              else stream.once('drain', resolve);
            })
          : terminal.out(text);

      const cols: Cols = { names: new Set(list.cols.optIn), recordCount: true, customFields: list.cols.customFields ? 'all' : null };
      const progress = terminal.errIsTTY
        ? terminalProgress({ write: terminal.err }, Date.now, 100, what)
        : lineProgress({ write: terminal.err }, `exporting ${what}`, what);
      let interrupted = false;
      const release = terminal.onInterrupt(() => {
        interrupted = true;
      });
      let header: string[] | null = null;
      let count = 0;
      try {
        let cursor: string | null = null;
        let first = true;
        do {
          const page: PageRequest = { limit: PAGE_SIZE, direction: 'asc', cursor: cursor === null ? null : services.cursors.open(cursor) };
          // The count once, for the progress: later pages ask for the records only.
          const result: Page = await list.read(services, communityId, { cols: { ...cols, recordCount: first }, sort: { kind: 'fixed', name: 'id' }, page });
          if (first) progress.start(result.meta.recordCount ?? 0);
          first = false;
          let text = '';
          for (const record of result.data) {
            if (format === 'jsonl') text += `${JSON.stringify(record)}\n`;
            else {
              if (header === null) {
                header = Object.keys(record);
                text += `${header.map(csvField).join(',')}\r\n`;
              }
              text += `${header.map((key) => csvField(record[key])).join(',')}\r\n`;
            }
          }
          if (text) await write(text);
          count += result.data.length;
          progress.update(count);
          cursor = result.meta.nextCursor;
        } while (cursor !== null && !interrupted);
        progress.finish();
      } catch (error) {
        stream?.destroy();
        if (partial) fs.rmSync(partial, { force: true });
        throw error;
      } finally {
        release();
      }
      if (interrupted) {
        stream?.destroy();
        if (partial) fs.rmSync(partial, { force: true });
        terminal.err(`hearth: export interrupted after ${count} ${what}${out ? `; ${out} was not written` : ''}.\n`);
        return 130;
      }
      if (stream && partial && out) {
        await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
        fs.renameSync(partial, out);
        emit(
          { exported: count, what, format, file: out, communityId: formatId('community', communityId) },
          `Exported ${count} ${what} of ${formatId('community', communityId)} to ${out} (${format}).`,
        );
      }
      return 0;
    },
  },
};
