import { describe, expect, it } from 'vitest';
import { dataDirUnavailable, postgresUnavailable } from '../../src/db/database-errors.ts';

// The conditions a process test cannot make on every machine (a wrong password needs a server that asks
// for one; a data directory without permission needs a user that is not root); the others are tested
// through `hearth` itself (test/process/cli-errors.test.ts).
describe('a database that cannot be used, in one line', () => {
  const url = 'postgres://app:secret@db.example.com:6432/hearth';

  it('names the server and the database, never the password', () => {
    const wrong = postgresUnavailable({ code: '28P01', message: 'password authentication failed for user "app"' }, url);
    expect(wrong?.message).toBe(
      'PostgreSQL at db.example.com:6432 refused the credentials in DATABASE_URL (password authentication failed for user "app"). Check the user name and password.',
    );
    expect(postgresUnavailable({ code: '3D000' }, url)?.message).toBe(
      'PostgreSQL at db.example.com:6432 has no database "hearth". Create it (createdb hearth) or fix the database name in DATABASE_URL.',
    );
    expect(postgresUnavailable({ code: 'ETIMEDOUT' }, url)?.message).toContain('it is unreachable (ETIMEDOUT)');
    for (const code of ['28P01', '3D000', 'ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT'])
      expect(postgresUnavailable({ code }, url)?.message).not.toContain('secret');
  });

  it('leaves other errors alone (a bug keeps its stack)', () => {
    expect(postgresUnavailable(new Error('boom'), url)).toBeNull();
    expect(postgresUnavailable({ code: '42P01' }, url)).toBeNull();
    expect(dataDirUnavailable(new Error('boom'), '/data')).toBeNull();
  });

  it('a data directory without permission says what to do', () => {
    expect(dataDirUnavailable({ code: 'EACCES' }, '/srv/hearth')?.message).toBe(
      'cannot use the data directory /srv/hearth: permission denied. Give this user read and write access to it, or set HEARTH_DATA_DIR to another directory.',
    );
  });
});
