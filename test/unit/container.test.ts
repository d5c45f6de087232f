import { builtinModules } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONSOLE_DIST } from '../../src/modules/console/console.routes.ts';
import { Processes } from '../helpers/process.ts';

/**
 * The container image: the Dockerfile and compose.yaml. The machine that runs the tests has no container runtime, so
 * the image is not built here: this checks the files' structure, and runs what the image runs by hand: its
 * entry point, with only the packages `npm ci --omit=dev` installs, and its healthcheck against it.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Instruction {
  name: string;
  args: string;
}

/** The Dockerfile's instructions: continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): Instruction[] {
  const logical: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    const continued = /\\\s*$/.test(line);
    current += (current ? ' ' : '') + line.replace(/\\\s*$/, '').trim();
    if (!continued) {
      if (current.trim()) logical.push(current.trim());
      current = '';
    }
  }
  return logical.map((line) => {
    const [, name, args] = /^(\w+)\s+([\s\S]*)$/.exec(line)!;
    return { name: name!.toUpperCase(), args: args!.trim() };
  });
}

/** An exec-form argument list (`["node", "x"]`), as Docker reads it (JSON). */
function execForm(args: string): string[] {
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) throw new Error(`not an exec form: ${args}`);
  return parsed;
}

const dockerfile = instructions(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const stages = dockerfile.reduce<Instruction[][]>((all, instruction) => {
  if (instruction.name === 'FROM') all.push([]);
  all.at(-1)?.push(instruction);
  return all;
}, []);
const finalStage = stages.at(-1)!;

/**
 * What the final stage copies from the build context into /app (its WORKDIR), by the path it has there:
 * each COPY (not from another stage) of sources to a destination under the WORKDIR.
 */
function imageFiles(): string[] {
  expect(finalStage.find((i) => i.name === 'WORKDIR')?.args).toBe('/app');
  return finalStage
    .filter((i) => i.name === 'COPY' && !i.args.startsWith('--from'))
    .flatMap((i) => {
      const parts = i.args.split(/\s+/);
      const destination = parts.at(-1)!;
      const sources = parts.slice(0, -1);
      // `COPY a b ./` puts each at its name; `COPY dir ./dir` puts the directory at that path.
      return sources.map((source) =>
        (destination.endsWith('/') ? path.posix.join(destination, path.posix.basename(source)) : destination).replace(/^\.\//, ''),
      );
    });
}
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };

/** The top-level packages `npm ci --omit=dev` installs: the lockfile's, but those only development needs. */
const productionPackages = Object.entries(lock.packages)
  .filter(([key, entry]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(key) && !entry.dev)
  .map(([key]) => key.slice('node_modules/'.length));

/** A bare import's package name: `pg`, `@scope/name`, from `pg/lib/x` or `@scope/name/sub`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(packageOf(specifier));

describe('the Dockerfile', () => {
  it('builds in stages from a pinned slim Node base that package.json allows', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const [required] = /\d+\.\d+/.exec(pkg.engines.node)!;
    for (const stage of stages) {
      const image = stage[0]!.args.split(/\s+/)[0]!;
      // An exact version (or a digest): the same Dockerfile builds the same Node tomorrow.
      const match = /^node:(\d+)\.(\d+)\.(\d+)-(slim|alpine)(@sha256:[0-9a-f]{64})?$/.exec(image);
      expect(match, image).not.toBeNull();
      const [major, minor] = required.split('.').map(Number);
      expect(Number(match![1]) > major! || (Number(match![1]) === major && Number(match![2]) >= minor!), `${image} satisfies ${pkg.engines.node}`).toBe(true);
    }
  });

  it('installs production dependencies only, from the lockfile', () => {
    const runs = dockerfile.filter((i) => i.name === 'RUN').map((i) => i.args);
    expect(runs.some((run) => /\bnpm ci\b.*--omit=dev\b/.test(run))).toBe(true);
    expect(runs.some((run) => /\bnpm (install|i)\b/.test(run))).toBe(false);
    // The final stage takes node_modules from the stage that ran `npm ci`, and copies only what runs.
    const copies = finalStage.filter((i) => i.name === 'COPY').map((i) => i.args);
    expect(copies).toContain('--from=dependencies /app/node_modules ./node_modules');
    const sources = copies.filter((c) => !c.startsWith('--from')).flatMap((c) => c.split(/\s+/).slice(0, -1));
    expect(sources.sort()).toEqual(['bin', 'console/dist', 'package-lock.json', 'package.json', 'src']);
    // Each where the server looks for it: the built console where the console's routes read it.
    expect(imageFiles().sort()).toEqual(['bin', 'console/dist', 'package-lock.json', 'package.json', 'src']);
    expect(path.relative(ROOT, CONSOLE_DIST)).toBe('console/dist');
    const ignored = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'data', '.git']) expect(ignored).toContain(entry);
  });

  it("makes /data, where the embedded database lives, the running user's alone (0700), as Hearth requires", () => {
    const user = finalStage
      .filter((i) => i.name === 'USER')
      .at(-1)!
      .args.split(':')[0]!;
    const runs = finalStage.filter((i) => i.name === 'RUN').map((i) => i.args);
    const made = runs.find((run) => /\bmkdir\b.*\s\/data\b/.test(run));
    expect(made).toBeDefined();
    expect(made).toMatch(new RegExp(`\\bchown ${user}(:${user})? /data\\b`));
    expect(made).toMatch(/\bchmod (0?700|u=rwx,go=) \/data\b|\bmkdir (-p )?-m (0?700|u=rwx,go=) (-p )?\/data\b/);
    expect(finalStage.find((i) => i.name === 'VOLUME')?.args).toBe('["/data"]');
  });

  it('runs as a user that is not root, with a healthcheck on /healthz, serving on 0.0.0.0:3000', () => {
    const users = finalStage.filter((i) => i.name === 'USER').map((i) => i.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    const names = finalStage.map((i) => i.name);
    expect(names.lastIndexOf('USER')).toBeLessThan(names.indexOf('ENTRYPOINT'));
    const healthcheck = finalStage.find((i) => i.name === 'HEALTHCHECK')!;
    expect(healthcheck.args).toMatch(/--interval=\d+s/);
    expect(healthcheck.args).toContain('/healthz');
    expect(finalStage.find((i) => i.name === 'EXPOSE')?.args).toBe('3000');
    const env = finalStage
      .filter((i) => i.name === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bHOST=0\.0\.0\.0\b/);
    expect(env).toMatch(/\bHEARTH_DATA_DIR=\/data\b/);
    const entry = [...execForm(finalStage.find((i) => i.name === 'ENTRYPOINT')!.args), ...execForm(finalStage.find((i) => i.name === 'CMD')!.args)];
    expect(entry).toEqual(['node', 'bin/hearth.mjs', 'serve']);
  });

  it('has every package the entry point imports among the dependencies, none among the devDependencies', async () => {
    // What bin/hearth.mjs loads: the bundle of src/cli/main.ts (packages left external, as it builds it),
    // and esbuild and tsx, which it imports itself.
    const bundled = await build({
      entryPoints: [path.join(ROOT, 'src/cli/main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const imported = new Set<string>(['esbuild', 'tsx']);
    for (const output of Object.values(bundled.metafile.outputs)) {
      for (const item of output.imports) if (item.external && !isBuiltin(item.path)) imported.add(packageOf(item.path));
    }
    expect(imported.size).toBeGreaterThan(10);
    for (const name of imported) {
      expect(pkg.dependencies, `${name} is imported by the server`).toHaveProperty([name]);
      expect(productionPackages, `npm ci --omit=dev installs ${name}`).toContain(name);
    }
    expect(imported).toContain('prom-client');
  });
});

describe('the image entry point, by hand', () => {
  const processes = new Processes();
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-image-'));
  afterAll(async () => {
    await processes.cleanup();
    fs.rmSync(app, { recursive: true, force: true });
  });

  it('serves with only the production packages, and passes its healthcheck', { timeout: 120_000 }, async () => {
    // The final stage's /app: package files, bin/ and src/, and a node_modules with only what
    // `npm ci --omit=dev` installs (each a link to this checkout's copy).
    for (const entry of imageFiles()) fs.cpSync(path.join(ROOT, entry), path.join(app, entry), { recursive: true });
    for (const name of productionPackages) {
      const from = path.join(ROOT, 'node_modules', name);
      if (!fs.existsSync(from)) continue;
      fs.mkdirSync(path.dirname(path.join(app, 'node_modules', name)), { recursive: true });
      fs.symlinkSync(from, path.join(app, 'node_modules', name), 'dir');
    }
    // Development's own packages are absent (a devDependency that a dependency needs too, like yaml, stays).
    const devOnly = Object.keys(pkg.devDependencies).filter((name) => lock.packages[`node_modules/${name}`]?.dev);
    expect(devOnly).toContain('vitest');
    for (const name of devOnly) expect(fs.existsSync(path.join(app, 'node_modules', name)), name).toBe(false);

    // The final stage's RUN: bundle the sources into node_modules/.cache, which `serve` then loads.
    const bundling = finalStage.find((i) => i.name === 'RUN' && i.args.startsWith('node bin/hearth.mjs --help'));
    expect(bundling).toBeDefined();
    execFileSync(process.execPath, ['bin/hearth.mjs', '--help'], { cwd: app, stdio: 'pipe', timeout: 60_000 });
    // bin/hearth.mjs keeps a checkout's bundles in node_modules/.cache/hearth-<checkout>.
    const cache = path.join(app, 'node_modules/.cache');
    const bundles = () =>
      fs
        .readdirSync(cache)
        .filter((name) => name.startsWith('hearth-'))
        .flatMap((name) => fs.readdirSync(path.join(cache, name)));
    expect(bundles()).toHaveLength(1);
    const dataDir = processes.tempDir();
    const server = await processes.serve({ HEARTH_DATA_DIR: dataDir, NODE_ENV: 'production', HEARTH_SHUTDOWN_GRACE: '0' }, { cwd: app });
    expect(bundles()).toHaveLength(1);

    const healthcheck = execForm(finalStage.find((i) => i.name === 'HEALTHCHECK')!.args.replace(/^(--\S+\s+)*CMD\s+/, ''));
    expect(healthcheck[0]).toBe('node');
    const run = (port: number) =>
      execFileSync(process.execPath, healthcheck.slice(1), { env: { ...process.env, PORT: String(port) }, stdio: 'pipe', timeout: 10_000 });
    expect(() => run(server.port)).not.toThrow();
    // The web console is served from what the image holds.
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toBe(fs.readFileSync(path.join(ROOT, 'console/dist/index.html'), 'utf8'));
    server.process.kill('SIGTERM');
    expect(await server.process.waitForExit()).toEqual({ code: 0, signal: null });
    // With nothing listening, the healthcheck fails.
    expect(() => run(server.port)).toThrow();
  });
});

describe('compose.yaml', () => {
  const compose = parse(fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as {
    services: Record<
      string,
      {
        image?: string;
        build?: string;
        environment?: Record<string, string>;
        volumes?: string[];
        healthcheck?: { test: string[] };
        depends_on?: Record<string, { condition: string }>;
        stop_grace_period?: string;
      }
    >;
    volumes: Record<string, unknown>;
  };

  it('runs Hearth built from this Dockerfile on PostgreSQL 15 with a volume, both with healthchecks', () => {
    const [dbName, db] = Object.entries(compose.services).find(([, service]) => service.image?.startsWith('postgres:'))!;
    expect(db.image).toMatch(/^postgres:15(\.\d+)*(-\w+)?$/);
    const volume = db.volumes!.find((v) => v.endsWith(':/var/lib/postgresql/data'))!;
    expect(Object.keys(compose.volumes)).toContain(volume.split(':')[0]);
    expect(db.healthcheck!.test.join(' ')).toContain('pg_isready');

    const hearth = compose.services.hearth!;
    expect(hearth.build).toBe('.');
    expect(hearth.depends_on?.[dbName]).toEqual({ condition: 'service_healthy' });
    expect(hearth.healthcheck!.test.join(' ')).toMatch(/\/(readyz|healthz)/);
    // The drain (10 s by default) and the close must fit in the stop timeout (Docker's default: 10 s).
    expect(Number.parseInt(hearth.stop_grace_period!, 10)).toBeGreaterThan(10);

    // DATABASE_URL names the PostgreSQL service's user, password and database.
    const url = new URL(hearth.environment!.DATABASE_URL!.replaceAll('${POSTGRES_PASSWORD:-hearth}', 'secret'));
    const env = db.environment!;
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe(dbName);
    expect(url.username).toBe(env.POSTGRES_USER);
    expect(url.password).toBe(env.POSTGRES_PASSWORD!.replaceAll('${POSTGRES_PASSWORD:-hearth}', 'secret'));
    expect(url.pathname).toBe(`/${env.POSTGRES_DB}`);
  });
});
