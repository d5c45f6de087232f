import type { KeysetPage } from '../db/keyset.ts';
import type { CursorBinding, CursorCodec, CursorPosition } from './cursor.ts';
import type { PageRequest } from './list-query.ts';

export interface ListPage<Row> {
  rows: Row[];
  /** `meta.nextCursor`: null exactly when no record follows. */
  nextCursor: string | null;
}

/**
 * One page of a keyset list behind a signed cursor: the cursor is checked against the list's binding (its
 * community, sort, direction and filters), the page is fetched after its position, and the next cursor is
 * signed with the same binding.
 */
export async function pageWithCursor<Row>(
  cursors: CursorCodec,
  binding: CursorBinding,
  page: PageRequest,
  fetch: (after: CursorPosition | null) => Promise<Pick<KeysetPage<Row>, 'rows' | 'next'>>,
): Promise<ListPage<Row>> {
  const after = page.cursor ? cursors.bind(page.cursor, binding) : null;
  const fetched = await fetch(after);
  return { rows: fetched.rows, nextCursor: fetched.next ? cursors.encode(binding, fetched.next) : null };
}
