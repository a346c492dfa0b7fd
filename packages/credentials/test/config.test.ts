/**
 * The credential variables: each source's requirements named by variable, secrets from the
 * environment or `*_FILE`, and no message that echoes a secret.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { describe, expect, it } from 'vitest';
import { credentialsConfigFromEnv } from '../src/index.js';

const PIN = '482913';
const SECRET = 'JBSWY3DPEHPK3PXP';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjE5MDAwMDAwMDB9.very-secret-signature';

function problemsOf(env: Record<string, string>): string {
  try {
    credentialsConfigFromEnv(env, '1000000001');
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

describe('credentialsConfigFromEnv', () => {
  it('defaults to a static token with the documented timings', () => {
    const c = credentialsConfigFromEnv({ SVC_ACCESS_TOKEN: TOKEN }, '1000000001');
    expect(c).toMatchObject({
      source: 'static',
      accessToken: TOKEN,
      renewAheadMs: 1_800_000,
      warnAheadMs: 21_600_000,
      leaseMs: 30_000,
      totpSkewMs: 0,
      pollMs: 1000,
    });
    expect(c.shareDir).toBeUndefined();
  });

  it('reads PIN, TOTP secret and token from *_FILE (Docker/Kubernetes secrets)', () => {
    const dir = tempDir('credentials-config');
    const write = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, `${text}\n`, { mode: 0o600 });
      return path;
    };
    const c = credentialsConfigFromEnv(
      {
        SVC_TOKEN_SOURCE: 'totp',
        SVC_PIN_FILE: write('pin', PIN),
        SVC_TOTP_SECRET_FILE: write('totp', 'jbsw y3dp ehpk 3pxp'),
        SVC_AUTH_URL: 'http://127.0.0.1:7080/auth/',
      },
      '1000000001',
    );
    expect(c).toMatchObject({
      source: 'totp',
      pin: PIN,
      totpSecret: SECRET,
      authUrl: 'http://127.0.0.1:7080/auth',
    });
    const web = credentialsConfigFromEnv(
      {
        SVC_TOKEN_SOURCE: 'web',
        SVC_ACCESS_TOKEN_FILE: write('token', TOKEN),
        SVC_BASE_URL: 'http://127.0.0.1:7080',
      },
      '1000000001',
    );
    expect(web.accessToken).toBe(TOKEN);
  });

  it('names every missing piece of a source, by variable', () => {
    const message = problemsOf({ SVC_TOKEN_SOURCE: 'totp' });
    expect(message).toContain('SVC_PIN or SVC_PIN_FILE');
    expect(message).toContain('SVC_TOTP_SECRET or SVC_TOTP_SECRET_FILE');
    expect(message).toContain('SVC_AUTH_URL');
    expect(problemsOf({ SVC_TOKEN_SOURCE: 'web', SVC_ACCESS_TOKEN: TOKEN })).toContain('SVC_BASE_URL');
    expect(problemsOf({ SVC_TOKEN_SOURCE: 'file' })).toContain('SVC_ACCESS_TOKEN_FILE');
    expect(problemsOf({ SVC_TOKEN_SOURCE: 'magic' })).toContain(
      'SVC_TOKEN_SOURCE must be one of static, web, totp, file',
    );
    expect(problemsOf({ SVC_ACCESS_TOKEN: TOKEN, SVC_TOKEN_LEASE_S: '1' })).toContain('SVC_TOKEN_LEASE_S');
  });

  it('never echoes a secret, whatever is wrong with it', () => {
    const dir = tempDir('credentials-config-bad');
    const messages = [
      problemsOf({
        SVC_TOKEN_SOURCE: 'totp',
        SVC_PIN: '12345x',
        SVC_TOTP_SECRET: 'not base32 !!!',
        SVC_AUTH_URL: 'x',
      }),
      problemsOf({ SVC_ACCESS_TOKEN: TOKEN, SVC_ACCESS_TOKEN_FILE: '/nonexistent' }),
      problemsOf({ SVC_TOKEN_SOURCE: 'file', SVC_ACCESS_TOKEN: TOKEN, SVC_ACCESS_TOKEN_FILE: '/x' }),
      problemsOf({ SVC_TOKEN_SOURCE: 'totp', SVC_PIN_FILE: join(dir, 'missing'), SVC_TOTP_SECRET: SECRET }),
    ];
    expect(messages.every((m) => m.length > 0)).toBe(true);
    expect(messages[0]).toContain('SVC_PIN must be 6 digits');
    expect(messages[0]).toContain('SVC_TOTP_SECRET must be base32');
    expect(messages[1]).toContain('give SVC_ACCESS_TOKEN or SVC_ACCESS_TOKEN_FILE, not both');
    expect(messages[3]).toContain('SVC_PIN_FILE: cannot read');
    for (const m of messages) {
      for (const secret of ['12345x', 'not base32', TOKEN, 'very-secret', PIN, SECRET])
        expect(m).not.toContain(secret);
    }
  });
});
