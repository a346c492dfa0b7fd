import { describe, expect, it } from 'vitest';
import { base32Decode, hotp, totp } from '../src/index.js';

// RFC 6238 Appendix B: seeds are ASCII "1234567890" repeated to the hash's key length.
const SHA1_SEED = Buffer.from('12345678901234567890', 'ascii');
const SHA256_SEED = Buffer.from('12345678901234567890123456789012', 'ascii');
const SHA512_SEED = Buffer.from('1234567890123456789012345678901234567890123456789012345678901234', 'ascii');

const VECTORS: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP (RFC 6238)', () => {
  it('matches every SHA-1 test vector with 8 digits', () => {
    for (const [seconds, sha1] of VECTORS) {
      expect(totp(SHA1_SEED, { time: seconds * 1000, digits: 8 })).toBe(sha1);
    }
  });

  it('matches the SHA-256 and SHA-512 test vectors', () => {
    for (const [seconds, , sha256, sha512] of VECTORS) {
      expect(totp(SHA256_SEED, { time: seconds * 1000, digits: 8, algorithm: 'sha256' })).toBe(sha256);
      expect(totp(SHA512_SEED, { time: seconds * 1000, digits: 8, algorithm: 'sha512' })).toBe(sha512);
    }
  });

  it('gives 6-digit codes by default: the same truncation, modulo 10^6', () => {
    for (const [seconds, sha1] of VECTORS) {
      expect(totp(SHA1_SEED, { time: seconds * 1000 })).toBe(sha1.slice(2));
    }
  });

  it('keeps one code for a whole 30-second step and changes at the boundary', () => {
    expect(totp(SHA1_SEED, { time: 30_000 })).toBe(totp(SHA1_SEED, { time: 59_999 }));
    expect(totp(SHA1_SEED, { time: 59_999 })).not.toBe(totp(SHA1_SEED, { time: 60_000 }));
  });

  it('accepts the secret as base32 text, as authenticator apps show it', () => {
    // base32 of the RFC's SHA-1 seed.
    const b32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(Buffer.from(base32Decode(b32)).toString('ascii')).toBe('12345678901234567890');
    expect(totp(b32, { time: 59_000, digits: 8 })).toBe('94287082');
    expect(Buffer.from(base32Decode('jbsw y3dp ehpk 3pxp')).toString('hex')).toBe('48656c6c6f21deadbeef');
  });

  it('matches HOTP (RFC 4226) test values', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ];
    expected.forEach((code, counter) => {
      expect(hotp(SHA1_SEED, counter)).toBe(code);
    });
  });

  it('rejects secrets that are not base32', () => {
    expect(() => totp('not base32!')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
