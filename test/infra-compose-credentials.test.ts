/**
 * The compose deployment renews its token: every process that talks to the service (the feed
 * ingestor, the history loader, the trading gateway) gets the token source and every variable
 * packages/credentials reads, the PIN and the TOTP secret as compose secrets read through `*_FILE`,
 * and one shared volume for the renewal lease at SVC_TOKEN_SHARE_DIR; the file, with a renewing
 * source's variables set, is valid against the Compose specification (dclint's copy of its schema)
 * and dclint finds no error in it; and the environment a container gets is one the credentials
 * package accepts. test/compose-renewal.test.ts runs the CLIs with that environment.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CREDENTIALS_ENV, credentialsConfigFromEnv } from '../packages/credentials/src/config.js';
import {
  composeWith,
  containerEnvironment,
  ENV_EXAMPLE_FILE,
  REPO_ROOT,
  readCompose,
  readEnvFile,
  secretMounts,
  servicesOfTheAccount,
  volumeMounts,
} from './support/compose-env.js';

const require = createRequire(import.meta.url);
const scratch = mkdtempSync(join(tmpdir(), 'feedpipe-compose-credentials-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Secrets the credentials package reads from a variable or its `_FILE`: compose passes them as files. */
const SECRET_VARIABLES = ['SVC_PIN', 'SVC_TOTP_SECRET'] as const;

/** .env.example with the variables of a renewing (TOTP) deployment against the demo simulator. */
function totpEnv(): Map<string, string> {
  const env = readEnvFile(ENV_EXAMPLE_FILE);
  env.set('SVC_TOKEN_SOURCE', 'totp');
  env.set('SVC_PIN', '123456');
  env.set('SVC_TOTP_SECRET', 'JBSWY3DPEHPK3PXP');
  env.set('SVC_TOKEN_RENEW_AHEAD_S', '900');
  return env;
}

describe('compose: the token source reaches every process of the account', () => {
  const doc = readCompose();
  const account = servicesOfTheAccount(doc);

  it('the ingestors (leader and standby), the history loader and the trading gateway are the processes of the account', () => {
    expect(account).toEqual(['feed-ingestor', 'feed-ingestor-2', 'history-loader', 'trading-gateway']);
    // The query API never holds the account's credentials.
    const api = Object.keys(doc.services['query-api']?.environment ?? {});
    expect(api.filter((name) => name.startsWith('SVC_'))).toEqual([]);
    expect(doc.services['query-api']?.secrets ?? []).toEqual([]);
  });

  it('passes every credentials variable, the same value for each process', () => {
    const env = totpEnv();
    const resolved = composeWith(env);
    const expected = Object.keys(CREDENTIALS_ENV).filter(
      (name) => !(SECRET_VARIABLES as readonly string[]).includes(name),
    );
    for (const service of account) {
      const vars = containerEnvironment(resolved, service);
      expect(Object.keys(vars), service).toEqual(expect.arrayContaining([...expected, 'SVC_CLIENT_ID']));
      expect(vars.SVC_TOKEN_SOURCE, service).toBe('totp');
      expect(vars.SVC_TOKEN_RENEW_AHEAD_S, service).toBe('900');
    }
    // One account, one renewal: every process must agree on all of it.
    const first = containerEnvironment(resolved, account[0] ?? '');
    for (const service of account.slice(1)) {
      const vars = containerEnvironment(resolved, service);
      for (const name of [...expected, 'SVC_CLIENT_ID']) {
        expect(vars[name], `${service}.${name}`).toBe(first[name]);
      }
    }
  });

  it('gives the PIN and the TOTP secret as compose secrets read through *_FILE, never as variables', () => {
    for (const service of account) {
      const vars = containerEnvironment(doc, service);
      const mounts = secretMounts(doc, service);
      for (const name of SECRET_VARIABLES) {
        expect(vars[name], `${service} must not get ${name} in its environment`).toBeUndefined();
        const path = vars[`${name}_FILE`] ?? '';
        const secret = [...mounts].find(([, target]) => target === path)?.[0];
        expect(secret, `${service}: ${name}_FILE=${path} is one of its secrets`).toBeDefined();
        // The secret's value comes from the variable of the same name in infra/.env.
        expect(doc.secrets?.[secret ?? '']?.environment, `${secret}`).toBe(name);
        expect(readFileSync(ENV_EXAMPLE_FILE, 'utf8')).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
      }
    }
  });

  it('mounts one shared, writable volume at SVC_TOKEN_SHARE_DIR in every process of the account', () => {
    const sources = new Set<string>();
    for (const service of account) {
      const dir = containerEnvironment(doc, service).SVC_TOKEN_SHARE_DIR ?? '';
      expect(dir, service).toMatch(/^\//);
      const mount = volumeMounts(doc, service).find((m) => m.target === dir);
      expect(mount, `${service} mounts ${dir}`).toBeDefined();
      expect(mount?.readOnly, `${service}: the lease is written by whoever holds it`).toBe(false);
      sources.add(mount?.source ?? '');
    }
    expect(sources.size).toBe(1);
    const [volume = ''] = sources;
    // A named volume (not a bind mount of a host path), declared at the top level.
    expect(volume).toMatch(/^[a-z][a-z0-9_-]*$/);
    expect(Object.keys(doc.volumes ?? {})).toContain(volume);
    // The image creates the directory for the services' user, so the empty volume takes its owner
    // and mode (0700) when first mounted.
    const dockerfile = readFileSync(join(REPO_ROOT, 'infra/docker/Dockerfile'), 'utf8');
    const dir = containerEnvironment(doc, account[0] ?? '').SVC_TOKEN_SHARE_DIR ?? '';
    expect(dockerfile).toContain(`mkdir -p /data /demo ${dir}`);
    expect(dockerfile).toMatch(new RegExp(`chown node:node .*${dir}`));
    expect(dockerfile).toContain(`chmod 0700 ${dir}`);
  });

  it('is valid against the Compose specification with a renewing source’s variables, and dclint finds no error', () => {
    const env = totpEnv();
    const schemaFile = join(
      dirname(require.resolve('dclint/package.json')),
      'schemas',
      'compose.schema.json',
    );
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as { $schema: string };
    const ajv = new Ajv({ allErrors: true, strict: false });
    const draft7 = require('ajv/dist/refs/json-schema-draft-07.json') as Record<string, unknown>;
    ajv.addMetaSchema({ ...draft7, $id: schema.$schema });
    const validate = ajv.compile(schema);
    const resolved = composeWith(env);
    validate(resolved);
    expect(validate.errors ?? []).toEqual([]);
    // dclint's rules on the file compose would run (interpolated, merge keys resolved), errors only
    // (its warnings are style: key order). One rule is off: every feedpipe service names the image
    // it builds (`image` + `build`, so the one build is tagged FEEDPIPE_IMAGE), which compose allows.
    const file = join(scratch, 'docker-compose.yml');
    writeFileSync(file, stringify(resolved));
    const bin = join(dirname(require.resolve('dclint/package.json')), 'bin', 'dclint.cjs');
    const args = [bin, file, '--quiet', '--color', 'false', '--disable-rule', 'no-build-and-image'];
    const lint = spawnSync(process.execPath, args, {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const errors = `${lint.stdout}${lint.stderr}`.split('\n').filter((line) => /\berror\b/.test(line));
    expect(errors).toEqual([]);
    expect(lint.status, `${lint.stdout}${lint.stderr}`).toBe(0);
    expect(JSON.stringify(resolved)).not.toMatch(/\$\{[A-Z]/);
  });

  it('gives each container an environment the credentials package accepts (totp, and the default static)', () => {
    const env = totpEnv();
    const resolved = composeWith(env);
    for (const service of account) {
      const vars = containerEnvironment(resolved, service);
      // Each compose secret, written where the container would see it (here: under the scratch dir).
      const mounts = secretMounts(resolved, service);
      const remapped: Record<string, string> = { ...vars };
      for (const name of SECRET_VARIABLES) {
        const secret = [...mounts].find(([, target]) => target === vars[`${name}_FILE`])?.[0] ?? '';
        const path = join(scratch, `${service}-${secret}`);
        writeFileSync(path, `${env.get(name)}\n`);
        remapped[`${name}_FILE`] = path;
      }
      remapped.SVC_TOKEN_SHARE_DIR = join(scratch, 'share');
      const config = credentialsConfigFromEnv(remapped, vars.SVC_CLIENT_ID ?? '');
      expect(config.source, service).toBe('totp');
      expect(config.pin, service).toBe('123456');
      expect(config.totpSecret, service).toBe('JBSWY3DPEHPK3PXP');
      expect(config.authUrl, service).toBe('http://broker-sim:7080/auth');
      expect(config.shareDir, service).toBe(join(scratch, 'share'));
      expect(config.renewAheadMs, service).toBe(900_000);

      // The default (static, the demo's token): the empty secret files are not read.
      const demo = containerEnvironment(composeWith(readEnvFile(ENV_EXAMPLE_FILE)), service);
      const empty = join(scratch, `${service}-empty`);
      writeFileSync(empty, '');
      const staticConfig = credentialsConfigFromEnv(
        {
          ...demo,
          SVC_ACCESS_TOKEN: 'demo-token',
          SVC_PIN_FILE: empty,
          SVC_TOTP_SECRET_FILE: empty,
          SVC_TOKEN_SHARE_DIR: join(scratch, 'share'),
        },
        demo.SVC_CLIENT_ID ?? '',
      );
      expect(staticConfig.source, service).toBe('static');
      expect(staticConfig.accessToken, service).toBe('demo-token');
    }
  });
});
