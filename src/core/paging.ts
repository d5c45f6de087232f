import type { KeysetPage } from '../db/keyset.ts';
import type { CursorBinding, CursorCodec, CursorPosition } from './cursor.ts';

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
  cursor: string | undefined,
  fetch: (after: CursorPosition | null) => Promise<KeysetPage<Row>>,
): Promise<ListPage<Row>> {
  const after = cursor ? cursors.decode(cursor, binding) : null;
  const page = await fetch(after);
  return { rows: page.rows, nextCursor: page.next ? cursors.encode(binding, page.next) : null };
}
