import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { HearthError } from './errors.ts';

/** The sort position of the last record of a page: its sort values, then its ID. */
export type CursorPosition = (string | number | boolean | null)[];

/**
 * What a cursor is bound to: the list, its sort, direction and filters. A cursor presented with a
 * different binding is refused, so a client cannot resume one query's walk inside another.
 */
export interface CursorBinding {
  /** A cursor of one community's list is no cursor for another's. */
  community: number;
  list: string;
  sort: string;
  direction: 'asc' | 'desc';
  filters: Record<string, unknown>;
}

/** A cursor whose signature was checked: the hash of the binding it was issued for, and its position. */
export interface PresentedCursor {
  binding: string;
  position: CursorPosition;
}

export const invalidCursor = (message: string) => new HearthError('invalid_cursor', message);

const SIGNATURE_BYTES = 16;

/**
 * Opaque, tamper-evident keyset cursors: base64url(JSON {b, p}) + "." + base64url(HMAC). `b` is a hash of
 * the binding, `p` the position. The key is derived from the service's signing secret, so every process
 * of one deployment accepts every other's cursors.
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('hearth cursor v1').digest();
  }

  encode(binding: CursorBinding, position: CursorPosition): string {
    const body = Buffer.from(JSON.stringify({ b: bindingHash(binding), p: position })).toString('base64url');
    return `${body}.${this.sign(body).toString('base64url')}`;
  }

  /**
   * Checks a cursor a client presented: its form and its signature (a 400 for one that is malformed or
   * altered). Which list it belongs to is checked by `bind`, once the list knows its binding.
   */
  open(cursor: string): PresentedCursor {
    const [body, signature, extra] = cursor.split('.');
    if (!body || !signature || extra !== undefined) throw invalidCursor('cursor is malformed');
    // Compare the signature as text: decoding it first would accept other spellings of the same bytes
    // (Node's base64 decoder skips unknown characters and ignores the last character's spare bits).
    const given = Buffer.from(signature);
    const expected = Buffer.from(this.sign(body).toString('base64url'));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalidCursor('cursor is not valid: it was altered or not issued by this service');
    }
    let payload: { b?: unknown; p?: unknown };
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof payload;
    } catch {
      throw invalidCursor('cursor is malformed');
    }
    if (typeof payload.b !== 'string' || !isPosition(payload.p)) throw invalidCursor('cursor is malformed');
    return { binding: payload.b, position: payload.p };
  }

  /** The position of an opened cursor, when it was issued for this binding; a 400 otherwise. */
  bind(cursor: PresentedCursor, binding: CursorBinding): CursorPosition {
    if (cursor.binding !== bindingHash(binding)) {
      throw invalidCursor('cursor was issued for a different sort, direction or filter; start again without it');
    }
    return cursor.position;
  }

  private sign(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, SIGNATURE_BYTES);
  }
}

function isPosition(value: unknown): value is CursorPosition {
  return Array.isArray(value) && value.every((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item));
}

/** Hashes of recent bindings: a list's binding is the same on every page of every client's walk. */
const bindingHashes = new Map<string, string>();
const MAX_BINDING_HASHES = 1000;

function bindingHash(binding: CursorBinding): string {
  // Keyed by the plain JSON, which is cheaper than the canonical form and the hash (together about 2 % of
  // a list request's CPU); two spellings of one binding just take two entries.
  const plain = JSON.stringify(binding);
  let hash = bindingHashes.get(plain);
  if (hash === undefined) {
    hash = createHash('sha256').update(canonicalJson(binding)).digest('base64url').slice(0, 16);
    if (bindingHashes.size >= MAX_BINDING_HASHES) bindingHashes.clear();
    bindingHashes.set(plain, hash);
  }
  return hash;
}

/** JSON with object keys sorted and undefined values left out, so equal bindings hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
