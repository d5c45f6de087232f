import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './test-app.ts';

export interface PushOptions {
  /** Default: the test app's source. */
  sourceId?: number;
  /** Default: the test app's token. */
  token?: string;
}

/** The 202 answer of a core push. */
export interface Accepted {
  status: string;
  contactId: string;
  activityId?: string | null;
  warnings: string[];
}

/** A core push (`POST /community/v1/source/{id}/user|activity`), answered as it comes. */
export function push(t: TestApp, kind: 'user' | 'activity', body: Record<string, unknown>, options: PushOptions = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: `/community/v1/source/${options.sourceId ?? t.sourceId}/${kind}`,
    headers: { authorization: `Bearer ${options.token ?? t.token}` },
    payload: body,
  });
}

/** A core push that must be accepted: its answer. */
export async function accepted(t: TestApp, kind: 'user' | 'activity', body: Record<string, unknown>, options: PushOptions = {}): Promise<Accepted> {
  const response = await push(t, kind, body, options);
  expect(response.statusCode, response.body).toBe(202);
  return response.json() as Accepted;
}

/** Pushes a user: the ID of their contact (`c_N`). */
export async function pushUser(t: TestApp, body: Record<string, unknown>, options: PushOptions = {}): Promise<string> {
  return (await accepted(t, 'user', body, options)).contactId;
}
